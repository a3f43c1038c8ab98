"""Keys of the updater: optimizer, gradient processing, learning-rate schedule inside an epoch."""

from __future__ import annotations

import dataclasses
from typing import Any, Optional

from returnn.options.declare import OptionGroup, option

#: the reference's pre-``optimizer`` switches: ``adam = True`` selects Adam, ...
LEGACY_OPTIMIZER_FLAGS = ("adam", "nadam", "adamw", "adadelta", "adagrad", "rmsprop")


def _check_callable(value: Any) -> Optional[str]:
    return None if callable(value) else "a function (*, network, global_train_step, learning_rate, **kwargs)"


def _read_optimizer(config, key: str, default: Any) -> Any:
    return config.typed_value(key, default) if config.is_typed(key) else config.value(key, default)


def _check_optimizer(value: Any) -> Optional[str]:
    if isinstance(value, str) or (isinstance(value, dict) and "class" in value):
        return None
    return 'a dict with "class", e.g. {"class": "adam"}'


@dataclasses.dataclass(frozen=True)
class UpdaterOptions(OptionGroup):
    """The updater (:class:`returnn.tf.updater.Updater`)."""

    topic = "updater"

    optimizer: Any = option(None, "the optimizer: a dict {'class': 'adam', ...} or a class name; unset: a legacy "
                                  "flag (adam = True, ...), else momentum SGD (momentum > 0), else SGD",
                            kind="any_or_str", reader=_read_optimizer, check=_check_optimizer)
    adam: bool = option(False, "legacy: use Adam (when 'optimizer' is not set)", kind="bool")
    nadam: bool = option(False, "legacy: use Nadam (when 'optimizer' is not set)", kind="bool")
    adamw: bool = option(False, "legacy: use AdamW (when 'optimizer' is not set)", kind="bool")
    adadelta: bool = option(False, "legacy: use Adadelta (when 'optimizer' is not set)", kind="bool")
    adagrad: bool = option(False, "legacy: use Adagrad (when 'optimizer' is not set)", kind="bool")
    rmsprop: bool = option(False, "legacy: use RMSProp (when 'optimizer' is not set)", kind="bool")
    optimizer_epsilon: float = option(1e-16, "default epsilon of the optimizers that have one", kind="float")
    momentum: float = option(0.0, "default momentum (and: momentum SGD when no optimizer is set)", kind="float")
    gradient_clip: float = option(0.0, "clip each gradient element to [-x, x] (0: off)", kind="float")
    gradient_clip_norm: float = option(0.0, "clip each parameter's gradient to this norm (0: off)", kind="float")
    gradient_clip_global_norm: float = option(0.0, "clip all gradients together to this global norm (0: off)",
                                              kind="float")
    gradient_noise: float = option(0.0, "add Gaussian noise with this stddev to the gradients (0: off)", kind="float")
    gradient_nan_inf_filter: bool = option(False, "replace non-finite gradient elements by 0", kind="bool")
    accum_grad_multiple_step: int = option(0, "sum the gradients of N steps and apply them every N-th step (0/1: "
                                              "off)", kind="int", min=0, valid="a number of steps >= 0")
    reset_updater_vars_mod_step: int = option(0, "every N-th step, reset the optimizer state (0: off)", kind="int")
    decouple_constraints: bool = option(False, "apply the constraints (L2, ...) as a separate step after the "
                                               "optimizer's (param -= their gradient) instead of in the objective",
                                        kind="bool")
    decouple_constraints_factor: float = option(0.025, "accepted as the reference; changes nothing there "
                                                       "(observed) nor here", kind="float")
    debug_add_check_numerics_ops: bool = option(False, "a training step fails when the objective, a gradient or a "
                                                       "float tensor they come from holds NaN/inf", kind="bool")
    dynamic_learning_rate: Any = option(None, "function (*, network, global_train_step, learning_rate) -> the step's "
                                              "learning rate tensor (e.g. warmup)", kind="any",
                                        check=_check_callable)

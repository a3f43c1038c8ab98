"""Keys of the updater: optimizer, gradient processing, learning-rate schedule inside an epoch."""

from __future__ import annotations

import dataclasses
from typing import Any, Dict, Optional

from returnn.errors import ConfigValueError
from returnn.options.declare import OptionGroup, borrowed, option
from returnn.options.precision import PrecisionOptions
from returnn.options.run import RunOptions

#: the reference's pre-``optimizer`` switches: ``adam = True`` selects Adam, ...
LEGACY_OPTIMIZER_FLAGS = ("adam", "nadam", "adamw", "adadelta", "adagrad", "rmsprop")


def _check_callable(value: Any) -> Optional[str]:
    return None if callable(value) else "a function (*, network, global_train_step, learning_rate, **kwargs)"


def _check_optimizer(value: Any) -> Optional[str]:
    if isinstance(value, str) or (isinstance(value, dict) and "class" in value):
        return None
    return 'a dict with "class", e.g. {"class": "adam"}'


@dataclasses.dataclass(frozen=True)
class UpdaterOptions(OptionGroup):
    """The updater (:class:`returnn.tf.updater.Updater`): every key it reads, parsed and checked here once."""

    topic = "updater"

    optimizer: Any = option(None, "the optimizer: a dict {'class': 'adam', ...} or a class name; unset: a legacy "
                                  "flag (adam = True, ...), else momentum SGD (momentum > 0), else SGD",
                            kind="any_or_str", check=_check_optimizer)
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
    debug_grad_summaries: bool = option(False, "add TensorBoard summaries of every parameter and its gradient "
                                               "(mean, stddev, rms, l2, max, min) and the global gradient norm",
                                        kind="bool")
    dynamic_learning_rate: Any = option(None, "function (*, network, global_train_step, learning_rate) -> the step's "
                                              "learning rate tensor (e.g. warmup)", kind="any",
                                        check=_check_callable)
    #: with behavior_version >= 2 an ``optimizer`` is required (declared in :class:`RunOptions`)
    behavior_version: Optional[int] = borrowed(RunOptions, "behavior_version")
    #: float16 loss scaling of the updater (declared in :class:`PrecisionOptions`)
    tf_amp: Optional[str] = borrowed(PrecisionOptions, "tf_amp")
    #: the device, for ``tf_amp`` without a network (declared in :class:`RunOptions`)
    device: Optional[str] = borrowed(RunOptions, "device")

    def optimizer_dict(self) -> Dict[str, Any]:
        """The optimizer: ``optimizer`` (a class name becomes ``{"class": name}``); unset: the first legacy flag set
        (``adam = True``, ...), else momentum SGD with ``momentum > 0``, else SGD.

        :raises ConfigValueError: no ``optimizer`` with ``behavior_version >= 2``
        """
        value = self.optimizer
        if value is not None:
            return {"class": value} if isinstance(value, str) else dict(value)
        for flag in LEGACY_OPTIMIZER_FLAGS:
            if getattr(self, flag):
                return {"class": flag}
        if (self.behavior_version or 0) >= 2:
            raise ConfigValueError("optimizer", expected='an optimizer, e.g. optimizer = {"class": "adam"} '
                                                         "(required with behavior_version >= 2)", got=None)
        if self.momentum:
            return {"class": "momentum", "momentum": self.momentum}
        return {"class": "sgd"}

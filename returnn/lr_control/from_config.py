"""``learning_rate_control`` name → class, loading from the config, ``use_last_best_model``."""

from __future__ import annotations

from typing import Any, Optional

from returnn.errors import ConfigValueError, UnknownLearningRateControlError, UnknownNameError
from returnn.log import log
from returnn.lr_control.base import LearningRateControl
from returnn.options.lr_control import LearningRateControlOptions
from returnn.lr_control.strategies import ConstantLearningRate, NewbobAbs, NewbobMultiEpoch, NewbobRelative
from returnn.util.registry import Registry

LR_CONTROL: Registry[type] = Registry("learning-rate control")
LR_CONTROL.register("constant", ConstantLearningRate)
LR_CONTROL.register("newbob", NewbobRelative, aliases=("newbob_rel", "newbob_relative"))
LR_CONTROL.register("newbob_abs", NewbobAbs)
LR_CONTROL.register("newbob_multi_epoch", NewbobMultiEpoch)


def learning_rate_control_type(type_name: str) -> type:
    """The control class for a ``learning_rate_control`` value.

    :raises UnknownLearningRateControlError: (a ``LookupError`` and ``AssertionError``) with did-you-mean
    """
    try:
        return LR_CONTROL.get(type_name, context="config key 'learning_rate_control'")
    except UnknownNameError as exc:
        raise UnknownLearningRateControlError(kind=exc.kind, name=exc.name, suggestions=exc.suggestions,
                                              known=exc.known, context=exc.context) from None


def load_learning_rate_control_from_config(config) -> LearningRateControl:
    """:func:`learning_rate_control_from_options` of ``config`` parsed as :class:`LearningRateControlOptions`."""
    return learning_rate_control_from_options(LearningRateControlOptions.from_config(config))


def learning_rate_control_from_options(opts: LearningRateControlOptions) -> LearningRateControl:
    """The :class:`LearningRateControl` selected by ``learning_rate_control`` (default ``"constant"``), with its
    options and ``learning_rate_file`` loaded.

    :raises UnknownLearningRateControlError: an unknown ``learning_rate_control`` (with did-you-mean)
    """
    return learning_rate_control_type(opts.learning_rate_control).from_options(opts)


_LAST_BEST_OPTS = ("modulo", "first_epoch", "only_last_epochs", "filter_score", "only_last_n", "min_score_dist")


def get_use_last_best_model_epoch(learning_rate_control: LearningRateControl, use_last_best_model: Any,
                                  last_epoch: int) -> Optional[int]:
    """For config ``use_last_best_model`` (True, or a dict with ``modulo`` (check only when
    ``last_epoch % modulo == 0``, default 1) and the options of :meth:`LearningRateControl.get_last_best_epoch`):
    the earlier epoch to continue from instead of ``last_epoch``, or None. Prints the reference's message
    (``Last epoch 5 (score: 0.280806) is not the optimal model but epoch 4 has better score 0.251611 ({...}),
    will use that model.``) when it returns an epoch; the engine then loads that epoch's model.

    :raises ConfigValueError: for an unknown option in the dict
    """
    if not use_last_best_model:
        return None
    opts = dict(use_last_best_model) if isinstance(use_last_best_model, dict) else {}
    for key in opts:
        if key not in _LAST_BEST_OPTS:
            from returnn.util.suggest import close_matches
            raise ConfigValueError("use_last_best_model", expected="True or a dict with " + ", ".join(_LAST_BEST_OPTS),
                                   got={key: opts[key]}, suggestions=close_matches(key, _LAST_BEST_OPTS))
    modulo = int(opts.pop("modulo", 1) or 1)
    if last_epoch % modulo != 0:
        return None
    best_epoch = learning_rate_control.get_last_best_epoch(last_epoch=last_epoch, **opts)
    if best_epoch is None or best_epoch == last_epoch:
        return None
    last_score = learning_rate_control.get_epoch_error_value(last_epoch)
    best_score = learning_rate_control.get_epoch_error_value(best_epoch)
    print(f"Last epoch {last_epoch} (score: {last_score:f}) is not the optimal model but epoch {best_epoch} has "
          f"better score {best_score:f} ({learning_rate_control.get_epoch_error_dict(best_epoch)!r}), "
          "will use that model.", file=log.v4)
    return best_epoch

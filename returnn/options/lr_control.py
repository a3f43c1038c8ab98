"""Keys of the learning-rate control: the rate of each epoch, decided from the scores of the earlier ones."""

from __future__ import annotations

import dataclasses
from typing import Any, Dict, List, Optional, Union

from returnn.errors import ConfigValueError
from returnn.options.declare import OptionGroup, option


def _read_learning_rates(config, key: str, default: Any) -> Union[List[float], Dict[int, float]]:
    """``learning_rates``: a typed list/dict, or the text of a line-based config (a Python expression that may
    use ``numpy``/``np``, or comma-separated numbers), as the reference."""
    if not config.has("learning_rates"):
        return []
    value = config.typed_value("learning_rates", None) if config.is_typed("learning_rates") else None
    if value is None and not config.is_typed("learning_rates"):
        raw = config.value("learning_rates", "")
        try:
            import numpy
            value = eval(raw, {"numpy": numpy, "np": numpy}) if raw.strip() else []  # noqa: S307  (as reference)
        except Exception:
            value = config.float_list("learning_rates")
    if value is None:
        return []
    if isinstance(value, dict):
        try:
            return {int(k): float(v) for k, v in value.items()}
        except (TypeError, ValueError):
            raise ConfigValueError("learning_rates", expected="a dict epoch → learning rate", got=value) from None
    if isinstance(value, (list, tuple)) or hasattr(value, "tolist"):
        try:
            return [float(v) for v in list(value)]
        except (TypeError, ValueError):
            raise ConfigValueError("learning_rates", expected="a list of learning rates", got=value) from None
    raise ConfigValueError("learning_rates", expected="a list of learning rates or a dict epoch → rate", got=value)


@dataclasses.dataclass(frozen=True)
class LearningRateControlOptions(OptionGroup):
    """The learning-rate control (:mod:`returnn.learning_rate_control`)."""

    topic = "learning-rate control"

    learning_rate_control: str = option("constant", "the strategy: constant, newbob (= newbob_rel, newbob_relative), "
                                                    "newbob_abs, newbob_multi_epoch", kind="str")
    learning_rate: float = option(1.0, "the initial learning rate", kind="float")
    learning_rates: Any = option(None, "explicit rates: a list (index = epoch - 1) or a dict epoch -> rate; the "
                                       "strategy decides the epochs not listed", kind="any",
                                 reader=_read_learning_rates)
    min_learning_rate: float = option(0.0, "decayed rates never go below this", kind="float")
    learning_rate_file: Optional[str] = option(None, "the file of every epoch's rate and scores (read at start, "
                                                     "written after each epoch)", kind="str")
    learning_rate_control_error_measure: Optional[str] = option(None, "the score key that drives the decisions "
                                                                      "(default: dev_score, else the first one)",
                                                                kind="str")
    learning_rate_control_relative_error_relative_lr: bool = option(
        False, "divide the relative score change by learning rate / initial rate", kind="bool")
    learning_rate_control_min_num_epochs_per_new_lr: int = option(0, "keep a new rate at least this many epochs",
                                                                  kind="int")
    newbob_relative_error_div_by_old: bool = option(False, "the relative change divides by the old score instead of "
                                                           "the new one", kind="bool")
    newbob_learning_rate_decay: float = option(0.5, "factor of a decay", kind="float")
    newbob_learning_rate_growth: float = option(1.0, "factor of a growth", kind="float")
    newbob_relative_error_threshold: float = option(-0.01, "newbob, newbob_multi_epoch: decay when the relative "
                                                           "score change is above this", kind="float")
    newbob_error_threshold: float = option(-0.01, "newbob_abs: decay when the absolute score change is above this",
                                           kind="float")
    newbob_multi_num_epochs: int = option(5, "newbob_multi_epoch: average the relative changes of this many epochs",
                                          kind="int", min=1, valid="a positive number of epochs")
    newbob_multi_update_interval: Optional[int] = option(None, "newbob_multi_epoch: decide every N epochs (default: "
                                                               "newbob_multi_num_epochs; 0 counts as unset)",
                                                         kind="int")
    newbob_relative_error_grow_threshold: Optional[float] = option(
        None, "newbob_multi_epoch: grow when the mean relative change is below this (default: the decay threshold)",
        kind="float")

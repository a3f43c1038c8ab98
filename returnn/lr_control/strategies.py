"""The learning-rate control strategies: ``constant``, ``newbob`` (relative), ``newbob_abs``,
``newbob_multi_epoch``."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from returnn.errors import ConfigValueError
from returnn.lr_control.base import LearningRateControl
from returnn.options.lr_control import LearningRateControlOptions


class ConstantLearningRate(LearningRateControl):
    """``learning_rate_control = "constant"``: explicit ``learning_rates`` where given, else the most recent
    learning rate (i.e. ``learning_rate``, or the last explicit one)."""

    need_error_info = False

    def __init__(self, default_learning_rate: float, default_learning_rates=None, **kwargs):
        # the Newbob options are kept (unused), so that the repr shows the configured values as the reference's
        super().__init__(default_learning_rate=default_learning_rate, default_learning_rates=default_learning_rates,
                         **kwargs)

    def calc_learning_rate_for_epoch(self, epoch: int) -> float:
        return self.get_most_recent_learning_rate(epoch)

    def calc_new_learning_rate_for_epoch(self, epoch: int) -> float:
        explicit = self._default_rate_for_epoch(epoch)
        return explicit if explicit is not None else self.calc_learning_rate_for_epoch(epoch)


class _NewbobLastTwoEpochs(LearningRateControl):
    """Newbob on the score change between the last two epochs that have scores: decay when the change is
    greater than ``threshold``, else grow. Subclasses define how the change is measured."""

    threshold: float

    def score_change(self, old_epoch: int, new_epoch: int) -> Optional[float]:
        """The change from ``old_epoch`` to ``new_epoch``; None when the two cannot be compared."""
        raise NotImplementedError

    def calc_learning_rate_for_epoch(self, epoch: int) -> float:
        learning_rate = self.get_most_recent_learning_rate(epoch)
        last_epoch = self.get_last_epoch(epoch)
        last2_epoch = None if last_epoch is None else self.get_last_epoch(last_epoch)
        if last2_epoch is None:
            return learning_rate
        change = self.score_change(last2_epoch, last_epoch)
        if change is None:
            return learning_rate
        return self.calc_learning_rate_decay_or_grow(learning_rate, decay=change > self.threshold)


class NewbobRelative(_NewbobLastTwoEpochs):
    """``newbob`` / ``newbob_rel`` / ``newbob_relative``: decay when the relative score change of the last two
    epochs is greater than ``newbob_relative_error_threshold`` (default -0.01), else grow (factor 1.0 default)."""

    def __init__(self, relative_error_threshold: float = -0.01, **kwargs):
        super().__init__(**kwargs)
        self.relative_error_threshold = self.threshold = float(relative_error_threshold)

    @classmethod
    def kwargs_from_options(cls, opts: LearningRateControlOptions) -> Dict[str, Any]:
        kwargs = super().kwargs_from_options(opts)
        kwargs["relative_error_threshold"] = opts.newbob_relative_error_threshold
        return kwargs

    def score_change(self, old_epoch: int, new_epoch: int) -> Optional[float]:
        return self.calc_relative_error(old_epoch, new_epoch)

    def _repr_options(self) -> List[Tuple[str, Any]]:
        return [("relative_error_threshold", self.relative_error_threshold)]


class NewbobAbs(_NewbobLastTwoEpochs):
    """``newbob_abs``: decay when the absolute score change of the last two epochs is greater than
    ``newbob_error_threshold`` (default -0.01)."""

    def __init__(self, error_threshold: float = -0.01, **kwargs):
        super().__init__(**kwargs)
        self.error_threshold = self.threshold = float(error_threshold)

    @classmethod
    def kwargs_from_options(cls, opts: LearningRateControlOptions) -> Dict[str, Any]:
        kwargs = super().kwargs_from_options(opts)
        kwargs["error_threshold"] = opts.newbob_error_threshold
        return kwargs

    def score_change(self, old_epoch: int, new_epoch: int) -> Optional[float]:
        old_error, new_error = self.get_epoch_errors_same_key(old_epoch, new_epoch)
        if old_error is None or new_error is None:
            return None
        return new_error - old_error  # the reference ignores ..._relative_lr here

    def _repr_options(self) -> List[Tuple[str, Any]]:
        return [("error_threshold", self.error_threshold)]


class NewbobMultiEpoch(LearningRateControl):
    """``newbob_multi_epoch``: every ``newbob_multi_update_interval`` epochs, the mean relative score change over
    the last ``newbob_multi_num_epochs`` epochs is compared with ``newbob_relative_error_threshold`` (decay when
    greater) and ``newbob_relative_error_grow_threshold`` (default: the same; grow when smaller)."""

    def __init__(self, num_epochs: int = 5, update_interval: Optional[int] = None,
                 relative_error_threshold: float = -0.01, relative_error_grow_threshold: Optional[float] = None,
                 **kwargs):
        super().__init__(**kwargs)
        self.relative_error_grow_threshold = float(
            relative_error_threshold if relative_error_grow_threshold is None else relative_error_grow_threshold)
        self.num_epochs = int(num_epochs)
        self.update_interval = int(update_interval) if update_interval else self.num_epochs
        self.relative_error_threshold = float(relative_error_threshold)
        if self.num_epochs < 1 or self.update_interval < 1:
            raise ConfigValueError("newbob_multi_num_epochs", expected="a positive number of epochs (and interval)",
                                   got=(self.num_epochs, self.update_interval))

    @classmethod
    def kwargs_from_options(cls, opts: LearningRateControlOptions) -> Dict[str, Any]:
        kwargs = super().kwargs_from_options(opts)
        kwargs["num_epochs"] = opts.newbob_multi_num_epochs
        kwargs["update_interval"] = opts.newbob_multi_update_interval or opts.newbob_multi_num_epochs
        kwargs["relative_error_threshold"] = opts.newbob_relative_error_threshold
        kwargs["relative_error_grow_threshold"] = opts.newbob_relative_error_grow_threshold
        return kwargs

    def calc_learning_rate_for_epoch(self, epoch: int) -> float:
        learning_rate = self.get_most_recent_learning_rate(epoch)
        last_epoch = self.get_last_epoch(epoch)
        if last_epoch is None or (epoch - 1) % self.update_interval != 0:
            return learning_rate
        relative_errors = []
        for e in range(last_epoch - self.num_epochs + 1, last_epoch + 1):
            previous = self.get_last_epoch(e)
            if e not in self.epoch_data or previous is None:
                continue
            relative_error = self.calc_relative_error(previous, e)
            if relative_error is not None:
                relative_errors.append(relative_error)
        if not relative_errors:
            return learning_rate
        mean = sum(relative_errors) / len(relative_errors)
        if mean > self.relative_error_threshold:
            return self.calc_learning_rate_decay_or_grow(learning_rate, decay=True)
        if mean < self.relative_error_grow_threshold:
            return self.calc_learning_rate_decay_or_grow(learning_rate, decay=False)
        return learning_rate

    def _repr_options(self) -> List[Tuple[str, Any]]:
        return [("num_epochs", self.num_epochs), ("update_interval", self.update_interval),
                ("relative_error_threshold", self.relative_error_threshold),
                ("relative_error_grow_threshold", self.relative_error_grow_threshold)]

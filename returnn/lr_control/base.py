"""The base class of the learning-rate controls: epoch data, score keys, best epochs, file I/O.

Public path: :mod:`returnn.learning_rate_control` (see there for the config keys).
"""

from __future__ import annotations

import math
import os
from typing import Any, Dict, List, Optional, Tuple, Union

from returnn.errors import ConfigValueError
from returnn.log import log
from returnn.lr_control.file_format import EpochData, read_learning_rate_file, write_learning_rate_file
from returnn.options.lr_control import LearningRateControlOptions

DefaultLearningRates = Union[List[float], Dict[int, float]]


class LearningRateControl:
    """Base class: keeps :attr:`epoch_data` (epoch → :class:`EpochData`) and decides learning rates.

    :param default_learning_rate: learning rate of the first epoch (config ``learning_rate``)
    :param min_learning_rate: floor of decayed rates
    :param default_learning_rates: explicit rates, list (index = epoch - 1) or dict epoch → rate
    :param error_measure_key: score key that drives decisions; None → :meth:`get_error_key`'s default order
    :param relative_error_also_relative_to_learning_rate: divide the change by lr / initial lr
    :param min_num_epochs_per_new_learning_rate: keep a rate at least this many epochs
    :param relative_error_div_by_old: relative change divides by the old instead of the new score
    :param learning_rate_decay: factor when the score did not improve enough
    :param learning_rate_growth: factor when it did
    :param filename: the ``learning_rate_file``; loaded here when it exists
    """

    need_error_info = True
    EpochData = EpochData

    def __init__(self, default_learning_rate: float, min_learning_rate: float = 0.0,
                 default_learning_rates: Optional[DefaultLearningRates] = None, error_measure_key: Optional[str] = None,
                 relative_error_also_relative_to_learning_rate: bool = False,
                 min_num_epochs_per_new_learning_rate: int = 0, relative_error_div_by_old: bool = False,
                 learning_rate_decay: float = 1.0, learning_rate_growth: float = 1.0,
                 filename: Optional[str] = None):
        self.epoch_data: Dict[int, EpochData] = {}
        self.filename = filename
        self.default_learning_rate = float(default_learning_rate)
        self.min_learning_rate = float(min_learning_rate)
        self.default_learning_rates = default_learning_rates if default_learning_rates is not None else []
        self.error_measure_key = error_measure_key
        self.relative_error_also_relative_to_learning_rate = relative_error_also_relative_to_learning_rate
        self.min_num_epochs_per_new_learning_rate = int(min_num_epochs_per_new_learning_rate)
        self.relative_error_div_by_old = relative_error_div_by_old
        self.learning_rate_decay = float(learning_rate_decay)
        self.learning_rate_growth = float(learning_rate_growth)
        self._last_logged_error_key: Optional[str] = None
        self._first_scored_epoch: Optional[int] = None
        if filename:
            if os.path.exists(filename):
                print(f"Learning-rate-control: loading file {filename}", file=log.v4)
                self.load()
            else:
                print(f"Learning-rate-control: file {filename} does not exist yet", file=log.v4)
        else:
            print("Learning-rate-control: no file specified, not saving history (no proper restart possible)",
                  file=log.v4)
        # the explicit rates of epochs not in the file are entered right away, as the reference does
        rates = self.default_learning_rates
        explicit_epochs = rates.keys() if isinstance(rates, dict) else range(1, len(rates) + 1)
        for epoch in sorted(explicit_epochs):
            if epoch not in self.epoch_data:
                self.epoch_data[epoch] = EpochData(learning_rate=self._default_rate_for_epoch(epoch))

    # ------------------------------------------------------------------ config

    @classmethod
    def load_initial_kwargs_from_config(cls, config) -> Dict[str, Any]:
        """Constructor kwargs from the config keys listed in the module docstring."""
        return cls.kwargs_from_options(LearningRateControlOptions.from_config(config))

    @classmethod
    def kwargs_from_options(cls, opts: LearningRateControlOptions) -> Dict[str, Any]:
        """Constructor kwargs from the parsed options (the strategies add their own)."""
        return {
            "default_learning_rate": opts.learning_rate,
            "min_learning_rate": opts.min_learning_rate,
            "default_learning_rates": opts.learning_rates,
            "error_measure_key": opts.learning_rate_control_error_measure,
            "relative_error_also_relative_to_learning_rate": opts.learning_rate_control_relative_error_relative_lr,
            "min_num_epochs_per_new_learning_rate": opts.learning_rate_control_min_num_epochs_per_new_lr,
            "relative_error_div_by_old": opts.newbob_relative_error_div_by_old,
            "learning_rate_decay": opts.newbob_learning_rate_decay,
            "learning_rate_growth": opts.newbob_learning_rate_growth,
            "filename": opts.learning_rate_file,
        }

    @classmethod
    def load_initial_from_config(cls, config) -> "LearningRateControl":
        """Builds this control from the config (parsed as :class:`LearningRateControlOptions`)."""
        return cls.from_options(LearningRateControlOptions.from_config(config))

    @classmethod
    def from_options(cls, opts: LearningRateControlOptions) -> "LearningRateControl":
        """Builds this control from the parsed options."""
        return cls(**cls.kwargs_from_options(opts))

    # ------------------------------------------------------------------ rates

    def _default_rate_for_epoch(self, epoch: int) -> Optional[float]:
        """The explicit ``learning_rates`` entry for ``epoch``, or None."""
        rates = self.default_learning_rates
        if isinstance(rates, dict):
            return float(rates[epoch]) if epoch in rates else None
        if rates and 1 <= epoch <= len(rates):
            return float(rates[epoch - 1])
        return None

    def calc_learning_rate_for_epoch(self, epoch: int) -> float:
        """The learning rate the strategy gives for ``epoch`` from the earlier epochs (explicit rates ignored)."""
        raise NotImplementedError

    def calc_new_learning_rate_for_epoch(self, epoch: int) -> float:
        """Explicit ``learning_rates`` entry if there is one, else the strategy's rate (with the floor applied
        and the minimal number of epochs per rate respected)."""
        explicit = self._default_rate_for_epoch(epoch)
        if explicit is not None:
            return explicit
        last_epoch = self.get_last_epoch(epoch)
        if last_epoch is None:
            return self.get_most_recent_learning_rate(epoch)
        last_lr = self.epoch_data[last_epoch].learning_rate
        if self.min_num_epochs_per_new_learning_rate > 1 and last_lr is not None:
            count = 0
            for e in sorted((e for e in self.epoch_data if e <= last_epoch), reverse=True):
                if self.epoch_data[e].learning_rate != last_lr:
                    break
                count += 1
            if count < self.min_num_epochs_per_new_learning_rate:
                return last_lr
        return self.calc_learning_rate_for_epoch(epoch)

    def calc_learning_rate_decay_or_grow(self, learning_rate: float, decay: bool) -> float:
        """``learning_rate`` times the decay (``decay``) or growth factor, floored at ``min_learning_rate``."""
        learning_rate *= self.learning_rate_decay if decay else self.learning_rate_growth
        return max(learning_rate, self.min_learning_rate)

    def get_learning_rate_for_epoch(self, epoch: int) -> float:
        """The learning rate of ``epoch``: the stored one if the epoch is known, else newly decided (and stored,
        with an empty error dict, so it is written by the next :meth:`save`)."""
        if epoch in self.epoch_data and self.epoch_data[epoch].learning_rate is not None:
            return self.epoch_data[epoch].learning_rate
        learning_rate = self.calc_new_learning_rate_for_epoch(epoch)
        self.set_default_learning_rate_for_epoch(epoch, learning_rate)
        return learning_rate

    def set_default_learning_rate_for_epoch(self, epoch: int, learning_rate: Optional[float] = None) -> None:
        """Stores ``learning_rate`` (default: the initial rate) for ``epoch``, keeping existing scores."""
        if learning_rate is None:
            learning_rate = self._default_rate_for_epoch(epoch) or self.default_learning_rate
        if epoch in self.epoch_data:
            self.epoch_data[epoch].learning_rate = learning_rate
        else:
            self.epoch_data[epoch] = EpochData(learning_rate=learning_rate)

    def get_last_epoch(self, epoch: int) -> Optional[int]:
        """The largest known epoch ``< epoch``, or None."""
        earlier = [e for e in self.epoch_data if e < epoch]
        return max(earlier) if earlier else None

    def get_most_recent_learning_rate(self, epoch: int, exclude_current: bool = True) -> float:
        """The learning rate of the latest known epoch ``< epoch`` (``<=`` with ``exclude_current=False``) that
        has one, else the explicit rate of the first epoch, else the initial learning rate."""
        for e in sorted(self.epoch_data, reverse=True):
            if e > epoch or (exclude_current and e == epoch):
                continue
            if self.epoch_data[e].learning_rate is not None:
                return self.epoch_data[e].learning_rate
        first = self._default_rate_for_epoch(1) if isinstance(self.default_learning_rates, list) else None
        if isinstance(self.default_learning_rates, dict) and self.default_learning_rates:
            keys = [k for k in self.default_learning_rates if k <= epoch]
            if keys:
                first = float(self.default_learning_rates[max(keys)])
        return first if first is not None else self.default_learning_rate

    def calc_relative_error(self, old_epoch: int, new_epoch: int) -> Optional[float]:
        """``(new - old) / new`` (``/ old`` with ``relative_error_div_by_old``) of the epochs' scores, or None if
        one has no score; divided by ``lr / initial lr`` of ``new_epoch`` with
        ``relative_error_also_relative_to_learning_rate``."""
        old_error, new_error = self.get_epoch_errors_same_key(old_epoch, new_epoch)
        if old_error is None or new_error is None:
            return None
        denominator = old_error if self.relative_error_div_by_old else new_error
        if denominator == 0:
            relative = 0.0 if new_error == old_error else math.copysign(math.inf, new_error - old_error)
        else:
            relative = (new_error - old_error) / abs(denominator)
        return self._relative_to_learning_rate(relative, new_epoch)

    def get_epoch_errors_same_key(self, old_epoch: int, new_epoch: int) -> Tuple[Optional[float], Optional[float]]:
        """The scores of both epochs, or ``(None, None)`` when :meth:`get_error_key` chooses different keys for them
        (then the reference makes no decision, e.g. when only one of the epochs has a dev score)."""
        old_key, old_error = self.get_epoch_error_key_value(old_epoch)
        new_key, new_error = self.get_epoch_error_key_value(new_epoch)
        if old_key != new_key:
            return None, None
        return old_error, new_error

    def _relative_to_learning_rate(self, relative: float, epoch: int) -> float:
        if self.relative_error_also_relative_to_learning_rate:
            learning_rate = self.epoch_data[epoch].learning_rate
            if learning_rate and self.default_learning_rate:
                relative /= learning_rate / self.default_learning_rate
        return relative

    # ------------------------------------------------------------------ scores

    def set_epoch_error(self, epoch: int, error: Dict[str, Any], *, log_error_key: bool = True) -> None:
        """Adds the scores in ``error`` to ``epoch``'s entry: key → number, or key → dict of numbers per loss
        (``{"dev_score": {"cost:output": 1.9}}``, as the engine gives them; flattened by
        :func:`flatten_epoch_error`); ``":meta:..."`` keys go to :attr:`EpochData.meta`. An epoch without learning
        rate gets the one :meth:`calc_new_learning_rate_for_epoch`
        gives (with the reference's message). For the first epoch scored in this process, the chosen error key is
        logged (``Learning-rate-control: error key 'dev_score' from {...}``) each time it changes, unless
        ``log_error_key`` is False (the ``eval`` task, where the reference does not log it).

        :raises ConfigValueError: (key ``learning_rate_control``) for a non-numeric score
        """
        if epoch not in self.epoch_data or self.epoch_data[epoch].learning_rate is None:
            print(f"Learning rate not set for epoch {epoch}. Assuming default.", file=log.v4)
            self.get_learning_rate_for_epoch(epoch)
        data = self.epoch_data[epoch]
        flat = flatten_epoch_error(error)
        for key, value in flat.items():
            if key.startswith(EpochData.META_PREFIX):
                data.meta[key[len(EpochData.META_PREFIX):]] = value
                continue
            try:
                data.error[key] = float(value)
            except (TypeError, ValueError):
                raise ConfigValueError("learning_rate_control", expected=f"a number as score {key!r} of epoch {epoch}",
                                       got=value) from None
        if self._first_scored_epoch is None:
            self._first_scored_epoch = epoch
        if epoch == self._first_scored_epoch and log_error_key:
            key = self.get_error_key(epoch)
            if key != self._last_logged_error_key:
                print(f"Learning-rate-control: error key {key!r} from {flat!r}", file=log.v4)
                self._last_logged_error_key = key

    def get_error_key(self, epoch: int) -> Optional[str]:
        """The score key that drives the decision for ``epoch``. Order, as observed in the reference:
        ``learning_rate_control_error_measure`` itself, ``<measure>_output``; then (also with a measure that is
        not there, e.g. ``dev_error`` with only ``dev_score`` and ``dev_error_x``: ``dev_score``)
        ``dev_score``, ``dev_score_output``, the first key starting with ``dev_score_output/``, the first key
        starting with ``dev_``, ``train_score``, ``train_score_output``, the first key (sorted).
        Unknown epoch → the configured measure (None if not configured)."""
        if epoch not in self.epoch_data:
            return self.error_measure_key
        keys = sorted(self.epoch_data[epoch].error)
        if not keys:
            return self.error_measure_key if epoch not in self.epoch_data else None
        measure = self.error_measure_key
        if measure:
            for exact in (measure, measure + "_output"):
                if exact in keys:
                    return exact
        for exact, prefix in (("dev_score", None), ("dev_score_output", "dev_score_output/"), (None, "dev_"),
                              ("train_score", None), ("train_score_output", None)):
            if exact is not None and exact in keys:
                return exact
            if prefix is not None:
                for key in keys:
                    if key.startswith(prefix):
                        return key
        return keys[0]

    def get_epoch_error_dict(self, epoch: int) -> Dict[str, float]:
        """All scores of ``epoch`` (empty dict for an unknown epoch), without the meta entries."""
        if epoch not in self.epoch_data:
            return {}
        return dict(self.epoch_data[epoch].error)

    def get_epoch_error_key_value(self, epoch: int) -> Tuple[Optional[str], Optional[float]]:
        """``(key, score)`` that drives the decision for ``epoch``, or ``(None, None)`` if it has no scores."""
        key = self.get_error_key(epoch)
        if key is None:
            return None, None
        return key, self.get_epoch_error_dict(epoch).get(key)

    def get_epoch_error_value(self, epoch: int) -> Optional[float]:
        """The score that drives the decision for ``epoch`` (see :meth:`get_error_key`), or None."""
        return self.get_epoch_error_key_value(epoch)[1]

    def get_last_best_epoch(self, last_epoch: int, first_epoch: int = 1, only_last_epochs: Optional[int] = None,
                            filter_score: float = float("inf"), only_last_n: int = -1,
                            min_score_dist: float = 0.0) -> Optional[int]:
        """The epoch in ``[first_epoch, last_epoch]`` with the lowest score (the earliest among equal ones),
        but only if it is better than the latest scored epoch in that range by more than ``min_score_dist``;
        else None (also when the latest epoch is itself the best, as in the reference, for
        ``use_last_best_model``).

        :param only_last_epochs: only look at the epochs ``> last_epoch - only_last_epochs``
        :param filter_score: ignore epochs whose score is greater than this
        :param only_last_n: only look at the last ``n`` scored epochs (``-1``: all)
        """
        if only_last_epochs:
            first_epoch = max(first_epoch, last_epoch - only_last_epochs + 1)
        epochs = [e for e in sorted(self.epoch_data)
                  if first_epoch <= e <= last_epoch and self.get_epoch_error_value(e) is not None]
        if only_last_n is not None and only_last_n >= 0:
            epochs = epochs[len(epochs) - only_last_n:] if only_last_n else []
        if not epochs:
            return None
        latest_score = self.get_epoch_error_value(epochs[-1])
        best_epoch, best_score = None, None
        for e in epochs:
            score = self.get_epoch_error_value(e)
            if score > filter_score:
                continue
            if best_score is None or score < best_score:
                best_epoch, best_score = e, score
        if best_epoch is None or not latest_score - best_score > min_score_dist:
            return None
        return best_epoch

    # ------------------------------------------------------------------ file

    def save(self) -> None:
        """Writes :attr:`epoch_data` to ``learning_rate_file`` (temp file + rename); no-op without a file."""
        if not self.filename:
            return
        write_learning_rate_file(self.filename, self.epoch_data)

    def load(self) -> None:
        """Reads ``learning_rate_file`` into :attr:`epoch_data`.

        :raises returnn.errors.DataFileError: if it does not parse
        """
        self.epoch_data = read_learning_rate_file(self.filename)

    def _repr_options(self) -> List[Tuple[str, Any]]:
        """``(name, value)`` pairs shown by ``repr`` (the reference shows the options specific to the class)."""
        rates = self.default_learning_rates
        return [("default_learning_rate", self.default_learning_rate), ("min_learning_rate", self.min_learning_rate),
                ("default_learning_rates", _RawRepr("[\n]") if rates == [] else rates),
                ("error_measure_key", self.error_measure_key),
                ("relative_error_also_relative_to_learning_rate", self.relative_error_also_relative_to_learning_rate),
                ("min_num_epochs_per_new_learning_rate", self.min_num_epochs_per_new_learning_rate),
                ("relative_error_div_by_old", self.relative_error_div_by_old),
                ("learning_rate_decay", self.learning_rate_decay), ("learning_rate_growth", self.learning_rate_growth),
                ("filename", self.filename)]

    def __repr__(self) -> str:
        options = ", ".join(f"{name}={value!r}" for name, value in self._repr_options())
        return f"{type(self).__name__}({options})"

    def __str__(self) -> str:
        """As the reference's engine logs it: ``<repr>, epoch data: 1: EpochData(...), ..., error key: <key>``
        (only the first and last 3 epochs when there are more than 6)."""
        epochs = sorted(self.epoch_data)
        parts = [f"{e}: {self.epoch_data[e]!r}" for e in epochs]
        if len(parts) > 6:
            parts = parts[:3] + ["..."] + parts[-3:]
        error_key = self.get_error_key(epochs[-1]) if epochs else self.error_measure_key
        return f"{self!r}, epoch data: {', '.join(parts)}, error key: {error_key}"


def flatten_epoch_error(error: Dict[str, Any]) -> Dict[str, Any]:
    """Scores given per loss flattened as the reference stores them: ``{"dev_score": {"cost:output": 1.9}}``
    (one loss) → ``{"dev_score": 1.9}``; several losses → one key each, named by the part after ``:``
    (``{"dev_score": {"cost:output": 1.9, "cost:out2": 2.9}}`` → ``dev_score_output``, ``dev_score_out2``).
    Plain values come first, then the flattened ones (the reference's order)."""
    flat = {key: value for key, value in error.items() if not isinstance(value, dict)}
    for key, value in error.items():
        if not isinstance(value, dict):
            continue
        if len(value) == 1:
            flat[key] = next(iter(value.values()))
            continue
        for sub_key, sub_value in value.items():
            flat[f"{key}_{str(sub_key).split(':', 1)[-1]}"] = sub_value
    return flat


class _RawRepr:
    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return self.text

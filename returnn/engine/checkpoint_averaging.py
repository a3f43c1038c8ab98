"""The ``average_checkpoints`` option: which epochs' checkpoints are averaged, and the file name of the average
(backend independent, no TensorFlow; the averaging itself is :mod:`returnn.tf.util.checkpoint_average`).

After each saved epoch, training writes the average of

* the last ``N`` epoch checkpoints (``average_checkpoints = N`` or ``{"last_n": N}``), or
* the ``N`` best by a score of the learning-rate file (``{"best_n": N, "key": "dev_score_output"}``; without
  ``key`` the key the learning-rate control uses, e.g. ``dev_score``; lowest is best, ties: earlier epoch)

as ``<model>.avg.NNN`` (``NNN``: the epoch just trained), once at least ``N`` such checkpoints exist. That name is
no epoch checkpoint of ``<model>`` (those are ``<model>.NNN``), so resuming, ``cleanup_old_models`` and
``tools/get-best-model-epoch.py`` ignore it; it is the epoch checkpoint ``NNN`` of the model ``<model>.avg``, so
``++model <model>.avg ++load_epoch NNN`` (or ``++load <model>.avg.NNN``) loads it for search or forward.
"""

from __future__ import annotations

from typing import Callable, Dict, List, Optional, Set

from returnn.errors import ConfigValueError

#: what is appended to ``model`` for the averaged checkpoints' model prefix
AVERAGE_MODEL_SUFFIX = ".avg"


def averaged_model_prefix(model: str) -> str:
    """``<model>.avg``: the model prefix whose epoch checkpoints are the averages."""
    return model + AVERAGE_MODEL_SUFFIX


class AveragingOptions:
    """The ``average_checkpoints`` config value: ``N`` (the last N epochs), or a dict with exactly one of
    ``last_n`` / ``best_n`` (an int >= 1) and, with ``best_n``, optionally ``key`` (a score key).

    :raises ConfigValueError: anything else (unknown dict keys with did-you-mean)
    """

    KEYS = ("last_n", "best_n", "key")
    EXPECTED = "an int N >= 1 (the last N epochs), or a dict with 'last_n': N or 'best_n': N (and optionally 'key')"

    def __init__(self, value):
        if isinstance(value, bool) or not isinstance(value, (int, dict)):
            raise ConfigValueError("average_checkpoints", expected=self.EXPECTED, got=value)
        if isinstance(value, int):
            value = {"last_n": value}
        for key in value:
            if key not in self.KEYS:
                from returnn.util.suggest import close_matches

                raise ConfigValueError("average_checkpoints", expected=self.EXPECTED, got=key,
                                       suggestions=close_matches(key, self.KEYS))
        if ("last_n" in value) == ("best_n" in value):
            raise ConfigValueError("average_checkpoints", expected=self.EXPECTED + " (exactly one of them)",
                                   got=value)
        self.mode = "last_n" if "last_n" in value else "best_n"
        self.n = value[self.mode]
        if isinstance(self.n, bool) or not isinstance(self.n, int) or self.n < 1:
            raise ConfigValueError("average_checkpoints", expected="%r: an int >= 1" % self.mode, got=self.n)
        self.key: Optional[str] = value.get("key")
        if self.key is not None and (self.mode != "best_n" or not isinstance(self.key, str)):
            raise ConfigValueError("average_checkpoints", expected="'key' (a score key, e.g. 'dev_score') only "
                                                                   "with 'best_n'", got=self.key)

    def describe(self, key: Optional[str] = None) -> str:
        """``last 3`` / ``best 3 by dev_score``."""
        if self.mode == "last_n":
            return "last %i" % self.n
        return "best %i by %s" % (self.n, key or self.key)


def candidate_epochs(existing: List[int], scores: Dict[int, Dict[str, float]], opts: AveragingOptions,
                     error_key: Callable[[int], Optional[str]]) -> List[int]:
    """The epochs the average takes (up to ``N``, sorted ascending: the newest last).

    :param existing: epochs with a checkpoint
    :param scores: epoch -> learning-rate file entries of that epoch
    :param error_key: epoch -> the score key of that epoch (used where ``opts.key`` is None)
    """
    existing = sorted(existing)
    if opts.mode == "last_n":
        return existing[-opts.n:]
    ranked = []
    for epoch in existing:
        entries = scores.get(epoch, {})
        if opts.key is None:
            key = error_key(epoch)
        else:  # as learning_rate_control_error_measure: else the first key starting with it
            key = opts.key if opts.key in entries else next((k for k in sorted(entries) if k.startswith(opts.key)),
                                                            None)
        if key is not None and entries.get(key) is not None:
            ranked.append((entries[key], epoch))
    return sorted(epoch for _, epoch in sorted(ranked)[:opts.n])


def epochs_to_average(existing: List[int], scores: Dict[int, Dict[str, float]], opts: AveragingOptions,
                      error_key: Callable[[int], Optional[str]]) -> Optional[List[int]]:
    """:func:`candidate_epochs` when there are ``N`` of them, else None (too early for an average)."""
    epochs = candidate_epochs(existing, scores, opts, error_key)
    return epochs if len(epochs) >= opts.n else None


def epochs_kept_for_averaging(existing: List[int], scores: Dict[int, Dict[str, float]], opts: AveragingOptions,
                              error_key: Callable[[int], Optional[str]]) -> Set[int]:
    """The epochs ``cleanup_old_models`` keeps so that the next averages can be made: the current candidates (for
    ``last_n`` the next average needs the last N-1 of them, for ``best_n`` a later best set is drawn from them)."""
    return set(candidate_epochs(existing, scores, opts, error_key))

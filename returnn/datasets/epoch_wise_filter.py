"""``EpochWiseFilter``: the ``epoch_wise_filter`` option of the speech datasets (``OggZipDataset``,
``LibriSpeechCorpus``), public at the reference's path ``returnn.datasets.meta.EpochWiseFilter``.

``epoch_wise_filter = {(first_epoch, last_epoch): opts, ...}``: in the (sub-)epochs of an inclusive range
(``None`` = open end), the epoch's sequence order is filtered with ``opts``. The only option is
``max_mean_len``: the sequences are sorted by length (ties by corpus index); the shortest ``n + 1`` are kept,
where ``n`` is the number of prefixes of that sorted list whose mean length is ``< max_mean_len`` (so the
mean may exceed the limit by one sequence, as the reference); the kept ones stay in the epoch's order. An
unknown option raises :class:`DatasetArgError` (the reference asserts that every key was read). Log lines
(``log.v4``) as the reference::

    <prefix>Old mean seq len is 7.375000, new is 4.666667, requested max is 4.000000. Old num seqs is 8, new num
    seqs is 6.          (one line)
    <prefix>Old num seqs 8, new num seqs 6.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from returnn.errors import DatasetArgError
from returnn.log import log

_KNOWN_OPTS = ("max_mean_len",)


class EpochWiseFilter:
    """Filters an epoch's sequence order (see the module doc).

    :param epochs_opts: ``{(first_epoch or None, last_epoch or None): {"max_mean_len": float}}``
    :param debug_msg_prefix: start of the log lines
    :raises DatasetArgError: a key that is not an ``(int|None, int|None)`` pair
    """

    def __init__(self, epochs_opts: Dict[Tuple[Optional[int], Optional[int]], Dict[str, Any]],
                 debug_msg_prefix: str = "EpochWiseFilter"):
        if not isinstance(epochs_opts, dict):
            raise DatasetArgError(f"epoch_wise_filter: expected a dict (first_epoch, last_epoch) -> options, got "
                                  f"{type(epochs_opts).__name__}: {epochs_opts!r}")
        for key, opts in epochs_opts.items():
            if not (isinstance(key, tuple) and len(key) == 2
                    and all(k is None or isinstance(k, int) for k in key)):
                raise DatasetArgError(f"epoch_wise_filter: key {key!r}: expected (first_epoch, last_epoch), ints "
                                      f"or None")
            if not isinstance(opts, dict):
                raise DatasetArgError(f"epoch_wise_filter[{key!r}]: expected a dict of options, got {opts!r}")
        self.epochs_opts = epochs_opts
        self.debug_msg_prefix = debug_msg_prefix

    def _opts_for_epoch(self, epoch: int) -> Optional[Dict[str, Any]]:
        for (first, last), opts in self.epochs_opts.items():
            if (first is None or epoch >= first) and (last is None or epoch <= last):
                return opts
        return None

    def filter(self, epoch: Optional[int], seq_order: Sequence[int], get_seq_len: Callable[[int], float]
               ) -> List[int]:
        """The filtered ``seq_order`` of ``epoch`` (unchanged when no range covers it)."""
        prefix = f"{self.debug_msg_prefix}, epoch {epoch}. "
        opts = self._opts_for_epoch(epoch or 1)
        if opts is None:
            print(f"{prefix}No filter for this epoch.", file=log.v4)
            return list(seq_order)
        return self.filter_epoch(opts, seq_order, get_seq_len, prefix)

    @classmethod
    def filter_epoch(cls, opts: Dict[str, Any], seq_order: Sequence[int], get_seq_len: Callable[[int], float],
                     debug_msg_prefix: str) -> List[int]:
        """Applies one option dict to ``seq_order``.

        :raises DatasetArgError: an option other than ``max_mean_len``
        """
        unknown = sorted(set(opts) - set(_KNOWN_OPTS))
        if unknown:
            raise DatasetArgError(f"epoch_wise_filter: unknown option(s) {unknown}; known: {list(_KNOWN_OPTS)}")
        seq_order = list(seq_order)
        old_num = len(seq_order)
        max_mean_len = opts.get("max_mean_len")
        if max_mean_len is not None and seq_order:
            lens = np.array([get_seq_len(i) for i in seq_order], dtype=np.float64)
            by_len = sorted(range(old_num), key=lambda pos: (lens[pos], seq_order[pos]))
            sorted_lens = lens[by_len]
            cum_mean = np.cumsum(sorted_lens) / np.arange(1, old_num + 1)
            num = int(np.sum(cum_mean < max_mean_len)) + 1
            keep = set(by_len[:num])
            new_mean = float(np.mean(sorted_lens[:num]))
            print(f"{debug_msg_prefix}Old mean seq len is {float(np.mean(lens)):f}, new is {new_mean:f}, requested "
                  f"max is {float(max_mean_len):f}. Old num seqs is {old_num}, new num seqs is {num}.", file=log.v4)
            seq_order = [seq_order[pos] for pos in range(old_num) if pos in keep]
        print(f"{debug_msg_prefix}Old num seqs {old_num}, new num seqs {len(seq_order)}.", file=log.v4)
        return seq_order

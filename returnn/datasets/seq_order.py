"""Sequence ordering (the ``seq_ordering`` dataset option) and epoch partitioning (``partition_epoch``).

Modes (as the reference):

- ``default``: corpus order; ``reverse``: corpus order reversed.
- ``random``: shuffled with ``numpy.random.RandomState(seed).shuffle`` where ``seed`` is the full epoch
  (``(epoch - 1) // partition_epoch + 1``) plus ``random_seed_offset``, or ``fixed_random_seed`` when given.
  The same epoch gives the same order; sub-epochs of one full epoch share one shuffled order.
- ``random:<seed>``: shuffled with the given seed, the same order in every epoch.
- ``sorted`` / ``sorted_reverse``: by sequence length, ascending / descending (stable).
- ``laplace:<n_buckets>`` / ``laplace:.<n_seqs_per_bucket>``: shuffled as ``random``, cut into buckets,
  buckets sorted alternately ascending and descending by length.
- ``sort_bin_shuffle:<n_bins>`` / ``sort_bin_shuffle:.<n_seqs_per_bin>``: sorted by length, cut into bins,
  the bins shuffled.
"""

from __future__ import annotations

import math
from typing import Callable, List, Optional, Sequence

import numpy as np

from returnn.errors import ConfigValueError
from returnn.util.suggest import close_matches

SEQ_ORDERING_MODES = ("default", "reverse", "random", "random:<seed>", "sorted", "sorted_reverse",
                      "laplace:<n_buckets>", "laplace:.<n_seqs_per_bucket>", "sort_bin_shuffle:<n_bins>",
                      "sort_bin_shuffle:.<n_seqs_per_bin>")
_BASE_NAMES = ("default", "reverse", "random", "sorted", "sorted_reverse", "laplace", "sort_bin_shuffle")


def _bad_mode(mode: str, detail: str = "") -> ConfigValueError:
    base = mode.split(":", 1)[0]
    return ConfigValueError(
        "seq_ordering", expected="one of " + ", ".join(SEQ_ORDERING_MODES) + (f" ({detail})" if detail else ""),
        got=mode, suggestions=close_matches(base, _BASE_NAMES))


def check_seq_ordering(mode: str) -> None:
    """Validates a ``seq_ordering`` string.

    :raises ConfigValueError: naming ``seq_ordering``, the valid modes and the closest one
    """
    if not isinstance(mode, str):
        raise ConfigValueError("seq_ordering", expected="a str such as 'default' or 'random'", got=mode)
    base, _, arg = mode.partition(":")
    if base not in _BASE_NAMES:
        raise _bad_mode(mode)
    if base in ("default", "reverse", "sorted", "sorted_reverse") and arg:
        raise _bad_mode(mode, f"{base!r} takes no argument")
    if base == "random" and arg:
        try:
            int(arg)
        except ValueError:
            raise _bad_mode(mode, "the seed must be an int") from None
    if base in ("laplace", "sort_bin_shuffle"):
        try:
            value = int(arg[1:]) if arg.startswith(".") else int(arg)
        except ValueError:
            raise _bad_mode(mode, f"{base} needs an int count") from None
        if value <= 0:
            raise _bad_mode(mode, f"{base} needs a positive count")


def _buckets(order: List[int], arg: str) -> List[List[int]]:
    num = len(order)
    if arg.startswith("."):
        per_bucket = max(int(arg[1:]), 1)
    else:
        per_bucket = max(int(math.ceil(num / max(int(arg), 1))), 1)
    return [order[i:i + per_bucket] for i in range(0, num, per_bucket)]


def get_seq_order(num_seqs: int, mode: str, *, seed: int, get_seq_len: Optional[Callable[[int], int]] = None
                  ) -> List[int]:
    """The corpus indices of one full epoch in the order given by ``mode``.

    :param num_seqs: number of sequences in the corpus
    :param mode: a ``seq_ordering`` mode (see the module doc)
    :param seed: the epoch's random seed (ignored by ``random:<seed>``, which uses its own)
    :param get_seq_len: corpus index -> length; required by the sorting modes
    :raises ConfigValueError: for an unknown mode, or a sorting mode on a dataset without lengths
    """
    check_seq_ordering(mode)
    base, _, arg = mode.partition(":")
    if base == "default":
        return list(range(num_seqs))
    if base == "reverse":
        return list(range(num_seqs - 1, -1, -1))
    if base == "random":
        order = list(range(num_seqs))
        np.random.RandomState(int(arg) if arg else seed).shuffle(order)
        return order
    if get_seq_len is None:
        raise ConfigValueError("seq_ordering", expected="an order that needs no sequence lengths (this dataset "
                               "cannot tell lengths before loading): default, reverse, random", got=mode)
    lens = np.array([get_seq_len(i) for i in range(num_seqs)], dtype=np.float64)
    if base == "sorted":
        return [int(i) for i in np.argsort(lens, kind="stable")]
    if base == "sorted_reverse":
        return [int(i) for i in np.argsort(-lens, kind="stable")]
    if base == "laplace":
        order = list(range(num_seqs))
        np.random.RandomState(seed).shuffle(order)
        result = []
        for i, bucket in enumerate(_buckets(order, arg)):
            bucket.sort(key=lambda idx: lens[idx], reverse=bool(i % 2))
            result.extend(bucket)
        return result
    assert base == "sort_bin_shuffle"
    order = [int(i) for i in np.argsort(lens, kind="stable")]
    bins = _buckets(order, arg)
    np.random.RandomState(seed).shuffle(bins)
    return [idx for b in bins for idx in b]


def partition(order: Sequence[int], partition_epoch: int, epoch: int) -> List[int]:
    """The part of a full epoch's ``order`` used in sub-epoch ``epoch`` (1-based).

    Part ``i = (epoch - 1) % partition_epoch``; the parts split ``order`` like ``numpy.array_split`` (the
    first ``len(order) % partition_epoch`` parts get one sequence more), as the reference.
    """
    if partition_epoch <= 1:
        return list(order)
    num = len(order)
    part = (epoch - 1) % partition_epoch
    base, rest = divmod(num, partition_epoch)
    start = part * base + min(part, rest)
    end = start + base + (1 if part < rest else 0)
    return list(order[start:end])


def full_epoch(epoch: int, partition_epoch: int) -> int:
    """The full epoch (one pass over all data) that sub-epoch ``epoch`` belongs to (1-based)."""
    return (max(epoch, 1) - 1) // max(partition_epoch, 1) + 1

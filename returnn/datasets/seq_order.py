"""Sequence ordering (the ``seq_ordering`` dataset option) and epoch partitioning (``partition_epoch``).

Modes, with the reference's random calls (so the same seed gives its orders). ``seed`` is the epoch seed: the
full epoch (``(epoch - 1) // partition_epoch + 1``) plus ``random_seed_offset``, or ``fixed_random_seed``; every
random mode uses one ``numpy.random.RandomState(seed)``:

- ``default``: corpus order; ``reverse``: corpus order reversed.
- ``default_every_n:<n>``: with ``m = num_seqs // n``: ``0, m, 2m, .., (n-1)m, 1, m+1, ..`` (``n * m`` sequences;
  the remainder is left out, as the reference).
- ``random``: ``permutation(num_seqs)``. ``random:<n>``: the same, but the seed changes only every ``n`` full
  epochs (``(full_epoch - 1) // n + 1`` plus the offset; ``random:0`` is ``random``).
- ``sorted`` / ``sorted_reverse``: by sequence length, ascending / descending (stable).
- ``laplace[:<bins>]`` / ``laplace:.<seqs_per_bin>``: ``permutation``, cut into ``bins`` parts (default 2;
  ``max(num_seqs // seqs_per_bin, 2)``), part ``i`` = ``[i * N // bins, (i + 1) * N // bins)``, sorted by length,
  ascending for even ``i``, descending for odd ``i``.
- ``sort_bin_shuffle[:<bins>]`` / ``sort_bin_shuffle:.<seqs_per_bin>``: ``permutation``, stably sorted by length,
  cut into bins as above, the bins ``shuffle`` d. ``sort_bin_shuffle_x2``: then each bin ``shuffle`` d too.
"""

from __future__ import annotations

from typing import Callable, List, Optional, Sequence

import numpy as np

from returnn.errors import ConfigValueError
from returnn.util.suggest import close_matches

SEQ_ORDERING_MODES = ("default", "reverse", "default_every_n:<n>", "random", "random:<n_epochs>", "sorted",
                      "sorted_reverse", "laplace[:<n_bins>]", "laplace:.<n_seqs_per_bin>", "sort_bin_shuffle[:<n_bins>]",
                      "sort_bin_shuffle:.<n_seqs_per_bin>", "sort_bin_shuffle_x2[:<n_bins>]",
                      "sort_bin_shuffle_x2:.<n_seqs_per_bin>")
_BASE_NAMES = ("default", "reverse", "default_every_n", "random", "sorted", "sorted_reverse", "laplace",
               "sort_bin_shuffle", "sort_bin_shuffle_x2")


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
    if base in ("random", "default_every_n") and (arg or base == "default_every_n"):
        try:
            value = int(arg)
        except ValueError:
            raise _bad_mode(mode, f"{base} needs an int") from None
        if value < 0 or (base == "default_every_n" and value == 0):
            raise _bad_mode(mode, f"{base} needs a positive int")
    if base in ("laplace", "sort_bin_shuffle", "sort_bin_shuffle_x2") and arg:
        try:
            value = int(arg[1:]) if arg.startswith(".") else int(arg)
        except ValueError:
            raise _bad_mode(mode, f"{base} needs an int count") from None
        if value <= 0:
            raise _bad_mode(mode, f"{base} needs a positive count")


def _num_bins(arg: str, num_seqs: int) -> int:
    if not arg:
        return 2
    if arg.startswith("."):
        return max(num_seqs // int(arg[1:]), 2)
    return int(arg)


def _split_bins(order: List[int], bins: int) -> List[List[int]]:
    num = len(order)
    return [list(order[i * num // bins:(i + 1) * num // bins]) for i in range(bins)]


def get_seq_order(num_seqs: int, mode: str, *, seed: int, get_seq_len: Optional[Callable[[int], int]] = None,
                  seed_every_n_epochs: Optional[Callable[[int], int]] = None,
                  get_all_seq_lens: Optional[Callable[[], np.ndarray]] = None) -> List[int]:
    """The corpus indices of one full epoch in the order given by ``mode``.

    :param num_seqs: number of sequences in the corpus
    :param mode: a ``seq_ordering`` mode (see the module doc)
    :param seed: the epoch's random seed
    :param get_seq_len: corpus index -> length; required by the sorting modes
    :param seed_every_n_epochs: ``n`` -> the seed of ``random:<n>`` (default: ``seed``)
    :param get_all_seq_lens: the lengths of all ``num_seqs`` sequences at once, int ``[num_seqs]``, called only by
        the sorting modes (default: ``get_seq_len`` of each index)
    :raises ConfigValueError: for an unknown mode, or a sorting mode on a dataset without lengths
    """
    check_seq_ordering(mode)
    base, _, arg = mode.partition(":")
    if base == "default":
        return list(range(num_seqs))
    if base == "reverse":
        return list(range(num_seqs - 1, -1, -1))
    if base == "default_every_n":
        every = int(arg)
        per = num_seqs // every
        return [j * per + i for i in range(per) for j in range(every)]
    if base == "random":
        n_epochs = int(arg) if arg else 0
        if n_epochs and seed_every_n_epochs is not None:
            seed = seed_every_n_epochs(n_epochs)
        return [int(i) for i in np.random.RandomState(seed).permutation(num_seqs)]
    if get_seq_len is None and get_all_seq_lens is None:
        raise ConfigValueError("seq_ordering", expected="an order that needs no sequence lengths (this dataset "
                               "cannot tell lengths before loading): default, reverse, random", got=mode)
    if get_all_seq_lens is not None:
        lens = get_all_seq_lens()
    else:
        lens = np.array([get_seq_len(i) for i in range(num_seqs)], dtype=np.int64)
    if base == "sorted":
        return [int(i) for i in np.argsort(lens, kind="stable")]
    if base == "sorted_reverse":
        return [int(i) for i in np.argsort(-lens, kind="stable")]
    rnd = np.random.RandomState(seed)
    order = [int(i) for i in rnd.permutation(num_seqs)]
    bins = _num_bins(arg, num_seqs)
    if base == "laplace":
        result: List[int] = []
        for i, part in enumerate(_split_bins(order, bins)):
            part.sort(key=lambda idx: lens[idx], reverse=bool(i % 2))
            result.extend(part)
        return result
    order.sort(key=lambda idx: lens[idx])
    parts = _split_bins(order, bins)
    rnd.shuffle(parts)
    if base == "sort_bin_shuffle_x2":
        for part in parts:
            rnd.shuffle(part)
    return [idx for part in parts for idx in part]


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

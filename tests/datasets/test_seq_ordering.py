"""Tests for seq_ordering modes and partition_epoch (exact orders on a small dataset)."""

import numpy as np
import pytest

from returnn.datasets.generating import StaticDataset
from returnn.datasets.seq_order import get_seq_order
from returnn.errors import ConfigValueError

LENS = [5, 3, 10, 7, 2, 8, 1, 9, 4, 6, 12, 11]


def _ds(**kwargs):
    return StaticDataset([{"data": np.zeros((n, 1), "float32")} for n in LENS], **kwargs)


def _order(epoch=1, **kwargs):
    ds = _ds(**kwargs)
    ds.init_seq_order(epoch=epoch)
    return ds.get_current_seq_order()


def _shuffled(seed):
    order = list(range(len(LENS)))
    np.random.RandomState(seed).shuffle(order)
    return order


def test_default_and_reverse():
    assert _order(seq_ordering="default") == list(range(12))
    assert _order(seq_ordering="reverse") == list(range(11, -1, -1))


def test_sorted():
    assert [LENS[i] for i in _order(seq_ordering="sorted")] == sorted(LENS)
    assert _order(seq_ordering="sorted") == [6, 4, 1, 8, 0, 9, 3, 5, 7, 2, 11, 10]
    assert _order(seq_ordering="sorted_reverse") == [10, 11, 2, 7, 5, 3, 9, 0, 8, 1, 4, 6]


def test_random_reproducible_per_epoch():
    # Observed on the reference: epoch N shuffles with numpy RandomState(N).
    assert _order(1, seq_ordering="random") == [2, 3, 4, 10, 1, 6, 0, 7, 11, 9, 8, 5]
    assert _order(2, seq_ordering="random") == [9, 5, 4, 7, 1, 10, 0, 3, 2, 6, 11, 8]
    assert _order(3, seq_ordering="random") == _order(3, seq_ordering="random")
    assert _order(1, seq_ordering="random", random_seed_offset=10) == _shuffled(11)
    assert _order(1, seq_ordering="random", fixed_random_seed=7) == _order(5, seq_ordering="random",
                                                                           fixed_random_seed=7) == _shuffled(7)


def test_random_with_seed_same_every_epoch():
    assert _order(1, seq_ordering="random:42") == _order(2, seq_ordering="random:42") == _shuffled(42)


def test_laplace():
    # Shuffled (epoch seed), cut into buckets, sorted alternately ascending / descending.
    lens = [LENS[i] for i in _order(1, seq_ordering="laplace:3")]
    assert lens == [2, 7, 10, 12, 9, 5, 3, 1, 4, 6, 8, 11]
    assert _order(1, seq_ordering="laplace:.4") == _order(1, seq_ordering="laplace:3")
    lens = [LENS[i] for i in _order(1, seq_ordering="laplace:2")]
    assert lens == [1, 2, 3, 7, 10, 12, 11, 9, 8, 6, 5, 4]
    assert sorted(_order(2, seq_ordering="laplace:2")) == list(range(12))


def test_sort_bin_shuffle():
    order = _order(1, seq_ordering="sort_bin_shuffle:3")
    bins = [sorted(LENS[i] for i in order[j:j + 4]) for j in range(0, 12, 4)]
    assert sorted(bins) == [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]


def test_partition_epoch_cycles():
    orders = [_order(ep, partition_epoch=3) for ep in range(1, 7)]
    assert orders[:3] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]
    assert orders[3:] == orders[:3]


def test_partition_epoch_uneven():
    ds = StaticDataset([{"data": np.zeros((2, 1), "float32")}] * 10, partition_epoch=4)
    sizes = []
    for ep in range(1, 5):
        ds.init_seq_order(epoch=ep)
        sizes.append(ds.num_seqs)
    assert sizes == [3, 3, 2, 2]


def test_partition_epoch_random_shares_full_epoch_order():
    full = _shuffled(1)
    parts = [_order(ep, seq_ordering="random", partition_epoch=3) for ep in (1, 2, 3)]
    assert parts == [full[0:4], full[4:8], full[8:12]]
    assert _order(4, seq_ordering="random", partition_epoch=3) == _shuffled(2)[0:4]


@pytest.mark.parametrize("mode", ["foo", "randm", "laplace:x", "sorted:3", "laplace:0"])
def test_unknown_mode(mode):
    with pytest.raises(ConfigValueError) as exc:
        _ds(seq_ordering=mode)
    assert "seq_ordering" in str(exc.value) and mode in str(exc.value)


def test_unknown_mode_suggestion():
    with pytest.raises(ConfigValueError, match="did you mean: 'random'"):
        get_seq_order(3, "randm", seed=1)

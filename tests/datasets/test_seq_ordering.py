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


def test_random_every_n_epochs():
    # Observed on the reference: "random:<n>" reshuffles only every n full epochs (seed (epoch - 1) // n + 1)
    assert _order(1, seq_ordering="random:3") == _order(3, seq_ordering="random:3") == _shuffled(1)
    assert _order(4, seq_ordering="random:3") == _shuffled(2)
    assert _order(7, seq_ordering="random:0") == _order(7, seq_ordering="random")


# Observed on the reference's Dataset.get_seq_order_for_epoch: 57 sequences with the lengths below.
_REF_LENS = np.random.RandomState(42).randint(1, 23, size=[57])
_REF_ORDERS = [
    ("sort_bin_shuffle:.10", 1, 1, {}, [
        48, 52, 29, 28, 27, 55, 25, 40, 43, 35, 30, 26, 3, 9, 8, 50, 24, 22, 31, 17, 42, 54, 2, 18, 39, 36, 49, 6, 0,
        4, 51, 12, 38, 44, 21, 19, 46, 16, 33, 53, 13, 41, 56, 11, 34, 7, 47, 32, 1, 45, 10, 20, 15, 5, 37, 23, 14]),
    ("sort_bin_shuffle_x2:3", 1, 3, {}, [
        33, 4, 56, 36, 39, 53, 46, 11, 41, 0, 21, 49, 19, 13, 6, 18, 34, 16, 12, 54, 2, 3, 31, 17, 26, 51, 22, 50, 52,
        24, 38, 28, 9, 44, 29, 48, 8, 42, 32, 35, 30, 37, 55, 43, 40, 45, 10, 20, 25, 1, 5, 27, 15, 7, 47, 14, 23]),
    ("laplace:.10", 4, 2, {}, [3, 26, 39, 36, 49, 53, 46, 13, 4, 44, 24, 22, 31, 17]),
    ("laplace", 1, 1, {}, [
        21, 19, 46, 33, 53, 13, 34, 39, 36, 49, 38, 44, 26, 3, 50, 24, 22, 42, 2, 48, 27, 55, 40, 35, 30, 47, 45, 10,
        23, 14, 20, 15, 5, 37, 32, 1, 7, 43, 25, 52, 29, 28, 54, 31, 17, 9, 8, 4, 51, 12, 6, 0, 18, 41, 56, 11, 16]),
    ("default_every_n:5", 1, 1, {}, [i + 11 * j for i in range(11) for j in range(5)]),  # 55: the rest left out
    ("random:3", 1, 2, {"random_seed_offset": 5}, [
        34, 0, 21, 46, 3, 37, 19, 44, 6, 14, 39, 7, 56, 54, 36, 55, 28, 30, 40, 48, 23, 41, 17, 24, 32, 51, 18, 22, 47,
        50, 43, 29, 5, 38, 31, 27, 53, 12, 2, 8, 49, 4, 33, 26, 13, 11, 1, 25, 16, 52, 15, 45, 42, 20, 35, 9, 10]),
]


@pytest.mark.parametrize("mode, partition_epoch, epoch, extra, expected", _REF_ORDERS)
def test_reference_orders(mode, partition_epoch, epoch, extra, expected):
    from returnn.datasets.basic import Dataset
    ds = Dataset(seq_ordering=mode, partition_epoch=partition_epoch, **extra)
    assert list(ds.get_seq_order_for_epoch(epoch, 57, lambda i: int(_REF_LENS[i]))) == expected


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

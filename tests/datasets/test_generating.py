"""Tests for the generated datasets: shapes, dims, label semantics, seeding."""

import numpy as np
import pytest

from returnn.datasets import init_dataset
from returnn.datasets.generating import (
    CopyTaskDataset, DummyDataset, DummyDatasetMultipleSequenceLength, StaticDataset, Task12AXDataset,
    TaskNumberBaseConvertDataset)
from returnn.errors import DatasetArgError


def _seqs(ds, epoch=1, keys=("data", "classes")):
    ds.init_seq_order(epoch=epoch)
    ds.load_seqs(0, ds.num_seqs)
    return [{k: ds.get_data(i, k) for k in keys} for i in range(ds.num_seqs)]


def test_12ax_dims_and_semantics():
    ds = Task12AXDataset(num_seqs=30)
    assert ds.num_inputs == 9 and ds.num_outputs == {"data": (9, 2), "classes": (2, 1)}
    assert ds.get_data_keys() == ["data", "classes"]
    for seq in _seqs(ds):
        data, classes = seq["data"], seq["classes"]
        assert data.dtype == np.float32 and classes.dtype == np.int32
        assert 10 <= len(data) <= 99 and data.shape[1] == 9 and len(classes) == len(data)
        np.testing.assert_array_equal(data.sum(axis=1), 1.0)  # one-hot
        symbols = "".join("123ABCXYZ"[i] for i in data.argmax(axis=1))
        # Independent reference of the target rule.
        # Independent reference of the target rule: the last letter among A B X Y before this one, and the
        # last digit among 1 2, decide (noise symbols 3 C Z in between do not count).
        expected = []
        for t, ch in enumerate(symbols):
            before = symbols[:t]
            digits = [c for c in before if c in "12"]
            letters = [c for c in before if c in "ABXY"]
            ctx = (digits[-1] if digits else "") + (letters[-1] if letters else "") + ch
            expected.append(int(ctx in ("1AX", "2BY")))
        assert classes.tolist() == expected


def test_12ax_make_output_seq():
    # 1 A X B Y 2 B Y A X  ->  targets at the first X and the second Y
    inp = [0, 3, 6, 4, 7, 1, 4, 7, 3, 6]
    assert Task12AXDataset.make_output_seq(inp) == [0, 0, 1, 0, 0, 0, 0, 1, 0, 0]
    # 1 A C X (noise between): a target; 1 A X X: only the first X; 1 A 3 1 X: digits between do not reset
    assert Task12AXDataset.make_output_seq([0, 3, 5, 6]) == [0, 0, 0, 1]
    assert Task12AXDataset.make_output_seq([0, 3, 6, 6]) == [0, 0, 1, 0]
    assert Task12AXDataset.make_output_seq([0, 3, 2, 0, 6]) == [0, 0, 0, 0, 1]


def test_epoch_seeding():
    ds = Task12AXDataset(num_seqs=3)
    e1, e2, e1b = _seqs(ds, 1), _seqs(ds, 2), _seqs(ds, 1)
    assert all(np.array_equal(a["data"], b["data"]) for a, b in zip(e1, e1b))
    assert not all(a["data"].shape == b["data"].shape and np.array_equal(a["data"], b["data"])
                   for a, b in zip(e1, e2))
    fixed = Task12AXDataset(num_seqs=3, fixed_random_seed=5)
    f1, f2 = _seqs(fixed, 1), _seqs(fixed, 7)
    assert all(np.array_equal(a["data"], b["data"]) for a, b in zip(f1, f2))


def test_dummy_dataset_values():
    ds = DummyDataset(input_dim=4, output_dim=3, num_seqs=5, seq_len=6)
    seqs = _seqs(ds)
    assert len(seqs) == 5
    # Observed on the reference: flat index + seq_idx modulo 10, shifted by -5, scaled by 1/10.
    expected = ((np.arange(24) + 1) % 10 - 5.0) / 10.0
    np.testing.assert_allclose(seqs[1]["data"].ravel(), expected, rtol=1e-6)
    assert seqs[1]["data"].dtype == np.float32
    np.testing.assert_array_equal(seqs[1]["classes"], [1, 2, 0, 1, 2, 0])
    assert ds.get_data_shape("data") == [4] and ds.is_data_sparse("classes")


def test_dummy_multiple_seq_len():
    ds = DummyDatasetMultipleSequenceLength(input_dim=2, output_dim=5, num_seqs=3,
                                            seq_len={"data": 7, "classes": 3})
    seqs = _seqs(ds)
    assert seqs[0]["data"].shape == (7, 2) and seqs[0]["classes"].shape == (3,)
    np.testing.assert_array_equal(seqs[2]["classes"], [1, 2, 3])  # (7 * 2 + t + 2) % 5
    with pytest.raises(DatasetArgError):
        DummyDatasetMultipleSequenceLength(input_dim=2, output_dim=5, num_seqs=3, seq_len={"data": 7})


def test_copy_task():
    ds = CopyTaskDataset(nsymbols=5, num_seqs=40, minlen=2, maxlen=4)
    assert ds.num_outputs == {"data": (5, 1), "classes": (5, 1)}
    lens = set()
    for seq in _seqs(ds):
        np.testing.assert_array_equal(seq["data"], seq["classes"])
        assert seq["data"].min() >= 0 and seq["data"].max() < 5
        lens.add(len(seq["data"]))
    assert lens == {2, 3, 4}
    with pytest.raises(DatasetArgError, match="nsymbols"):
        CopyTaskDataset(nsymbols=300, num_seqs=3, minlen=1, maxlen=2)


def test_number_base_convert():
    ds = TaskNumberBaseConvertDataset(num_seqs=20)
    assert ds.num_outputs == {"data": (8, 1), "classes": (2, 1)}
    assert ds.labels["data"] == "01234567" and ds.labels["classes"] == "01"
    for seq in _seqs(ds):
        value = int("".join(str(d) for d in seq["data"]), 8)
        assert "".join(str(d) for d in seq["classes"]) == format(value, "b")
        assert 1 <= len(seq["data"]) <= 8
    ds = TaskNumberBaseConvertDataset(num_seqs=5, input_base=2, output_base=10)
    for seq in _seqs(ds):
        assert "".join(str(d) for d in seq["classes"]) == str(int("".join(map(str, seq["data"])), 2))


def test_static_dataset_inference():
    ds = StaticDataset([{"data": np.zeros((3, 2), "float32"), "classes": np.array([1, 4, 2], "int32")}])
    assert ds.num_outputs == {"data": (2, 2), "classes": (5, 1)}
    assert ds.get_target_list() == ["classes"]
    with pytest.raises(DatasetArgError, match="inconsistent"):
        StaticDataset([{"data": np.zeros((3, 2), "float32")}, {"data": np.zeros((3, 4), "float32")}])


def test_generating_infinite_by_default():
    ds = init_dataset({"class": "Task12AXDataset"})
    assert ds.num_seqs == float("inf")
    ds.init_seq_order(epoch=1)
    ds.load_seqs(0, 3)
    assert ds.is_less_than_num_seqs(10 ** 9) and ds.get_tag(2) == "seq-2"
    # the same sequences as a finite dataset of the same seed
    finite = Task12AXDataset(num_seqs=3)
    finite.init_seq_order(epoch=1)
    np.testing.assert_array_equal(ds.get_data(2, "data"), finite.get_data(2, "data"))
    with pytest.raises(DatasetArgError, match="num_seqs"):
        init_dataset({"class": "Task12AXDataset", "num_seqs": -1})
    with pytest.raises(DatasetArgError, match="seq_ordering"):
        init_dataset({"class": "Task12AXDataset", "seq_ordering": "random"})

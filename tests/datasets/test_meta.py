"""Tests for MetaDataset (tag matching), ConcatDataset and CombinedDataset."""

import numpy as np
import pytest

from returnn.datasets import init_dataset
from returnn.datasets.generating import StaticDataset
from returnn.datasets.hdf import SimpleHDFWriter
from returnn.errors import DataFileError, DatasetArgError


def _hdf(path, tags, lens, dim, value_base):
    w = SimpleHDFWriter(str(path), dim=dim, ndim=2)
    n, t = len(tags), max(lens)
    x = np.zeros((n, t, dim), "float32")
    for i, tag in enumerate(tags):
        x[i] = value_base[tag]
    w.insert_batch(x, seq_len=list(lens), seq_tag=list(tags))
    w.close()


def test_meta_dataset_matches_by_tag(tmp_path):
    values = {"a": 1.0, "b": 2.0, "c": 3.0}
    _hdf(tmp_path / "feat.hdf", ["a", "b", "c"], [2, 3, 4], 2, values)
    _hdf(tmp_path / "other.hdf", ["c", "a", "b"], [4, 2, 3], 1, {k: 10 * v for k, v in values.items()})
    seq_list = tmp_path / "seqs.txt"
    seq_list.write_text("b\nc\n")
    ds = init_dataset({
        "class": "MetaDataset",
        "datasets": {"feat": {"class": "HDFDataset", "files": [str(tmp_path / "feat.hdf")]},
                     "other": {"class": "HDFDataset", "files": [str(tmp_path / "other.hdf")]}},
        "data_map": {"data": ("feat", "data"), "extra": ("other", "data")},
        "seq_list_file": str(seq_list)})
    ds.init_seq_order(epoch=1)
    assert ds.num_seqs == 2 and ds.get_data_keys() == ["data", "extra"]
    assert ds.get_data_dim("extra") == 1
    ds.load_seqs(0, 2)
    for i, tag in enumerate(["b", "c"]):
        assert ds.get_tag(i) == tag
        assert float(ds.get_data(i, "data")[0, 0]) == values[tag]
        assert float(ds.get_data(i, "extra")[0, 0]) == 10 * values[tag]


def test_meta_dataset_default_control_and_missing_tag(tmp_path):
    _hdf(tmp_path / "feat.hdf", ["a", "b"], [2, 3], 2, {"a": 1.0, "b": 2.0})
    _hdf(tmp_path / "other.hdf", ["a"], [2], 1, {"a": 5.0})
    ds = init_dataset({
        "class": "MetaDataset",
        "datasets": {"feat": {"class": "HDFDataset", "files": [str(tmp_path / "feat.hdf")]},
                     "other": {"class": "HDFDataset", "files": [str(tmp_path / "other.hdf")]}},
        "data_map": {"data": ("feat", "data"), "extra": ("other", "data")}})
    ds.init_seq_order(epoch=1)
    assert ds.get_data(0, "extra")[0, 0] == 5.0
    with pytest.raises(DataFileError, match="'b'"):
        ds.get_data(1, "extra")


def test_meta_dataset_bad_data_map():
    with pytest.raises(DatasetArgError, match="unknown dataset 'nope'"):
        init_dataset({"class": "MetaDataset",
                      "datasets": {"x": {"class": "Task12AXDataset", "num_seqs": 2}},
                      "data_map": {"data": ("nope", "data")}})


def _static(offset, n, lens=None):
    lens = lens or [2] * n
    return {"class": "StaticDataset",
            "data": [{"data": np.full((lens[i], 1), offset + i, "float32")} for i in range(n)]}


def test_concat_dataset():
    ds = init_dataset({"class": "ConcatDataset", "datasets": [_static(0, 2), _static(100, 3)]})
    ds.init_seq_order(epoch=1)
    assert ds.num_seqs == 5
    assert [float(ds.get_data(i, "data")[0, 0]) for i in range(5)] == [0, 1, 100, 101, 102]


def test_combined_dataset():
    ds = init_dataset({
        "class": "CombinedDataset",
        "datasets": {"a": _static(0, 4), "b": {"class": "StaticDataset", "data": [
            {"classes": np.array([1, 2, 3], "int32")} for _ in range(3)]}},
        "data_map": {("a", "data"): "data", ("b", "classes"): "classes"},
        "sampling_sizes": {"a": 2, "b": 5}})
    ds.init_seq_order(epoch=1)
    assert ds.num_seqs == 7 and ds.get_data_keys() == ["data", "classes"]
    tags = [ds.get_tag(i) for i in range(7)]
    assert sum(t.startswith("a/") for t in tags) == 2 and sum(t.startswith("b/") for t in tags) == 5
    assert ds.get_data(0, "classes").shape == (0,)
    assert ds.get_data(6, "data").shape == (0, 1)
    assert ds.get_data(6, "classes").tolist() == [1, 2, 3]


def test_static_in_meta_by_order():
    a = StaticDataset([{"data": np.zeros((2, 1), "float32")}] * 2)
    assert a.get_all_tags() == ["seq-0", "seq-1"]

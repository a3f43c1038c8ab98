"""Tests for MetaDataset (tag matching), ConcatDataset and CombinedDataset."""

import os

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
    keys_used = ["data" if ds.get_data(i, "data").shape[0] else "classes" for i in range(7)]
    assert keys_used.count("data") == 2 and keys_used.count("classes") == 5
    assert ds.get_tag(6).startswith("seq-")  # the sub-dataset's tag, as the reference
    assert ds.get_data(0, "classes").shape == (0,)
    assert ds.get_data(6, "data").shape == (0, 1)
    assert ds.get_data(6, "classes").tolist() == [1, 2, 3]


def _combined(nums, **kwargs):
    datasets = {str(i): {"class": "StaticDataset", "data": [{f"d{i}": np.array([i * 100 + j], "int32")}
                                                          for j in range(n)], "output_dim": {f"d{i}": (1000, 1)}}
                for i, n in enumerate(nums)}
    return init_dataset(dict({"class": "CombinedDataset", "datasets": datasets,
                              "data_map": {(str(i), f"d{i}"): f"d{i}" for i in range(len(nums))}}, **kwargs))


def _combined_values(ds, epoch=1):
    ds.init_seq_order(epoch=epoch)
    ds.load_seqs(0, ds.num_seqs)
    return [int(ds.get_data(i, k)[0]) for i in range(ds.num_seqs) for k in ds.get_data_keys()
            if ds.get_data(i, k).shape[0]]


@pytest.mark.parametrize("nums, expected", [  # observed on the reference
    ([10, 5], [0, 1, 100, 2, 3, 101, 4, 5, 102, 6, 7, 103, 8, 9, 104]),
    ([7, 3], [0, 1, 100, 2, 3, 101, 4, 5, 6, 102]),
    ([1, 4], [100, 101, 102, 0, 103]),
    ([4, 2, 1], [0, 1, 100, 2, 3, 101, 200]),
])
def test_combined_interleave(nums, expected):
    assert _combined_values(_combined(nums, seq_ordering="interleave")) == expected


def test_combined_random_dataset_keeps_each_datasets_order():
    ds = _combined([10, 5])
    ds.seq_ordering = "random_dataset"
    values = _combined_values(ds)
    assert sorted(values) == list(range(10)) + list(range(100, 105))
    assert [v for v in values if v < 100] == list(range(10)) and values != sorted(values)


def test_static_in_meta_by_order():
    a = StaticDataset([{"data": np.zeros((2, 1), "float32")}] * 2)
    assert a.get_all_tags() == ["seq-0", "seq-1"]


def test_meta_dataset_uses_the_control_datasets_epoch_order(tmp_path):
    """As the reference: the order (seq_ordering, partition_epoch) comes from seq_order_control_dataset; the
    MetaDataset's own seq_ordering is not used (observed with the reference on the same zip)."""
    import sys

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import speech_corpus

    path = str(tmp_path / "text20.zip")
    speech_corpus.write_text_zip(path)

    def make(sub_kw, meta_kw):
        spec = {"class": "MetaDataset",
                "datasets": {"a": dict({"class": "OggZipDataset", "path": path, "audio": None, "targets": None},
                                       **sub_kw),
                             "b": {"class": "OggZipDataset", "path": path, "audio": None, "targets": None}},
                "data_map": {"classes": ("a", "orth"), "raw": ("b", "raw")}, "seq_order_control_dataset": "a"}
        spec.update(meta_kw)
        return init_dataset(spec)

    ds = make({"seq_ordering": "random", "partition_epoch": 2}, {})
    tags = []
    for ep in (1, 2):
        ds.init_seq_order(epoch=ep)
        tags.append([ds.get_tag(i) for i in range(ds.num_seqs)])
    assert tags == [["c/s03", "c/s16", "c/s06", "c/s10", "c/s02", "c/s14", "c/s04", "c/s17", "c/s07", "c/s01"],
                    ["c/s13", "c/s00", "c/s19", "c/s18", "c/s09", "c/s15", "c/s08", "c/s12", "c/s11", "c/s05"]]
    ds.load_seqs(0, 1)
    assert ds.get_data(0, "classes").tolist() == [119, 49, 51] and str(ds.get_data(0, "raw")) == "w13"
    ds = make({}, {"seq_ordering": "random", "partition_epoch": 2})
    ds.init_seq_order(epoch=1)
    assert ds.num_seqs == 20 and ds.get_tag(0) == "c/s00"

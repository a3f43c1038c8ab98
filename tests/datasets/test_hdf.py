"""Tests for HDFDataset and SimpleHDFWriter (layout, round trip, several files, bad files)."""

import os

import h5py
import numpy as np
import pytest

from returnn.datasets import init_dataset
from returnn.datasets.basic import get_dataset_class
from returnn.datasets.feeding import iterate_batch_data
from returnn.datasets.hdf import HDFDataset, SimpleHDFWriter
from returnn.errors import DataFileError, DatasetFileError


def _write(path, tags=("a", "b", "c"), lens=(4, 2, 3), offset=0.0):
    writer = SimpleHDFWriter(str(path), dim=3, ndim=2, extra_type={"classes": (10, 1, "int32")},
                             extra_labels={"classes": [str(i) for i in range(10)]})
    n, t = len(lens), max(lens)
    x = np.arange(n * t * 3, dtype="float32").reshape(n, t, 3) + offset
    cls = (np.arange(n * t, dtype="int32").reshape(n, t) % 10)
    feat = np.arange(n * t * 2, dtype="float32").reshape(n, t, 2)
    cls_lens = [max(1, v - 1) for v in lens]
    writer.insert_batch(x, seq_len={0: list(lens), "classes": cls_lens}, seq_tag=list(tags),
                        extra={"classes": cls, "feat": feat})
    writer.close()
    return x, cls, feat, cls_lens


def test_writer_layout(tmp_path):
    path = tmp_path / "out.hdf"
    x, cls, feat, cls_lens = _write(path)
    with h5py.File(path, "r") as f:
        assert dict(f.attrs) == {"inputPattSize": 3, "numLabels": 3, "numDims": 1, "numSeqs": 3, "numTimesteps": 9}
        np.testing.assert_array_equal(f["seqLengths"][()], [[4, 3, 4], [2, 1, 4], [3, 2, 4]])
        assert [t.decode() for t in f["seqTags"][()]] == ["a", "b", "c"]
        assert f["inputs"].shape == (9, 3) and f["inputs"].dtype == np.float32
        np.testing.assert_array_equal(f["inputs"][4:6], x[1, :2])
        np.testing.assert_array_equal(f["targets/size"].attrs["classes"], [10, 1])
        np.testing.assert_array_equal(f["targets/size"].attrs["feat"], [2, 2])
        assert f["targets/data/classes"].shape == (6,) and f["targets/data/classes"].dtype == np.int32
        assert f["targets/labels/feat"][()].tolist() == [b"dummy-label"]
        assert f["targets/labels/classes"][()].tolist()[:2] == [b"0", b"1"]


def test_round_trip_dense_sparse_multi_key(tmp_path):
    path = tmp_path / "out.hdf"
    x, cls, feat, cls_lens = _write(path)
    ds = HDFDataset(files=[str(path)])
    ds.init_seq_order(epoch=1)
    assert ds.get_data_keys() == ["data", "classes", "feat"]
    assert ds.get_data_dim("classes") == 10 and ds.is_data_sparse("classes")
    assert ds.get_data_dim("feat") == 2 and not ds.is_data_sparse("feat") and ds.get_data_shape("feat") == [2]
    assert ds.labels["classes"][3] == "3"
    ds.load_seqs(0, 3)
    for i, n in enumerate([4, 2, 3]):
        np.testing.assert_array_equal(ds.get_data(i, "data"), x[i, :n])
        np.testing.assert_array_equal(ds.get_data(i, "classes"), cls[i, :cls_lens[i]])
        np.testing.assert_array_equal(ds.get_data(i, "feat"), feat[i])
        assert ds.get_seq_length(i)["data"] == n
    assert ds.get_tag(2) == "c" and ds.get_all_tags() == ["a", "b", "c"]
    assert ds.get_num_timesteps() == 9


def test_sparse_inputs(tmp_path):
    path = str(tmp_path / "sparse.hdf")
    writer = SimpleHDFWriter(path, dim=7, ndim=1, labels=list("abcdefg"))
    writer.insert_batch(np.array([[1, 2, 3], [4, 5, 0]], dtype="int32"), seq_len=[3, 2], seq_tag=["s1", "s2"])
    writer.close()
    with h5py.File(path, "r") as f:
        np.testing.assert_array_equal(f["seqLengths"][()], [[3, 0], [2, 0]])
        assert f["inputs"][()].tolist() == [1, 2, 3, 4, 5]
    ds = HDFDataset(files=[path])
    ds.init_seq_order(epoch=1)
    assert ds.num_outputs["data"][0] == 7 and ds.is_data_sparse("data")
    assert ds.labels["data"] == list("abcdefg")
    assert ds.get_data(1, "data").tolist() == [4, 5]


def test_hand_built_reference_layout(tmp_path):
    """A file as the reference's HDFDatasetWriter writes it: fixed-width tags, scalar targets/size."""
    path = str(tmp_path / "ref.hdf")
    with h5py.File(path, "w") as f:
        f.attrs["inputPattSize"] = 2
        f.attrs["numSeqs"] = 2
        f.create_dataset("inputs", data=np.arange(10, dtype="float32").reshape(5, 2))
        f.create_dataset("seqLengths", data=np.array([[2, 1], [3, 2]], dtype="int32"))
        f.create_dataset("seqTags", data=np.array([b"x\0\0", b"yy\0"], dtype="S3"))
        f.create_group("targets/data").create_dataset("classes", data=np.array([5, 6, 7], dtype="int32"))
        f.create_group("targets/size").attrs["classes"] = 9
    ds = HDFDataset(files=[path])
    ds.init_seq_order(epoch=1)
    assert ds.get_tag(0) == "x" and ds.get_tag(1) == "yy"
    assert ds.get_data_dim("classes") == 9 and ds.is_data_sparse("classes")
    assert ds.get_data(1, "classes").tolist() == [6, 7]
    np.testing.assert_array_equal(ds.get_data(1, "data"), [[4, 5], [6, 7], [8, 9]])


def test_several_files_and_ordering(tmp_path):
    p1, p2 = tmp_path / "a.hdf", tmp_path / "b.hdf"
    _write(p1, tags=("a", "b", "c"), lens=(4, 2, 3))
    x2, *_ = _write(p2, tags=("d", "e"), lens=(1, 5), offset=1000)
    ds = init_dataset({"class": "HDFDataset", "files": [str(p1), str(p2)], "seq_ordering": "sorted"})
    ds.init_seq_order(epoch=1)
    assert ds.num_seqs == 5
    assert [ds.get_tag(i) for i in range(5)] == ["d", "b", "c", "a", "e"]
    ds.load_seqs(0, 5)
    np.testing.assert_array_equal(ds.get_data(4, "data"), x2[1])
    assert get_dataset_class("HDFDataset") is HDFDataset


def test_feeding_from_hdf(tmp_path):
    path = tmp_path / "a.hdf"
    x, *_ = _write(path)
    ds = HDFDataset(files=[str(path)])
    ds.init_seq_order(epoch=1)
    out = list(iterate_batch_data(ds, ds.generate_batches(batch_size=100), ["data", "classes"]))
    assert len(out) == 1
    np.testing.assert_array_equal(out[0].data["data"][1, :2], x[1, :2])
    np.testing.assert_array_equal(out[0].seq_lens["classes"], [3, 1, 2])


def test_writer_temp_file_and_rename(tmp_path):
    path = tmp_path / "out.hdf"
    writer = SimpleHDFWriter(str(path), dim=2, ndim=2)
    writer.insert_batch(np.zeros((1, 3, 2), "float32"), seq_len=[3], seq_tag=["a"])
    assert not path.exists()  # nothing complete-looking before close()
    writer.close()
    assert path.exists() and os.listdir(tmp_path) == ["out.hdf"]
    with pytest.raises(DatasetFileError, match="exists"):
        SimpleHDFWriter(str(path), dim=2, ndim=2)


def test_missing_file(tmp_path):
    with pytest.raises(DataFileError) as exc:
        HDFDataset(files=[str(tmp_path / "nope.hdf")])
    assert "nope.hdf" in str(exc.value) and "does not exist" in str(exc.value)


def test_not_hdf(tmp_path):
    path = tmp_path / "text.hdf"
    path.write_text("hello, not hdf\n")
    with pytest.raises(DataFileError, match="not an HDF5 file"):
        HDFDataset(files=[str(path)])


def test_truncated(tmp_path):
    path = tmp_path / "a.hdf"
    _write(path)
    data = path.read_bytes()
    path.write_bytes(data[:len(data) // 2])
    with pytest.raises(DataFileError, match="a.hdf"):
        ds = HDFDataset(files=[str(path)])
        ds.init_seq_order(epoch=1)
        ds.load_seqs(0, ds.num_seqs)


def test_inconsistent_lengths(tmp_path):
    path = str(tmp_path / "bad.hdf")
    with h5py.File(path, "w") as f:
        f.create_dataset("inputs", data=np.zeros((5, 2), "float32"))
        f.create_dataset("seqLengths", data=np.array([[2, 0], [4, 0]], dtype="int32"))
        f.create_dataset("seqTags", data=np.array([b"a", b"b"]))
    with pytest.raises(DataFileError) as exc:
        HDFDataset(files=[path])
    msg = str(exc.value)
    assert "bad.hdf" in msg and "'data'" in msg and "6" in msg and "5" in msg


def test_files_with_different_dims(tmp_path):
    p1, p2 = str(tmp_path / "a.hdf"), str(tmp_path / "b.hdf")
    for path, dim in ((p1, 2), (p2, 3)):
        w = SimpleHDFWriter(path, dim=dim, ndim=2)
        w.insert_batch(np.zeros((1, 2, dim), "float32"), seq_len=[2], seq_tag=["a"])
        w.close()
    with pytest.raises(DataFileError, match="dim"):
        HDFDataset(files=[p1, p2])


def test_hdf_dataset_writer_roundtrip(tmp_path):
    from returnn.datasets.generating import DummyDataset
    from returnn.datasets.hdf import HDFDataset, HDFDatasetWriter
    path = str(tmp_path / "d.hdf")
    open(path, "w").close()  # an existing file is replaced (the reference's tests pass a NamedTemporaryFile)
    writer = HDFDatasetWriter(path)
    source = DummyDataset(input_dim=3, output_dim=5, num_seqs=4, seq_len=6)
    writer.dump_from_dataset(source, use_progress_bar=False)
    writer.close()
    loaded = HDFDataset(files=[path])
    loaded.initialize()
    loaded.init_seq_order(epoch=1)
    loaded.load_seqs(0, 4)
    source.init_seq_order(epoch=1)
    source.load_seqs(0, 4)
    for i in range(4):
        np.testing.assert_array_equal(loaded.get_data(i, "data"), source.get_data(i, "data"))
        np.testing.assert_array_equal(loaded.get_data(i, "classes"), source.get_data(i, "classes"))
    assert loaded.get_data_dim("classes") == 5 and loaded.get_tag(3) == "seq-3"


def test_hdf_dataset_writer_without_data_key(tmp_path):
    from returnn.datasets.generating import StaticDataset
    from returnn.datasets.hdf import HDFDataset, HDFDatasetWriter
    seqs = [{"classes": np.arange(i, i + 5, dtype="int32")} for i in range(3)]
    path = str(tmp_path / "c.hdf")
    HDFDatasetWriter(path).dump_from_dataset(StaticDataset(seqs, output_dim={"classes": [100, 1]}),
                                            use_progress_bar=False)
    loaded = HDFDataset(files=[path])
    loaded.init_seq_order(epoch=1)
    loaded.load_seqs(0, 3)
    assert loaded.get_data_keys() == ["classes"] and loaded.get_data_dim("classes") == 100
    assert [loaded.get_data(i, "classes").tolist() for i in range(3)] == [s["classes"].tolist() for s in seqs]


def test_public_file_bookkeeping(tmp_path):
    # observed on the reference: empty: file_start [0], files [], file_seq_start []; with two files of 2 and 1
    # seqs (lens 3, 2 and 4, one data key): file_start [0, 2, 3] and per file the running sums of seqLengths
    empty = HDFDataset()
    assert empty.file_start == [0] and empty.files == [] and empty.file_seq_start == []
    fn1, fn2 = str(tmp_path / "a.hdf"), str(tmp_path / "b.hdf")
    for fn, lens in [(fn1, [3, 2]), (fn2, [4])]:
        writer = SimpleHDFWriter(fn, dim=2)
        writer.insert_batch(np.ones((len(lens), max(lens), 2), "float32"), seq_len=lens,
                            seq_tag=["%s-%i" % (os.path.basename(fn), i) for i in range(len(lens))])
        writer.close()
    ds = HDFDataset(files=[fn1, fn2])
    assert ds.files == [fn1, fn2] and ds.file_start == [0, 2, 3]
    np.testing.assert_array_equal(ds.file_seq_start[0][:, 0], [0, 3, 5])
    np.testing.assert_array_equal(ds.file_seq_start[1][:, 0], [0, 4])


def test_pickle_and_deepcopy_reopen_the_files(tmp_path):
    import copy
    import pickle
    fn = str(tmp_path / "a.hdf")
    x, _, _, _ = _write(fn)
    ds = HDFDataset(files=[fn])
    ds.init_seq_order(epoch=1)
    for other in [pickle.loads(pickle.dumps(ds)), copy.deepcopy(ds)]:
        assert other.epoch == 1 and other.files == [fn]
        other.load_seqs(0, 3)
        for i, n in enumerate((4, 2, 3)):
            np.testing.assert_array_equal(other.get_data(i, "data"), x[i, :n])


def test_dataset_string_of_hdf_file_names(tmp_path):
    # observed on the reference: init_dataset("<file>") and "<file1>,<file2>" give an HDFDataset of these files
    # (whatever the suffix); a class string with a path argument stays a class string
    from returnn.errors import UnknownNameError
    fn1, fn2 = str(tmp_path / "a.hdf"), str(tmp_path / "b.data")
    _write(fn1)
    _write(fn2)
    ds = init_dataset(fn1)
    assert isinstance(ds, HDFDataset) and ds.files == [fn1]
    assert init_dataset(fn1 + "," + fn2).files == [fn1, fn2]
    with pytest.raises(DatasetFileError, match="does not exist"):
        init_dataset(str(tmp_path / "missing.hdf"))
    with pytest.raises(UnknownNameError):
        init_dataset("Task12AXDatset")
    ds = init_dataset("HDFDataset:files=" + fn1)
    assert isinstance(ds, HDFDataset)


def test_cache_byte_size_split_is_reported(tmp_path):
    # observed on the reference: cache_byte_size=1000 -> limit at start 666, total limit 334; default 0 and 0
    fn = str(tmp_path / "a.hdf")
    _write(fn)
    ds = HDFDataset(files=[fn], cache_byte_size=1000)
    assert (ds.cache_byte_size_limit_at_start, ds.cache_byte_size_total_limit) == (666, 334)
    ds = HDFDataset(files=[fn])
    assert (ds.cache_byte_size_limit_at_start, ds.cache_byte_size_total_limit) == (0, 0)


def test_cache_budget_reads_ahead(tmp_path):
    # frames of 3 float32 (12 bytes): sequences of 48, 24, 36, 60, 12 bytes
    lens = [4, 2, 3, 5, 1]
    path = str(tmp_path / "c.hdf")
    writer = SimpleHDFWriter(path, dim=3)
    writer.insert_batch(np.ones((5, 5, 3), "float32"), seq_len=lens, seq_tag=[f"s{i}" for i in range(5)])
    writer.close()
    calls = []
    for cache_byte_size, expected in [(0, []), (150, [(1, 3)])]:  # 150: 50 bytes while reading (2/3 at start)
        ds = HDFDataset(files=[path], cache_byte_size=cache_byte_size)
        ds.init_seq_order(epoch=1)
        calls.clear()
        original = ds._preload_seqs
        ds._preload_seqs = lambda start, end: (calls.append((start, end)), original(start, end))
        ds.load_seqs(0, 1)
        assert calls == expected
        assert ds.get_data(0, "data").shape == (4, 3)
        if expected:  # the read-ahead sequences are there without another load
            assert ds.get_data(2, "data").shape == (3, 3)

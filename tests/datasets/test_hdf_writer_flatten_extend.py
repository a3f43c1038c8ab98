"""SimpleHDFWriter: inputs with several variable axes (flattened, plus a "sizes" stream) and
extend_existing_file; the file layouts as observed from the reference's writer."""

import h5py
import numpy as np
import pytest

from returnn.datasets.hdf import HDFDataset, SimpleHDFWriter
from returnn.errors import DatasetFileError


def _read(path):
    ds = HDFDataset(files=[str(path)])
    ds.init_seq_order(epoch=1)
    ds.load_seqs(0, ds.num_seqs)
    return ds, {k: [ds.get_data(i, k) for i in range(ds.num_seqs)] for k in ds.get_data_keys()}


def test_dense_var_len_feature_axis(tmp_path):
    fn = tmp_path / "a.hdf"
    w = SimpleHDFWriter(filename=str(fn), dim=None, ndim=2, labels=None)
    x = np.arange(24, dtype="float32").reshape(2, 3, 4)
    w.insert_batch(inputs=x, seq_len={0: [3, 2], 1: [4, 2]}, seq_tag=["a", "b"])
    w.close()
    with h5py.File(fn, "r") as f:  # observed layout
        assert f["inputs"].shape == (16,) and f.attrs["inputPattSize"] == 1 and f.attrs["numTimesteps"] == 16
        assert f["seqLengths"][()].tolist() == [[12, 2], [4, 2]]
        assert f["targets/data/sizes"][()].tolist() == [3, 4, 2, 2]
        assert f["targets/size"].attrs["sizes"].tolist() == [1, 1]
    ds, data = _read(fn)
    assert ds.get_data_keys() == ["data", "sizes"] and ds.get_data_shape("data") == []
    assert not ds.is_data_sparse("data") and ds.get_data_dtype("sizes") == "int32"
    np.testing.assert_array_equal(data["data"][0], x[0, :3, :4].reshape(-1))
    np.testing.assert_array_equal(data["data"][1], x[1, :2, :2].reshape(-1))
    assert [s.tolist() for s in data["sizes"]] == [[3, 4], [2, 2]]


def test_sparse_two_axes_with_extra(tmp_path):
    fn = tmp_path / "b.hdf"
    w = SimpleHDFWriter(filename=str(fn), dim=11, ndim=2, labels=[str(i) for i in range(11)],
                        extra_type={"lp": (5, 2, "float32")})
    for b, t in enumerate([2, 3]):
        w.insert_batch(inputs=np.arange(t * 5, dtype="int32").reshape(1, t, 5) % 11, seq_len={0: [t], 1: [5]},
                       seq_tag=[f"s{b}"], extra={"lp": np.full((1, t, 5), b + 0.5, "float32")})
    w.close()
    with h5py.File(fn, "r") as f:  # observed layout: columns data, lp, sizes
        assert f["seqLengths"][()].tolist() == [[10, 2, 2], [15, 3, 2]]
        assert f["targets/data/lp"].shape == (5, 5) and f["targets/data/sizes"][()].tolist() == [2, 5, 3, 5]
    ds, data = _read(fn)
    assert ds.get_data_keys() == ["data", "lp", "sizes"]
    assert ds.is_data_sparse("data") and ds.get_data_dim("data") == 11 and ds.get_data_shape("lp") == [5]
    assert [d.shape for d in data["data"]] == [(10,), (15,)] and [d.shape for d in data["lp"]] == [(2, 5), (3, 5)]
    assert data["data"][1].tolist() == (np.arange(15) % 11).tolist()


def test_dense_two_axes_keep_feature(tmp_path):
    fn = tmp_path / "c.hdf"
    w = SimpleHDFWriter(filename=str(fn), dim=4, ndim=3)
    x = np.arange(48, dtype="float32").reshape(2, 3, 2, 4)
    w.insert_batch(inputs=x, seq_len={0: [3, 1], 1: [2, 1]}, seq_tag=["a", "b"])
    w.close()
    ds, data = _read(fn)
    assert ds.get_data_shape("data") == [4]
    np.testing.assert_array_equal(data["data"][0], x[0].reshape(6, 4))
    np.testing.assert_array_equal(data["data"][1], x[1, :1, :1].reshape(1, 4))
    assert [s.tolist() for s in data["sizes"]] == [[3, 2], [1, 1]]


def test_extend_existing_file(tmp_path):
    fn = tmp_path / "d.hdf"
    w = SimpleHDFWriter(filename=str(fn), dim=2)
    w.insert_batch(inputs=np.ones((2, 3, 2), "float32"), seq_len=[3, 1], seq_tag=["a", "b"],
                   extra={"e": np.zeros((2, 3, 1), "float32")})
    w.close()
    w = SimpleHDFWriter(filename=str(fn), dim=2, extend_existing_file=True)
    w.insert_batch(inputs=np.full((1, 2, 2), 2, "float32"), seq_len=[2], seq_tag=["c"],
                   extra={"e": np.ones((1, 4, 1), "float32")})
    w.close()
    with h5py.File(fn, "r") as f:  # observed layout
        assert f["seqLengths"][()].tolist() == [[3, 3], [1, 3], [2, 4]]
        assert f.attrs["numSeqs"] == 3 and f.attrs["numTimesteps"] == 6 and f["targets/data/e"].shape == (10, 1)
    ds, data = _read(fn)
    assert [ds.get_tag(i) for i in range(3)] == ["a", "b", "c"]
    assert [d.tolist() for d in data["data"]] == [[[1, 1]] * 3, [[1, 1]], [[2, 2]] * 2]
    assert [d.shape for d in data["e"]] == [(3, 1), (3, 1), (4, 1)]


def test_extend_missing_file(tmp_path):
    with pytest.raises(DatasetFileError, match="does not exist"):
        SimpleHDFWriter(filename=str(tmp_path / "none.hdf"), dim=2, extend_existing_file=True)

"""SimpleHDFWriter with several time axes per sequence (e.g. attention weights ``[dec-T, enc-T]``): flattened frames
and a ``sizes`` stream, the layout the reference writes (observed with h5py), read back by HDFDataset."""

import h5py
import numpy as np
from returnn.datasets.hdf import HDFDataset, SimpleHDFWriter


def _write(path, dim, ndim, x, seq_len):
    writer = SimpleHDFWriter(filename=str(path), dim=dim, ndim=ndim, labels=None)
    writer.insert_batch(inputs=x, seq_len=seq_len, seq_tag=["a", "b"])
    writer.close()
    return h5py.File(str(path), "r")


def test_two_time_axes_without_dim(tmp_path):
    x = np.random.RandomState(1).normal(size=(2, 3, 4)).astype("float32")
    with _write(tmp_path / "att.hdf", None, 2, x, {0: [3, 2], 1: [4, 3]}) as f:
        # observed from the reference's writer for the same call
        assert dict(f.attrs) == {"inputPattSize": 1, "numDims": 1, "numLabels": 1, "numSeqs": 2, "numTimesteps": 18}
        np.testing.assert_array_equal(f["inputs"][()], np.concatenate([x[0, :3, :4].ravel(), x[1, :2, :3].ravel()]))
        assert f["seqLengths"][()].tolist() == [[12, 2], [6, 2]]
        assert f["targets/data/sizes"][()].tolist() == [3, 4, 2, 3]
        assert f["targets/data/sizes"].dtype == np.int32
        assert f["targets/size"].attrs["sizes"].tolist() == [1, 1]
        assert f["targets/labels/sizes"][()].tolist() == [b"dummy-label"]
    dataset = HDFDataset(files=[str(tmp_path / "att.hdf")])
    dataset.initialize()
    dataset.init_seq_order(epoch=1)
    dataset.load_seqs(0, 2)
    assert dataset.get_data(1, "data").shape == (6,)
    assert dataset.get_data(1, "sizes").tolist() == [2, 3]
    assert dataset.get_seq_length(1)["data"] == 6 and dataset.get_seq_length(1)["sizes"] == 2


def test_two_time_axes_with_feature_dim(tmp_path):
    x = np.random.RandomState(2).normal(size=(2, 3, 2, 4)).astype("float32")
    with _write(tmp_path / "x.hdf", 4, 3, x, {0: [3, 2], 1: [2, 1]}) as f:
        assert f.attrs["inputPattSize"] == 4 and f.attrs["numTimesteps"] == 8
        np.testing.assert_array_equal(f["inputs"][()], np.concatenate([x[0, :3, :2].reshape(6, 4),
                                                                       x[1, :2, :1].reshape(2, 4)]))
        assert f["seqLengths"][()].tolist() == [[6, 2], [2, 2]]
        assert f["targets/data/sizes"][()].tolist() == [3, 2, 2, 1]


def test_one_time_axis_unchanged(tmp_path):
    x = np.random.RandomState(3).normal(size=(2, 3, 3)).astype("float32")
    with _write(tmp_path / "y.hdf", 3, 2, x, {0: [3, 2]}) as f:
        assert "targets" not in f
        assert f["seqLengths"][()].tolist() == [[3, 0], [2, 0]]


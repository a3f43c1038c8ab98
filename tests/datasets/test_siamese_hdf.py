"""SiameseHDFDataset: the "streams" HDF layout, per-epoch triplets (positive of the anchor's class, negative of
another), the data keys and bookkeeping as observed from the reference."""

import h5py
import numpy as np
import pytest

from returnn.datasets import init_dataset
from returnn.datasets.hdf import SiameseHDFDataset
from returnn.errors import DatasetArgError


def _write(path, file_idx, classes, feat_dim=2):
    names = [f"f{file_idx}_s{i}" for i in range(len(classes))]
    with h5py.File(path, "w") as f:
        for stream, parser in [("features", "feature_sequence"), ("classes", "sparse")]:
            f.create_group(f"streams/{stream}/data")
            f["streams"][stream].attrs["parser"] = parser
        for i, (name, c) in enumerate(zip(names, classes)):
            f["streams/features/data"].create_dataset(name, data=np.full((i + 1, feat_dim), file_idx * 100 + i,
                                                                         "float32"))
            f["streams/classes/data"].create_dataset(name, shape=(1,), data=np.int32(c), dtype="int32")
        f["streams/classes"].create_dataset("feature_names", data=["a", "b", "c"], dtype=h5py.string_dtype())
        f.create_dataset("seq_names", data=names, dtype=h5py.string_dtype())
    return str(path), names


def test_triplets_and_data(tmp_path):
    fn1, names1 = _write(tmp_path / "1.hdf", 1, [0, 1, 2, 0, 1, 2])
    fn2, names2 = _write(tmp_path / "2.hdf", 2, [0, 1, 2, 0, 1, 2])
    ds = init_dataset({"class": "SiameseHDFDataset", "input_stream_name": "features", "seq_label_stream": "classes",
                       "files": [fn1, fn2]})
    assert isinstance(ds, SiameseHDFDataset)
    assert ds.all_seq_names == names1 + names2 and ds.seq_name_to_idx[names2[0]] == 6
    assert ds.seq_to_target[names1[4]] == 1
    assert ds.get_data_keys() == ["classes_0", "classes_1", "classes_2", "classes_all", "data", "features_0",
                                  "features_1", "features_2"]
    for epoch in range(1, 6):
        ds.init_seq_order(epoch=epoch)
        assert [t[0] for t in ds.curr_epoch_triplets] == list(range(12))
        for anchor, pos, neg in ds.curr_epoch_triplets:
            assert pos != anchor
            assert ds.seq_to_target[ds.all_seq_names[pos]] == ds.seq_to_target[ds.all_seq_names[anchor]]
            assert ds.seq_to_target[ds.all_seq_names[neg]] != ds.seq_to_target[ds.all_seq_names[anchor]]
    ds.init_seq_order(epoch=1)
    ds.load_seqs(0, 2)
    anchor, pos, neg = ds.curr_epoch_triplets[1]
    assert ds.get_tag(1) == names1[1]
    assert ds.get_data(1, "features_0").tolist() == [[101.0, 101.0]] * 2
    np.testing.assert_array_equal(ds.get_data(1, "data"), ds.get_data(1, "features_0"))
    assert ds.get_data(1, "features_1").shape == ((pos % 6) + 1, 2)
    assert ds.get_data(1, "classes_all").tolist() == [1, 1, ds.seq_to_target[ds.all_seq_names[neg]]]
    assert ds.get_data(1, "classes_2").dtype == np.int32 and ds.get_data_dim("classes_0") == 3


def test_same_seed_same_triplets(tmp_path):
    fn, _ = _write(tmp_path / "1.hdf", 1, [0, 1, 0, 1, 2])
    triplets = []
    for _ in range(2):
        ds = SiameseHDFDataset(input_stream_name="features", seq_label_stream="classes", files=[fn])
        ds.init_seq_order(epoch=3)
        triplets.append(ds.curr_epoch_triplets)
    assert triplets[0] == triplets[1]
    assert ds.curr_epoch_triplets[4][1] == 4  # the only sequence of class 2 is its own positive


def test_errors(tmp_path):
    fn, _ = _write(tmp_path / "1.hdf", 1, [0, 0, 0])
    with pytest.raises(DatasetArgError, match="two classes"):
        SiameseHDFDataset(input_stream_name="features", seq_label_stream="classes", files=[fn])
    with pytest.raises(DatasetArgError, match="class_distribution"):
        SiameseHDFDataset(input_stream_name="features", seq_label_stream="classes", files=[fn],
                          class_distribution=[0.5, 0.5])

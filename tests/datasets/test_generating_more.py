"""DummyDatasetMultipleDataKeys, DummyGenericDataset, the algorithmic task datasets and the corpus datasets that
need data that is not shipped: keys, dims, dtypes, structure (observed with the reference) and errors."""

import zipfile

import numpy as np
import pytest

from returnn.datasets import init_dataset
from returnn.errors import DataFileError, DatasetArgError


def _first(spec, n=2):
    ds = init_dataset(spec)
    ds.init_seq_order(epoch=1)
    ds.load_seqs(0, n)
    return ds


def test_dummy_dataset_multiple_data_keys():
    ds = _first({"class": "DummyDatasetMultipleDataKeys", "output_dim": {"data": (3, 2), "classes": (4, 1)},
                 "num_seqs": 4})
    # observed from the reference: default seq_len 20, float64 / int64 arrays
    data, classes = ds.get_data(1, "data"), ds.get_data(1, "classes")
    assert data.shape == (20, 3) and data.dtype == np.float64 and classes.dtype == np.int64
    np.testing.assert_allclose(data.ravel()[:4], [-0.4, -0.3, -0.2, -0.1])
    assert classes.tolist()[:6] == [1, 2, 3, 0, 1, 2] and ds.get_tag(1) == "seq-1" and ds.num_seqs == 4
    assert ds.get_data_keys() == ["data", "classes"] and ds.get_data_dtype("data") == "float32"
    ds = _first({"class": "DummyDatasetMultipleDataKeys", "output_dim": {"data": (3, 2), "classes": (4, 1),
                                                                         "extra": (5, 2)},
                 "num_seqs": 4, "seq_len": {"data": 3, "classes": 2, "extra": 4},
                 "data_keys": ["data", "classes", "extra"]})
    assert [ds.get_data(0, k).shape for k in ("data", "classes", "extra")] == [(3, 3), (2,), (4, 5)]
    with pytest.raises(DatasetArgError, match="must match the keys in data_keys"):
        init_dataset({"class": "DummyDatasetMultipleDataKeys", "output_dim": {"data": (3, 2), "classes": (4, 1)},
                      "num_seqs": 4, "data_keys": ["data"]})


def test_dummy_generic_dataset():
    spec = {"class": "DummyGenericDataset", "num_seqs": 4,
            "data_template": {"data": {"dim": 3, "shape": (None, 3)},
                              "classes": {"dim": 4, "sparse": True, "shape": (None,)}}}
    ds = _first(dict(spec, seq_lens=(2, 4)), n=4)
    assert ds.num_outputs == {"data": (3, 2), "classes": (4, 1)} and ds.get_data_keys() == ["data", "classes"]
    for i in range(4):
        data, classes = ds.get_data(i, "data"), ds.get_data(i, "classes")
        assert data.dtype == np.float32 and data.shape[1] == 3 and 2 <= data.shape[0] <= 4
        assert classes.dtype == np.int32 and 2 <= len(classes) <= 4 and classes.max() < 4
    ds = _first(dict(spec, seq_lens=7))
    assert ds.get_data(0, "data").shape == (7, 3) and ds.get_data(1, "classes").shape == (7,)


def test_task_datasets_structure():
    ds = _first({"class": "TaskEpisodicCopyDataset", "num_seqs": 5}, n=5)
    assert ds.num_outputs == {"data": (10, 2), "classes": (10, 1)} and ds.num_inputs == 10
    for i in range(5):
        x, y = ds.get_data(i, "data").argmax(-1).tolist(), ds.get_data(i, "classes").tolist()
        n = next(j for j, s in enumerate(x) if s < 2)  # pattern of digits (2..9) first
        assert x[-(n + 2):] == [1] * (n + 2) and y[-(n + 1):] == x[:n] + [1] and set(y[:-(n + 1)]) == {0}
    ds = _first({"class": "TaskXmlModelingDataset", "num_seqs": 3}, n=3)
    assert ds.num_outputs == {"data": (12, 2), "classes": (12, 1)}
    for i in range(3):
        x, y = ds.get_data(i, "data").argmax(-1).tolist(), ds.get_data(i, "classes").tolist()
        assert x[0] == 0 and y[0] == 1 and y[-1] == 1 and x[-1] == 2 and len(x) == len(y)
        depth = 0
        for t, s in enumerate(x):
            if s == 1:
                depth += -1 if x[t + 1] == 3 else 1
            if x[t - 1] == 3 and t > 0:  # after "</": the target is the name being closed
                assert y[t - 1] == s
        assert depth == 0
    ds = _first({"class": "TaskVariableAssignmentDataset", "num_seqs": 3}, n=3)
    assert ds.num_outputs == {"data": (18, 2), "classes": (18, 1)}
    x, y = ds.get_data(0, "data").argmax(-1).tolist(), ds.get_data(0, "classes").tolist()
    assert y[-1] == 2 and 3 in x


def test_corpus_datasets_without_data(tmp_path):
    with pytest.raises(DataFileError, match="enwik8.zip is not there"):
        init_dataset({"class": "Enwik8Corpus", "path": str(tmp_path), "subset": "training", "seq_len": 10})
    with pytest.raises(DataFileError, match="'timit_dir'"):
        init_dataset({"class": "TimitDataset", "timit_dir": str(tmp_path / "timit")})
    with pytest.raises(DataFileError, match="'nltk_download_dir'"):
        init_dataset({"class": "NltkTimitDataset", "nltk_download_dir": str(tmp_path)})
    with zipfile.ZipFile(tmp_path / "enwik8.zip", "w") as zf:
        zf.writestr("enwik8", bytes(range(256)) * 4)
    ds = _first({"class": "Enwik8Corpus", "path": str(tmp_path), "subset": "training", "seq_len": 100})
    assert ds.num_seqs == 10 and ds.get_tag(1) == "training-1"
    assert ds.get_data(1, "data")[:3].tolist() == [100, 101, 102] and ds.get_data(1, "classes")[0] == 101


def test_timit_label_map():
    # values observed on the reference
    from returnn.datasets.generating import TimitDataset
    m = TimitDataset.get_label_map()
    assert len(m) == 61 and m[46] is None
    assert [m[i] for i in (4, 8, 11, 18, 41, 55, 60)] == [1, 12, 0, 21, 23, 34, 30]
    assert TimitDataset.get_label_map(61, 48)[8] == 18 and TimitDataset.get_label_map(48, 39)[18] == 12
    assert TimitDataset.get_label_map(39, 39) == {i: i for i in range(39)}
    with pytest.raises(DatasetArgError):
        TimitDataset.get_label_map(39, 61)

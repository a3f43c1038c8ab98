"""HuggingFaceDataset against the reference's outputs on the same saved HuggingFace dataset."""

import pytest

from returnn.datasets import init_dataset
from returnn.errors import DatasetArgError

datasets = pytest.importorskip("datasets")  # the optional third-party package this dataset wraps
if getattr(datasets, "__file__", None) is None:
    # Without the HuggingFace package, "import datasets" finds this test folder as a namespace package.
    pytest.skip("the HuggingFace 'datasets' package is not installed", allow_module_level=True)


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("hf") / "ds")
    features = datasets.Features({"id": datasets.Value("string"), "label": datasets.ClassLabel(names=["x", "y", "z"]),
                                  "tokens": datasets.Sequence(datasets.ClassLabel(names=["a", "b", "c", "d"])),
                                  "n": datasets.Value("int64"), "text": datasets.Value("string")})
    datasets.Dataset.from_dict({"id": ["a", "b", "c"], "label": [1, 0, 2], "tokens": [[0, 1, 2], [3], [1, 1]],
                                "n": [3, 1, 2], "text": ["hello world", "hi", "the cat sat"]},
                               features=features).save_to_disk(path)
    return path


def _seqs(ds):
    ds.init_seq_order(epoch=1)
    out = []
    for i in range(ds.num_seqs):
        ds.load_seqs(i, i + 1)
        out.append((ds.get_tag(i), {k: ds.get_data(i, k).tolist() for k in ds.get_data_keys()}))
    return out


def test_huggingface_dataset(saved):
    fmt = {"label": {"dim": 3, "shape": [], "dtype": "int64", "sparse": True},
           "tokens": {"dim": 4, "shape": [None], "dtype": "int64", "sparse": True}, "n": {"shape": [], "dtype": "int64"}}
    ds = init_dataset({"class": "HuggingFaceDataset", "dataset_opts": saved, "data_format": fmt})
    # observed from the reference
    assert ds.get_data_keys() == ["label", "tokens", "n"]
    assert ds.num_outputs == {"label": (3, 0), "tokens": (4, 1), "n": (1, 0)}
    assert [(ds.get_data_dtype(k), ds.is_data_sparse(k), ds.get_data_shape(k), ds.get_data_dim(k))
            for k in ds.get_data_keys()] == [("int64", True, [], 3), ("int64", True, [], 4), ("int64", False, [], None)]
    assert _seqs(ds) == [("a", {"label": 1, "tokens": [0, 1, 2], "n": 3}), ("b", {"label": 0, "tokens": [3], "n": 1}),
                         ("c", {"label": 2, "tokens": [1, 1], "n": 2})]
    assert ds.get_all_tags() == ["a", "b", "c"] and ds.get_data(0, "tokens").dtype.name == "int64"
    tokens = {"tokens": fmt["tokens"]}
    ds = init_dataset({"class": "HuggingFaceDataset", "dataset_opts": saved, "data_format": tokens,
                       "seq_ordering": "sorted_reverse", "sorting_seq_len_column_data": "tokens"})
    assert [t for t, _ in _seqs(ds)] == ["a", "c", "b"]
    ds = init_dataset({"class": "HuggingFaceDataset", "dataset_opts": saved, "data_format": tokens,
                       "seq_ordering": "sorted", "sorting_seq_len_column": "n"})
    assert [t for t, _ in _seqs(ds)] == ["b", "c", "a"]
    ds = init_dataset({"class": "HuggingFaceDataset", "dataset_opts": saved, "seq_tag_column": None,
                       "data_format": {"text": {"dtype": "string", "shape": []}}, "seq_ordering": "random",
                       "partition_epoch": 2})
    seqs = _seqs(ds)
    assert seqs == [("seq-0", {"text": "hello world"}), ("seq-2", {"text": "the cat sat"})]
    assert ds.get_data(0, "text").shape == ()
    with pytest.raises(DatasetArgError, match="int32 does not match the column's int64"):
        init_dataset({"class": "HuggingFaceDataset", "dataset_opts": saved,
                      "data_format": {"label": {"dim": 3, "shape": [], "dtype": "int32", "sparse": True}}})
    ds = init_dataset({"class": "HuggingFaceDataset", "dataset_opts": saved, "data_format": {"n": fmt["n"]},
                       "seq_ordering": "sorted"})
    with pytest.raises(DatasetArgError, match="sorting_seq_len_column"):
        ds.init_seq_order(epoch=1)
    ds = init_dataset({"class": "HuggingFaceDataset", "dataset_opts": saved, "data_format": {"n": fmt["n"]},
                       "map_func": lambda d: d.filter(lambda x: x["n"] > 1), "rename_columns": {"text": "orth"}})
    assert ds.get_all_tags() == ["a", "c"] and "orth" in ds.hf_dataset.column_names

"""Tests for init_dataset, the dataset registry and the Dataset base API."""

import numpy as np
import pytest

from returnn.datasets import Dataset, init_dataset
from returnn.datasets.basic import DatasetSeq, get_dataset_class
from returnn.datasets.generating import StaticDataset, Task12AXDataset
from returnn.errors import DatasetArgError, UnknownNameError


def _static(lens, **kwargs):
    data = [{"data": np.full((n, 2), i, dtype="float32"), "classes": np.arange(n, dtype="int32") % 3}
            for i, n in enumerate(lens)]
    return StaticDataset(data, output_dim={"data": (2, 2), "classes": (3, 1)}, **kwargs)


def test_init_dataset_dict():
    ds = init_dataset({"class": "Task12AXDataset", "num_seqs": 3})
    assert isinstance(ds, Task12AXDataset)
    assert ds.get_total_num_seqs() == 3


def test_init_dataset_instance_and_callable():
    ds = _static([2, 3])
    assert init_dataset(ds) is ds
    assert init_dataset(lambda: ds) is ds
    ds2 = init_dataset(lambda: {"class": "DummyDataset", "input_dim": 2, "output_dim": 3, "num_seqs": 4})
    assert ds2.get_total_num_seqs() == 4


def test_init_dataset_strings():
    ds = init_dataset("{'class': 'DummyDataset', 'input_dim': 2, 'output_dim': 3, 'num_seqs': 4}")
    assert ds.get_data_dim("data") == 2
    ds = init_dataset("DummyDataset:input_dim=5,output_dim=7,num_seqs=2,seq_len=3")
    ds.init_seq_order(epoch=1)
    assert ds.get_data(0, "data").shape == (3, 5)
    assert ds.get_data_dim("classes") == 7


def test_init_dataset_extra_and_default_kwargs():
    ds = init_dataset({"class": "DummyDataset", "input_dim": 2, "output_dim": 3, "num_seqs": 4},
                      extra_kwargs={"num_seqs": 6}, default_kwargs={"seq_len": 5, "num_seqs": 1})
    ds.init_seq_order(epoch=1)
    assert ds.num_seqs == 6 and ds.get_seq_length(0)["data"] == 5


def test_unknown_class_suggests_closest():
    with pytest.raises(UnknownNameError) as exc:
        init_dataset({"class": "Task12AXDatset", "num_seqs": 3})
    msg = str(exc.value)
    assert "Task12AXDatset" in msg and "did you mean: 'Task12AXDataset'" in msg
    assert "StaticDataset" in msg  # known classes listed


def test_unknown_kwarg_names_kwarg_and_class():
    with pytest.raises(DatasetArgError) as exc:
        init_dataset({"class": "Task12AXDataset", "num_seq": 3})
    msg = str(exc.value)
    assert "'num_seq'" in msg and "Task12AXDataset" in msg and "'num_seqs'" in msg


def test_missing_class():
    with pytest.raises(DatasetArgError, match="no 'class'"):
        init_dataset({"num_seqs": 3})


def test_get_dataset_class():
    assert get_dataset_class("StaticDataset") is StaticDataset
    assert issubclass(get_dataset_class("CopyTaskDataset"), Dataset)


def test_base_api():
    ds = _static([2, 3, 1])
    ds.init_seq_order(epoch=1)
    assert ds.num_seqs == 3
    assert ds.is_less_than_num_seqs(2) and not ds.is_less_than_num_seqs(3)
    assert ds.get_data_keys() == ["data", "classes"]
    assert ds.get_target_list() == ["classes"]
    assert ds.get_data_dim("classes") == 3 and ds.is_data_sparse("classes")
    assert ds.get_data_shape("classes") == [] and ds.get_data_shape("data") == [2]
    assert ds.get_data_dtype("classes") == "int32" and ds.get_data_dtype("data") == "float32"
    ds.load_seqs(0, 3)
    assert ds.get_tag(1) == "seq-1"
    assert ds.get_seq_length(1)["data"] == 3 and ds.get_seq_length(1)["classes"] == 3
    np.testing.assert_array_equal(ds.get_data(1, "classes"), [0, 1, 2])
    assert ds.get_all_tags() == ["seq-0", "seq-1", "seq-2"]
    assert ds.get_corpus_seq_idx(2) == 2
    with pytest.raises(KeyError, match="available"):
        ds.get_data(0, "nope")


def test_init_seq_order_seq_list():
    ds = _static([2, 3, 1, 4])
    ds.init_seq_order(epoch=1, seq_list=["seq-3", "seq-1"])
    assert ds.num_seqs == 2
    assert ds.get_tag(0) == "seq-3" and ds.get_seq_length(0)["data"] == 4


def test_seq_list_filter_file(tmp_path):
    path = tmp_path / "filter.txt"
    path.write_text("seq-0\nseq-2\n")
    ds = _static([2, 3, 1, 4], seq_list_filter_file=str(path))
    ds.init_seq_order(epoch=1)
    assert [ds.get_tag(i) for i in range(ds.num_seqs)] == ["seq-0", "seq-2"]


def test_dataset_seq():
    seq = DatasetSeq(3, np.zeros((4, 2)), targets={"classes": np.zeros(2, "int32")})
    assert seq.seq_tag == "seq-3"
    assert seq.num_frames["data"] == 4 and seq.num_frames["classes"] == 2


def test_static_dataset_data_is_the_given_sequences():
    data = [{"data": np.ones((3, 2), "float32"), "classes": np.array([0, 1, 2])},
            {"data": np.zeros((1, 2), "float32"), "classes": np.array([1])}]
    ds = StaticDataset(data)
    assert len(ds.data) == 2 and [len(d["data"]) for d in ds.data] == [3, 1]
    np.testing.assert_array_equal(ds.data[0]["classes"], [0, 1, 2])

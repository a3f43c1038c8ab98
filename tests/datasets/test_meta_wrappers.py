"""VariableDataset, MultiEpochDataset, AnythingDataset, ConcatSeqsDataset: what they yield against the reference's
outputs for the same sub datasets (observed with the reference)."""

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import speech_corpus  # noqa: E402

from returnn.datasets import init_dataset  # noqa: E402
from returnn.datasets.cached2 import OptionalNotImplementedError  # noqa: E402
from returnn.errors import DatasetArgError  # noqa: E402


def _static(n=6, **kwargs):
    return dict({"class": "StaticDataset",
                 "data": [{"data": np.full((i + 1, 2), i, "float32"), "classes": np.arange(i + 2, dtype="int32") % 5}
                          for i in range(n)],
                 "output_dim": {"data": (2, 2), "classes": (5, 1)}}, **kwargs)


def _iterate(ds):
    out, i = [], 0
    while ds.is_less_than_num_seqs(i):
        ds.load_seqs(i, i + 1)
        out.append(ds.get_tag(i))
        i += 1
    return out


def test_multi_epoch_dataset():
    ds = init_dataset({"class": "MultiEpochDataset", "dataset": _static(seq_ordering="random"), "multi_epoch": 2})
    ds.init_seq_order(epoch=1)
    with pytest.raises(NotImplementedError):
        ds.num_seqs  # unknown, as the reference
    assert ds.get_data_keys() == ["data", "classes"] and ds.get_total_num_seqs() == 6
    sub = init_dataset(_static(seq_ordering="random"))
    expected = []
    for sub_epoch in (3, 4):  # epoch 2 = sub-epochs 3 and 4
        sub.init_seq_order(epoch=sub_epoch)
        expected += [sub.get_tag(i) for i in range(6)]
    ds.init_seq_order(epoch=2)
    tags = _iterate(ds)
    assert tags == expected and len(tags) == 12
    assert ds.get_data(11, "classes").tolist() == sub.get_data(5, "classes").tolist()
    with pytest.raises(DatasetArgError, match="multi_epoch"):
        init_dataset({"class": "MultiEpochDataset", "dataset": _static(), "multi_epoch": 0})


def test_variable_dataset(tmp_path):
    path = str(tmp_path / "text20.zip")
    speech_corpus.write_text_zip(path)
    calls = []

    def get_dataset(*, epoch, **_):
        calls.append(epoch)
        return {"class": "OggZipDataset", "path": path, "audio": None, "targets": None,
                "fixed_random_subset": 1 + epoch // 2}

    ds = init_dataset({"class": "VariableDataset", "get_dataset": get_dataset})
    tags = []
    for ep in (1, 2, 3, 4, 5):
        ds.init_seq_order(epoch=ep)
        tags.append([ds.get_tag(i) for i in range(ds.num_seqs)])
    # observed from the reference
    assert tags == [["c/s00"], ["c/s00", "c/s17"], ["c/s00", "c/s17"], ["c/s00", "c/s17", "c/s15"],
                    ["c/s00", "c/s17", "c/s15"]]
    assert calls == [1, 1, 2, 3, 4, 5]
    assert ds.get_data_keys() == ["orth", "raw"]
    with pytest.raises(OptionalNotImplementedError, match="always_same_tags"):
        ds.get_all_tags()


def test_anything_dataset():
    ds = init_dataset({"class": "AnythingDataset",
                       "data_keys": {"data": {"dim": 3, "shape": (None, 3), "dtype": "float32"},
                                     "classes": {"dim": 4, "sparse": True, "shape": (None,), "dtype": "int32"}}})
    ds.init_seq_order(epoch=1)
    assert ds.is_less_than_num_seqs(10 ** 9)
    with pytest.raises(NotImplementedError):
        ds.num_seqs
    ds.load_seqs(0, 2)
    assert ds.get_data(0, "data").tolist() == [[0.0, 0.0, 0.0]] and ds.get_data(1, "classes").tolist() == [0]
    assert ds.get_tag(1) == "seq-1" and ds.num_outputs == {"data": (3, 2), "classes": (4, 1)}
    assert ds.get_data_dtype("classes") == "int32" and ds.is_data_sparse("classes")


def test_concat_seqs_dataset(tmp_path):
    seq_list = tmp_path / "list.txt"
    seq_list.write_text("seq-0;seq-1\nseq-2\nseq-3;seq-4;seq-5\n")
    seq_lens = tmp_path / "lens.txt"
    seq_lens.write_text(repr({"seq-%i" % i: i + 1 for i in range(6)}))
    classes_345 = [0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 0, 1, 2, 3, 4, 0, 1]
    expected = {  # observed from the reference: epoch 1 (tag, classes, data shape)
        (): [("seq-0;seq-1", [0, 1, 0, 1, 2], (3, 2)), ("seq-2", [0, 1, 2, 3], (3, 2)),
             ("seq-3;seq-4;seq-5", classes_345, (15, 2))],
        (("seq_ordering", "sorted_reverse"),): [("seq-3;seq-4;seq-5", classes_345, (15, 2)),
                                                ("seq-0;seq-1", [0, 1, 0, 1, 2], (3, 2)),
                                                ("seq-2", [0, 1, 2, 3], (3, 2))],
        (("partition_epoch", 2),): [("seq-0;seq-1", [0, 1, 0, 1, 2], (3, 2)), ("seq-2", [0, 1, 2, 3], (3, 2))],
    }
    for opts, seqs in expected.items():
        ds = init_dataset(dict({"class": "ConcatSeqsDataset", "dataset": _static(), "seq_list_file": str(seq_list),
                                "seq_len_file": str(seq_lens)}, **dict(opts)))
        ds.init_seq_order(epoch=1)
        ds.load_seqs(0, ds.num_seqs)
        got = [(ds.get_tag(i), ds.get_data(i, "classes").tolist(), ds.get_data(i, "data").shape)
               for i in range(ds.num_seqs)]
        assert got == seqs, opts
    ds.init_seq_order(epoch=2)
    assert [ds.get_tag(i) for i in range(ds.num_seqs)] == ["seq-3;seq-4;seq-5"]
    ds = init_dataset({"class": "ConcatSeqsDataset", "dataset": _static(), "seq_list_file": str(seq_list),
                       "seq_len_file": str(seq_lens), "remove_in_between_postfix": {"classes": 1},
                       "repeat_in_between_last_frame_up_to_multiple_of": {"data": 2}})
    ds.init_seq_order(epoch=1)
    assert ds.get_data(0, "classes").tolist() == [0, 0, 1, 2]  # seq-0's trailing 1 removed
    assert ds.get_data(0, "data")[:, 0].tolist() == [0, 0, 1, 1]  # seq-0 padded to 2 frames

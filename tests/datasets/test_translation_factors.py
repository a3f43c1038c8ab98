"""TranslationFactorsDataset against the reference's output on the same factored corpus."""

import pickle

import pytest

from returnn.datasets import init_dataset
from returnn.errors import DataFileError


@pytest.fixture
def corpus(tmp_path):
    (tmp_path / "source.train").write_text("a|X b|Y\nb|X\n")
    (tmp_path / "target.train").write_text("c|P d|Q\nd|P c|P\n")
    for name, vocab in [("source", {"a": 0, "b": 1, "<unk>": 2, "</S>": 3}), ("target", {"c": 0, "d": 1, "</S>": 2}),
                        ("source_f1", {"X": 0, "Y": 1, "</S>": 2}), ("target_f1", {"P": 0, "Q": 1, "</S>": 2})]:
        with open(tmp_path / f"{name}.vocab.pkl", "wb") as f:
            pickle.dump(vocab, f)
    return tmp_path


def test_translation_factors(corpus):
    ds = init_dataset({"class": "TranslationFactorsDataset", "path": str(corpus), "file_postfix": "train",
                       "source_factors": ["source_f1"], "target_factors": ["target_f1"]})
    ds.init_seq_order(epoch=1)
    # observed from the reference
    assert ds.get_data_keys() == ["classes", "data", "source_f1", "target_f1"]
    assert ds.num_outputs == {"data": [4, 1], "classes": [3, 1], "source_f1": [3, 1], "target_f1": [3, 1]}
    got = [(ds.get_tag(i), {k: ds.get_data(i, k).tolist() for k in ds.get_data_keys()}) for i in range(2)]
    assert got == [("line-0", {"classes": [0, 1], "data": [0, 1], "source_f1": [0, 1], "target_f1": [0, 1]}),
                   ("line-1", {"classes": [1, 0], "data": [1], "source_f1": [0], "target_f1": [0, 0]})]
    assert ds.labels["source_f1"] == ["X", "Y", "</S>"]
    ds = init_dataset({"class": "TranslationFactorsDataset", "path": str(corpus), "file_postfix": "train",
                       "source_factors": ["source_f1"], "target_factors": ["target_f1"],
                       "source_postfix": " </S>", "target_postfix": " </S>"})
    ds.init_seq_order(epoch=1)
    assert ds.get_data(0, "data").tolist() == [0, 1, 3] and ds.get_data(0, "target_f1").tolist() == [0, 1, 2]
    with pytest.raises(DataFileError, match=r"target\.train.*line 1.*'c\|P'"):
        init_dataset({"class": "TranslationFactorsDataset", "path": str(corpus), "file_postfix": "train",
                      "source_factors": ["source_f1"]})

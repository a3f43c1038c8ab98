"""Tests for LmDataset and TranslationDataset on small real text files."""

import gzip
import pickle

import numpy as np
import pytest

from returnn.datasets import init_dataset
from returnn.errors import DataFileError

SYMBOLS = ["a", "b", "c", "d", "e", "h", "l", "o", "r", "w", "t", " ", "[END]", "[UNKNOWN]", "[START]"]


@pytest.fixture
def files(tmp_path):
    (tmp_path / "corpus.txt").write_text("hello world\nab\n\nthe cat\n")
    with gzip.open(tmp_path / "corpus.txt.gz", "wt") as f:
        f.write("hello world\nab\n\nthe cat\n")
    (tmp_path / "symbols.txt").write_text("\n".join(SYMBOLS) + "\n")
    (tmp_path / "words.txt").write_text("[START] 0\n[END] 1\n[UNKNOWN] 2\nhello 3\nworld 4\nthe 5\n")
    return tmp_path


def _all(ds):
    ds.init_seq_order(epoch=1)
    return [(ds.get_tag(i), {k: ds.get_data(i, k).tolist() for k in ds.get_data_keys()}) for i in range(ds.num_seqs)]


def test_char_lm(files):
    # Observed on the reference with the same files.
    ds = init_dataset({"class": "LmDataset", "corpus_file": str(files / "corpus.txt"),
                       "orth_symbols_file": str(files / "symbols.txt")})
    assert ds.num_outputs == {"data": (15, 1)} and ds.labels["data"][:3] == ["a", "b", "c"]
    assert _all(ds) == [("line-0", {"data": [5, 4, 6, 6, 7, 11, 9, 7, 8, 6, 3, 12]}),
                        ("line-1", {"data": [0, 1, 12]}),
                        ("line-2", {"data": [10, 5, 4, 11, 2, 0, 10, 12]})]
    assert ds.is_data_sparse("data") and ds.get_data_dtype("data") == "int32"


def test_gzip_and_delayed(files):
    ds = init_dataset({"class": "LmDataset", "corpus_file": str(files / "corpus.txt.gz"),
                       "orth_symbols_file": str(files / "symbols.txt"), "add_delayed_seq_data": True})
    seqs = _all(ds)
    assert seqs[1] == ("line-1", {"data": [0, 1, 12], "delayed": [14, 0, 1]})


def test_keep_empty_lines(files):
    ds = init_dataset({"class": "LmDataset", "corpus_file": str(files / "corpus.txt"),
                       "orth_symbols_file": str(files / "symbols.txt"), "skip_empty_lines": False})
    assert _all(ds)[2] == ("line-2", {"data": [12]})


def test_word_lm_unknown(files):
    kwargs = {"class": "LmDataset", "corpus_file": str(files / "corpus.txt"),
              "orth_symbols_map_file": str(files / "words.txt"), "word_based": True}
    ds = init_dataset(kwargs)  # the corpus is read lazily (as the reference), at the first epoch
    with pytest.raises(DataFileError, match="'ab'"):
        ds.init_seq_order(epoch=1)
    ds = init_dataset(dict(kwargs, auto_replace_unknown_symbol=True))
    assert [s[1]["data"] for s in _all(ds)] == [[3, 4, 1], [2, 1], [5, 2, 1]]
    ds = init_dataset(dict(kwargs, auto_replace_unknown_symbol=True, seq_end_symbol=None, add_delayed_seq_data=True))
    assert _all(ds)[2][1] == {"data": [5, 2], "delayed": [0, 5]}
    ds = init_dataset(dict(kwargs, error_on_invalid_seq=False))
    assert ds.get_total_num_seqs() == 1


def test_missing_corpus(files):
    with pytest.raises(DataFileError, match="does not exist"):
        init_dataset({"class": "LmDataset", "corpus_file": str(files / "nope.txt"),
                      "orth_symbols_file": str(files / "symbols.txt")})


def test_translation(tmp_path):
    (tmp_path / "source.train").write_text("hello world\nfoo\n")
    (tmp_path / "target.train").write_text("hallo welt\nbar baz\n")
    pickle.dump({"hello": 0, "world": 1, "</S>": 2, "<UNK>": 3}, open(tmp_path / "source.vocab.pkl", "wb"))
    pickle.dump({"hallo": 0, "welt": 1, "</S>": 2, "<UNK>": 3, "bar": 4}, open(tmp_path / "target.vocab.pkl", "wb"))
    ds = init_dataset({"class": "TranslationDataset", "path": str(tmp_path), "file_postfix": "train",
                       "source_postfix": " </S>", "target_postfix": " </S>", "unknown_label": "<UNK>"})
    # Observed on the reference with the same files.
    assert _all(ds) == [("line-0", {"data": [0, 1, 2], "classes": [0, 1, 2]}),
                        ("line-1", {"data": [3, 2], "classes": [4, 3, 2]})]
    assert ds.num_outputs == {"data": (4, 1), "classes": (5, 1)}
    assert ds.labels["classes"][4] == "bar"
    with pytest.raises(DataFileError, match="'foo'"):
        init_dataset({"class": "TranslationDataset", "path": str(tmp_path), "file_postfix": "train"})
    assert np.array_equal(ds.get_data(0, "data"), [0, 1, 2])
    # a dict names the unknown label per side (observed on the reference: {"classes": "<UNK>"} maps unknown
    # target words, an unknown source word still raises)
    base = {"class": "TranslationDataset", "path": str(tmp_path), "file_postfix": "train"}
    (tmp_path / "source.train").write_text("hello world\nhello\n")
    ds = init_dataset(dict(base, unknown_label={"classes": "<UNK>"}))
    assert [s[1] for s in _all(ds)] == [{"data": [0, 1], "classes": [0, 1]}, {"data": [0], "classes": [4, 3]}]
    (tmp_path / "source.train").write_text("hello world\nfoo\n")
    with pytest.raises(DataFileError, match="'foo'"):
        init_dataset(dict(base, unknown_label={"classes": "<UNK>"}))
    assert [s[1]["data"] for s in _all(init_dataset(dict(base, unknown_label={"data": "<UNK>", "classes": "<UNK>"})))
            ] == [[0, 1], [3]]


def test_orth_vocab_and_lazy_loading(tmp_path):
    import pickle
    corpus = tmp_path / "c.txt"
    corpus.write_text("Hello world\nNext line\nShorty\n")
    vocab = tmp_path / "v.syms"
    vocab.write_text(repr({"[END]": 0, "Hello": 1, "world": 2, "Next": 3, "line": 4, "Shorty": 5}) + "\n")
    ds = init_dataset({"class": "LmDataset", "corpus_file": str(corpus),
                       "orth_vocab": {"vocab_file": str(vocab), "unknown_label": None}})
    assert ds._orths_offsets_and_lens is None  # not read yet (as the reference)
    ds = pickle.loads(pickle.dumps(ds))
    assert ds._orths_offsets_and_lens is None
    # a vocabulary splits the line; no seq_end_symbol is appended (observed on the reference)
    assert [s[1]["data"] for s in _all(ds)] == [[1, 2], [3, 4], [5]]
    ds = init_dataset({"class": "LmDataset", "corpus_file": str(corpus), "orth_vocab": {"class": "Utf8ByteTargets"},
                       "seq_ordering": "sorted"})
    ds.init_seq_order(epoch=1)
    ds.load_seqs(0, 3)
    assert bytes(ds.get_data(0, "data").tolist()) == b"Shorty" and bytes(ds.get_data(2, "data").tolist()) == \
        b"Hello world"

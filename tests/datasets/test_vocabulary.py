"""Tests for returnn.datasets.util.vocabulary (Vocabulary, BytePairEncoding, CharacterTargets, Utf8ByteTargets).
Every expected value was observed from the reference on the same files and calls."""

import gzip
import pickle

import numpy
import pytest

from returnn.datasets.util.vocabulary import Vocabulary as VocabularyNewPath
from returnn.errors import DataFileError, DatasetArgError, UnknownNameError

Q_VOCAB = "{'<s>': 0, '</s>': 0, 'a': 1, 'b@@': 2, 'c': 3, 'UNK': 4, '<pad>': 5}"
Q_LABELS = ["<s>", "a", "b@@", "c", "UNK", "<pad>"]


@pytest.fixture(autouse=True)
def _fresh_cache():
    VocabularyNewPath._cache.clear()
    yield
    VocabularyNewPath._cache.clear()


@pytest.fixture
def q_vocab(tmp_path):
    path = tmp_path / "q.voc"
    path.write_text(Q_VOCAB)
    return str(path)


def test_public_paths():
    from GeneratingDataset import Vocabulary
    from returnn.datasets.generating import BytePairEncoding, CharacterTargets

    assert Vocabulary is VocabularyNewPath
    assert issubclass(BytePairEncoding, Vocabulary) and issubclass(CharacterTargets, Vocabulary)


def test_vocab_file_formats(tmp_path):
    from returnn.datasets.generating import Vocabulary

    mapping = {"<s>": 0, "</s>": 0, "<unk>": 1, "a": 2, "b@@": 3, "c": 4}
    (tmp_path / "v.dict").write_text(repr(mapping))
    (tmp_path / "v.dict.gz").write_bytes(gzip.compress(repr(mapping).encode("utf8")))
    (tmp_path / "v.pkl").write_bytes(pickle.dumps(mapping))
    (tmp_path / "v.txt").write_text("<s>\n<unk>\na\nb@@\nc\n")
    (tmp_path / "v_dict_named.txt").write_text(repr(mapping))  # content decides, not the name
    for name in ("v.dict", "v.dict.gz", "v.pkl", "v.txt", "v_dict_named.txt"):
        vocab = Vocabulary(str(tmp_path / name), unknown_label="<unk>")
        assert vocab.labels == ["<s>", "<unk>", "a", "b@@", "c"], name
        assert vocab.num_labels == 5 and vocab.unknown_label_id == 1
        assert vocab.get_seq("a b@@ c x") == [2, 3, 4, 1]
        assert vocab.get_seq_labels([2, 3, 4, 1]) == "a b@@ c <unk>"


@pytest.mark.parametrize("content, vocab, labels", [
    ("a\r\nUNK\r\n", {"a": 0, "UNK": 1}, ["a", "UNK"]),
    ("a\nUNK\n\n", {"a": 0, "UNK": 1, "": 2}, ["a", "UNK", ""]),
    ("a b\n\nUNK\n c \n", {"a b": 0, "": 1, "UNK": 2, " c ": 3}, ["a b", "", "UNK", " c "]),
    ("a\nUNK\na\n", {"a": 2, "UNK": 1}, ["a", "UNK", "a"]),
    ("a\n{\nUNK\n", {"a": 0, "{": 1, "UNK": 2}, ["a", "{", "UNK"]),
    ("{'b': 0, 'a': 0, 'UNK': 1}", {"b": 0, "a": 0, "UNK": 1}, ["b", "UNK"]),
    ("{'a': 0, 'b': 0, 'UNK': 1}", {"a": 0, "b": 0, "UNK": 1}, ["b", "UNK"]),
    ("{'a': 1, 'b': 0, 'UNK': 2, 'c': 1}", {"a": 1, "b": 0, "UNK": 2, "c": 1}, ["b", "c", "UNK"]),
])
def test_vocab_parsing(tmp_path, content, vocab, labels):
    path = tmp_path / "x.voc"
    path.write_bytes(content.encode("utf8"))
    v = VocabularyNewPath(str(path))
    assert v._vocab == vocab and v.labels == labels and v.num_labels == len(labels)


@pytest.mark.parametrize("content, match", [
    ("{'a': 0, 'UNK': 1, 'q': 5}", r"indices must be 0..2 .* got min 0, max 5; unused indices: \[2, 3, 4\]"),
    ("{'a': 1, 'UNK': 2}", r"got min 1, max 2; unused indices: \[0\]"),
    ("{'a': 0, 'UNK': 1, 3: 2}", r"label \(str\) -> index \(int\), got 3: 2"),
    ("{'a': 0, 'UNK'", r"not a Python dict literal"),
])
def test_vocab_file_errors(tmp_path, content, match):
    path = tmp_path / "bad.voc"
    path.write_text(content)
    with pytest.raises(DataFileError, match=match):
        VocabularyNewPath(str(path))


def test_vocab_missing_file_and_args(tmp_path, q_vocab):
    with pytest.raises(FileNotFoundError, match="vocab file does not exist"):
        VocabularyNewPath(str(tmp_path / "missing.voc"))
    with pytest.raises(DatasetArgError, match="needs vocab_file .* or labels"):
        VocabularyNewPath(None)
    with pytest.raises(DatasetArgError, match="num_labels=5 given, but the vocabulary has 6 labels"):
        VocabularyNewPath(q_vocab, num_labels=5)
    with pytest.raises(DatasetArgError, match="unknown_label='<unk>' is not a label"):
        VocabularyNewPath(q_vocab, unknown_label="<unk>")
    (tmp_path / "list.pkl").write_bytes(pickle.dumps(["a", "UNK"]))
    with pytest.raises(DataFileError, match="a pickled vocab must be a dict"):
        VocabularyNewPath(str(tmp_path / "list.pkl"))


def test_vocab_api(q_vocab):
    v = VocabularyNewPath(q_vocab, seq_postfix=[0])
    assert v.labels == Q_LABELS and v.unknown_label == "UNK" and v.unknown_label_id == 4
    assert v.get_seq("a  b@@ c\tzz\n") == [1, 2, 3, 4, 0] and v.get_seq("") == [0]
    assert v.get_seq_labels([1, 2, 3, 0]) == "a b@@ c <s>"
    assert v.get_seq_labels(numpy.array([1, 2], dtype="int32")) == "a b@@"
    assert v.get_seq_indices(["a", "zz"]) == [1, 4]
    assert v.serialize_labels(numpy.array([1, 2, 3])) == "a b@@ c"
    assert v.label_to_id("a") == 1 and v.label_to_id("zz", default=None) is None
    assert v.id_to_label(2) == "b@@" and v.id_to_label(99, default=None) is None
    assert (v.is_id_valid(5), v.is_id_valid(6), v.is_id_valid(-1)) == (True, False, False)
    assert v.to_id("a") == 1 and v.to_id(3) == 3 and v.to_id(None, allow_none=True) is None
    with pytest.raises(KeyError, match="zz"):
        v.label_to_id("zz")
    with pytest.raises(KeyError, match="idx 99 out of range"):
        v.id_to_label(99)
    with pytest.raises(KeyError, match="invalid label id 99"):
        v.to_id(99)
    with pytest.raises(TypeError, match="invalid label type"):
        v.to_id(None)
    with pytest.raises(IndexError):
        v.get_seq_labels([99])
    assert repr(v) == f"Vocabulary({q_vocab!r}, num_labels=6, unknown_label='UNK')"
    no_unk = VocabularyNewPath(q_vocab, unknown_label=None)
    with pytest.raises(KeyError, match="zz"):
        no_unk.get_seq("a zz")


def test_vocab_special_labels(tmp_path, q_vocab):
    v = VocabularyNewPath(q_vocab, bos_label="<s>", eos_label="</s>", pad_label="<pad>", unknown_label=4,
                          control_symbols={"bos": "<s>"}, user_defined_symbols={"pad": "<pad>"})
    assert (v.unknown_label, v.unknown_label_id, v.bos_label_id, v.eos_label_id, v.pad_label_id) == ("UNK", 4, 0, 0, 5)
    assert v.control_symbol_ids == {"bos": 0} and v.user_defined_symbol_ids == {"pad": 5}
    assert repr(v) == (f"Vocabulary({q_vocab!r}, num_labels=6, unknown_label='UNK', bos_label='<s>', "
                       f"eos_label='<s>', pad_label='<pad>')")
    (tmp_path / "spec.json").write_text('{"bos_label": "<s>", "unknown_label": "UNK"}')
    v = VocabularyNewPath(q_vocab, special_symbols_via_file=str(tmp_path / "spec.json"))
    assert v.bos_label_id == 0 and v.unknown_label_id == 4
    (tmp_path / "spec2.json").write_text('{"unk_token": "UNK"}')
    with pytest.raises(DataFileError, match="expected a dict with keys among unknown_label"):
        VocabularyNewPath(q_vocab, special_symbols_via_file=str(tmp_path / "spec2.json"))


def test_single_whitespace_split(tmp_path):
    path = tmp_path / "sp.voc"
    path.write_text("a b\na\nb\nUNK\n")
    v = VocabularyNewPath(str(path), single_whitespace_split=True)
    assert v.get_seq("a b a  b") == [0, 1, 2]
    assert VocabularyNewPath(str(path)).get_seq("a b a  b") == [1, 2, 1, 2]


def test_labels_argument_and_cache(q_vocab):
    v = VocabularyNewPath(None, labels=lambda: ["x", "y", "UNK"])
    assert v.labels == ["x", "y", "UNK"] and v.unknown_label_id == 2 and v.vocab_file is None
    assert repr(v) == "Vocabulary(None, num_labels=3, unknown_label='UNK')"
    v = VocabularyNewPath(None, labels=["x", "y", "x", "UNK"])
    assert v._vocab == {"x": 2, "y": 1, "UNK": 3} and v.num_labels == 4
    assert VocabularyNewPath(q_vocab, labels=["x", "UNK"]).labels == ["x", "UNK"]  # labels win over the file
    a, b = VocabularyNewPath(q_vocab), VocabularyNewPath(q_vocab, seq_postfix=[0])
    assert a._vocab is b._vocab and a.labels is b.labels and list(VocabularyNewPath._cache) == [q_vocab]


def test_create_vocab(tmp_path, q_vocab):
    from returnn.datasets.generating import BytePairEncoding, CharacterTargets, Vocabulary

    assert type(Vocabulary.create_vocab(vocab_file=q_vocab)) is Vocabulary
    assert type(Vocabulary.create_vocab(vocab_file=q_vocab, **{"class": "Vocabulary"})) is Vocabulary
    (tmp_path / "codes").write_text("#version: 0.2\nt h\n")
    bpe = Vocabulary.create_vocab(vocab_file=q_vocab, bpe_file=str(tmp_path / "codes"))
    assert type(bpe) is BytePairEncoding
    assert repr(bpe) == f"BytePairEncoding({q_vocab!r}, num_labels=6, unknown_label='UNK')"
    with pytest.raises(TypeError, match="bpe_file"):
        Vocabulary.create_vocab(vocab_file=q_vocab, bpe_file="x", **{"class": "Vocabulary"})
    with pytest.raises(TypeError, match="foo"):
        Vocabulary.create_vocab(vocab_file=q_vocab, foo=1)
    with pytest.raises(UnknownNameError, match="unknown vocabulary class 'CharacterTarget'") as info:
        Vocabulary.create_vocab(vocab_file=q_vocab, **{"class": "CharacterTarget"})
    assert "CharacterTargets" in info.value.suggestions
    assert Vocabulary.create_vocab_dict_from_labels(["a", "b", "c"]) == {"a": 0, "b": 1, "c": 2}
    with pytest.raises(DatasetArgError, match=r"more than once: \['a'\]"):
        Vocabulary.create_vocab_dict_from_labels(["a", "b", "a"])
    v = Vocabulary.create_vocab_from_labels(["a", "b", "UNK"], seq_postfix=[1])
    assert type(v) is Vocabulary and v.unknown_label is None and v.seq_postfix == [1]
    v = Vocabulary.create_vocab_from_labels(["a", "b"], unknown_label="a")
    assert type(v) is CharacterTargets and v.unknown_label_id == 0
    assert repr(v) == "CharacterTargets(None, num_labels=2, unknown_label='a')"


def test_character_and_byte_targets(tmp_path):
    from returnn.datasets.util.vocabulary import CharacterTargets, Utf8ByteTargets

    path = tmp_path / "chars.voc"
    path.write_text('{"a": 0, "b": 1, "c": 2, " ": 3, "@": 4, "ä": 5}')
    c = CharacterTargets(str(path))
    assert c.unknown_label == "@" and c.unknown_label_id == 4
    assert c.get_seq("abz ä") == [0, 1, 4, 3, 5]
    assert c.get_seq_labels([0, 1, 3, 5]) == "ab ä" and c.serialize_labels(numpy.array([0, 1])) == "ab"
    with pytest.raises(KeyError, match="z"):
        CharacterTargets(None, labels=["x", "y"], unknown_label=None).get_seq("xz")
    u = Utf8ByteTargets()
    assert u.num_labels == 256 and u.labels[97] == "a" and u.unknown_label is None
    assert u.get_seq("aä") == [97, 195, 164] and u.get_seq_labels([97, 195, 164]) == "aä"
    assert repr(u) == "Utf8ByteTargets(None, num_labels=256)"


def test_sampling_bpe_deterministic_split(tmp_path):
    # observed on the reference with breadth_prob=0
    from returnn.datasets.util.vocabulary import SamplingBytePairEncoding, Vocabulary
    path = tmp_path / "units.vocab"
    path.write_text(repr({"<s>": 0, "<unk>": 1, "a": 2, "b": 3, "ab": 4, "a@@": 5, "b@@": 6, "ab@@": 7, "c": 8,
                          "c@@": 9, "abc": 10, "bc": 11}))
    v = Vocabulary.create_vocab(**{"class": "SamplingBytePairEncoding", "vocab_file": str(path), "breadth_prob": 0.0,
                                   "unknown_label": "<unk>"})
    assert isinstance(v, SamplingBytePairEncoding)
    labels = {s: [v.id_to_label(i) for i in v.get_seq(s)] for s in ["abcabc", "aab", "ccc", "xyz", "ab c"]}
    assert labels == {"abcabc": ["ab@@", "c@@", "abc"], "aab": ["a@@", "ab"], "ccc": ["c@@", "c@@", "c"],
                      "xyz": ["<unk>"], "ab c": ["ab", "c"]}
    path2 = tmp_path / "b.vocab"
    path2.write_text(repr({"<unk>": 0, "ab@@": 1, "a@@": 2, "bc": 3, "b": 4, "x": 5}))
    v = Vocabulary.create_vocab(**{"class": "SamplingBytePairEncoding", "vocab_file": str(path2), "breadth_prob": 0.0,
                                   "unknown_label": "<unk>"})
    assert [v.id_to_label(i) for i in v.get_seq("x abc axb")] == ["x", "a@@", "bc", "<unk>"]  # backtracking

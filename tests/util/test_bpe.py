"""Tests for returnn.util.bpe and BytePairEncoding: segmentations observed from the reference on the same codes
and vocab files."""

import pytest

from returnn.datasets.util.vocabulary import BytePairEncoding, Vocabulary
from returnn.errors import DataFileError
from returnn.util.bpe import StandardBytePairEncoder

CODES = "#version: 0.2\nt h\nth e</w>\na n\ne r\nh e\nl o\nlo w</w>\n"
VOCAB = ("{'<s>': 0, '</s>': 0, 'the': 1, 'th@@': 2, 'e@@': 3, 'a@@': 4, 'n': 5, 'an@@': 6, 'd': 7, 'low': 8, "
         "'l@@': 9, 'o@@': 10, 'w': 11, 'UNK': 12, 'h@@': 13, 'e': 14, 'er': 15, 'x': 16, 'lo@@': 17, 't@@': 18, "
         "'a': 19, 'h': 20, 'er@@': 21, 'o': 22, 'l': 23, 'lower': 24}")


@pytest.fixture(autouse=True)
def _fresh_cache():
    Vocabulary._cache.clear()
    yield
    Vocabulary._cache.clear()


@pytest.mark.parametrize("sentence, seq, labels", [
    ("the", [1], "the"), ("the and", [1, 6, 7], "the an@@ d"), ("lower", [17, 12, 3, 12], "lo@@ UNK e@@ UNK"),
    ("low", [8], "low"), ("xyz", [12, 12, 12], "UNK UNK UNK"), ("then", [2, 3, 5], "th@@ e@@ n"),
    ("thethe", [2, 3, 1], "th@@ e@@ the"), ("a", [19], "a"), ("the  low ", [1, 8], "the low"),
    ("ther", [2, 3, 12], "th@@ e@@ UNK"), ("", [], ""),
])
def test_byte_pair_encoding(tmp_path, sentence, seq, labels):
    (tmp_path / "codes").write_text(CODES)
    (tmp_path / "vocab").write_text(VOCAB)
    bpe = BytePairEncoding(vocab_file=str(tmp_path / "vocab"), bpe_file=str(tmp_path / "codes"))
    assert bpe.get_seq(sentence) == seq
    assert bpe.get_seq_labels(seq) == labels


def test_create_vocab_bpe_with_postfix(tmp_path):
    (tmp_path / "codes").write_text(CODES)
    (tmp_path / "vocab").write_text(VOCAB)
    bpe = Vocabulary.create_vocab(vocab_file=str(tmp_path / "vocab"), bpe_file=str(tmp_path / "codes"),
                                  seq_postfix=[0], unknown_label="UNK")
    assert bpe.get_seq("the lower") == [1, 17, 12, 3, 12, 0]


@pytest.mark.parametrize("codes, sentence, seq", [
    # unknown merged units are split back into known ones (t@@ h@@ instead of th@@)
    ("#version: 0.2\nt h\nth e</w>\n", "then", [4, 5, 2, 3]), ("#version: 0.2\nt h\nth e</w>\n", "the", [1]),
    ("#version: 0.2\nt h\nth e</w>\n", "th", [4, 6]), ("#version: 0.2\nt h\nth e</w>\n", "the@@", [4, 5, 2, 6, 6]),
    ("#version: 0.2\nt h\nth e</w>\n", "a@@b", [6, 6, 6, 6]),
    # version 0.1 (no header, or header 0.1): '</w>' is a symbol of its own
    ("t h\nth e</w>\n", "the", [4, 5, 7]), ("t h\nth e</w>\n", "then", [4, 5, 2, 3]),
    ("#version: 0.1\nt h\nth e\n", "the", [1]),
])
def test_bpe_vocab_splitting_and_versions(tmp_path, codes, sentence, seq):
    (tmp_path / "codes").write_text(codes)
    (tmp_path / "vocab").write_text("{'<s>': 0, 'the': 1, 'e@@': 2, 'n': 3, 't@@': 4, 'h@@': 5, 'UNK': 6, 'e': 7}")
    bpe = BytePairEncoding(vocab_file=str(tmp_path / "vocab"), bpe_file=str(tmp_path / "codes"))
    assert bpe.get_seq(sentence) == seq


def test_standard_encoder_segment_sentence(tmp_path):
    (tmp_path / "codes").write_text("#version: 0.2\nt h\nth e</w>\n")
    assert StandardBytePairEncoder(str(tmp_path / "codes")).segment_sentence("then the") == ["th@@", "e@@", "n", "the"]
    enc = StandardBytePairEncoder(str(tmp_path / "codes"), labels=["t@@", "h@@", "e@@", "n", "the", "e"])
    assert enc.segment_sentence("then the x") == ["t@@", "h@@", "e@@", "n", "the", "x"]


def test_codes_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="BPE codes file does not exist"):
        StandardBytePairEncoder(str(tmp_path / "missing"))
    (tmp_path / "bad").write_text("#version: 0.2\nt h\nthe\n")
    with pytest.raises(DataFileError, match=r"line 3: expected a merge 'left right', got 'the'"):
        StandardBytePairEncoder(str(tmp_path / "bad"))


def test_bpe_codes_ranks_as_reference(tmp_path):
    # observed from the reference: the line index, the version header counting as entry 0; a repeat keeps the first
    (tmp_path / "v").write_text("#version: 0.2\nn d</w>\nà nd</w>\nn d</w>\n", encoding="utf8")
    assert StandardBytePairEncoder(str(tmp_path / "v"))._bpe_codes == {
        ("#version:", "0.2"): 0, ("n", "d</w>"): 1, ("à", "nd</w>"): 2}
    (tmp_path / "nov").write_text("n d</w>\nà nd</w>\nn d</w>\n", encoding="utf8")
    assert StandardBytePairEncoder(str(tmp_path / "nov"))._bpe_codes == {("n", "d</w>"): 0, ("à", "nd</w>"): 1}

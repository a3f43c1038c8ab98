"""Targets and transcription processing against the reference's outputs on fixed input: BPE segmentation
(``BytePairEncoding`` with a subword-nmt codes file), ``SentencePieces``, the text cleaners of
``returnn.datasets.lm`` and ``EpochWiseFilter``."""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import speech_corpus  # noqa: E402

from returnn.datasets import lm  # noqa: E402
from returnn.datasets.meta import EpochWiseFilter  # noqa: E402
from returnn.datasets.util.vocabulary import BytePairEncoding, SentencePieces, Vocabulary  # noqa: E402
from returnn.errors import DatasetArgError  # noqa: E402

#: sentence -> (ids, labels joined) observed from the reference with speech_corpus's codes/vocab
BPE_EXPECTED = {
    "the cat sat on the mat": ([48, 8, 5, 43, 35, 48, 26, 5], "the c@@ at sat on the m@@ at"),
    "thinking about the question": ([50, 23, 19, 14, 3, 6, 33, 52, 45, 48, 38, 12, 44, 17, 35],
                                    "thin@@ k@@ in@@ g a@@ b@@ o@@ u@@ t the qu@@ e@@ st@@ i@@ on"),
    "xyz quickly jumped": ([2, 57, 2, 38, 17, 8, 23, 25, 56, 21, 52, 26, 37, 12, 9],
                           "<unk> y@@ <unk> qu@@ i@@ c@@ k@@ l@@ y j@@ u@@ m@@ p@@ e@@ d"),
    "a": ([2], "<unk>"),
    "the  rain\tin spain": ([48, 40, 4, 18, 42, 37, 4], "the r@@ ain in s@@ p@@ ain"),
    "": ([], ""),
    "zebras gold glitters": ([58, 12, 6, 40, 3, 41, 16, 25, 9, 15, 25, 17, 46, 46, 12, 40, 41],
                             "z@@ e@@ b@@ r@@ a@@ s go@@ l@@ d g@@ l@@ i@@ t@@ t@@ e@@ r@@ s"),
}


def test_bpe_segmentation_equals_reference(tmp_path):
    codes, vocab = speech_corpus.write_bpe(str(tmp_path))
    bpe = BytePairEncoding(vocab_file=vocab, bpe_file=codes, unknown_label="<unk>")
    assert bpe.num_labels == 59
    for sentence, (ids, labels) in BPE_EXPECTED.items():
        assert bpe.get_seq(sentence) == ids, sentence
        assert bpe.get_seq_labels(ids) == labels
    assert bpe.bpe.segment_sentence("xyz") == ["x@@", "y@@", "z"]
    via_create = Vocabulary.create_vocab(bpe_file=codes, vocab_file=vocab, unknown_label="<unk>", seq_postfix=[1])
    assert isinstance(via_create, BytePairEncoding) and via_create.get_seq("the dog") == [48, 10, 1]


@pytest.fixture(scope="module")
def spm_model(tmp_path_factory):
    import sentencepiece as spm

    tmp = tmp_path_factory.mktemp("spm")
    lines = ["the cat sat on the mat and the dog sat on the log",
             "there is nothing either good or bad but thinking makes it so",
             "the quick brown fox jumps over the lazy dog", "to be or not to be that is the question"]
    (tmp / "t.txt").write_text("\n".join(lines * 8))
    spm.SentencePieceTrainer.train(input=str(tmp / "t.txt"), model_prefix=str(tmp / "m"), vocab_size=40,
                                   model_type="bpe", character_coverage=1.0, normalization_rule_name="identity",
                                   minloglevel=2)
    return str(tmp / "m.model")


def test_sentencepieces(spm_model):
    v = Vocabulary.create_vocab(**{"class": "SentencePieces", "model_file": spm_model})
    assert isinstance(v, SentencePieces)
    # observed from the reference on the same model
    assert v.num_labels == 40 and v.labels[:8] == ["<unk>", "<s>", "</s>", "th", "▁th", "▁the", "at", "▁b"]
    assert (v.unknown_label_id, v.bos_label_id, v.eos_label_id, v.pad_label_id) == (0, 1, 2, None)
    seq = v.get_seq("the cat sat on the mat")
    assert seq == [5, 13, 29, 6, 12, 6, 8, 18, 5, 13, 28, 6]
    assert v.get_seq_labels(seq) == "▁the ▁ c at ▁s at ▁o n ▁the ▁ m at"
    assert v.get_seq("xyz quickly") == [13, 37, 38, 39, 13, 31, 26, 20, 29, 27, 30, 38] and v.get_seq("") == []
    v2 = SentencePieces(model_file=spm_model, add_eos=True, add_bos=True)
    assert v2.get_seq("the dog") == [1, 5, 13, 25, 10, 2]
    assert repr(v2) == f"SentencePieces({{'model_file': {spm_model!r}, 'add_eos': True, 'add_bos': True}})"
    import pickle

    assert pickle.loads(pickle.dumps(v2)).get_seq("the dog") == [1, 5, 13, 25, 10, 2]
    with pytest.raises(FileNotFoundError, match="missing.model"):
        SentencePieces(model_file="missing.model")


def test_text_cleaners_equal_reference():
    s = "Mr. Smith paid $3.50 on the 2nd of May, 1999 -- Hello  World [NOISE] <UNK> Café 12,000 x"
    assert lm.expand_abbreviations(s).startswith("mister Smith paid $3.50")
    assert lm.lowercase_keep_special(s).endswith("hello  world [NOISE] <UNK> café 12,000 x")
    assert lm.collapse_whitespace("  a  b\tc\nd  ") == "a b c d"
    assert lm.basic_cleaners(s) == ("mr. smith paid $3.50 on the 2nd of may, 1999 -- hello world [noise] <unk> café "
                                    "12,000 x")
    assert lm.get_remove_chars(",.")(s) == ("Mr Smith paid $3 50 on the 2nd of May 1999 -- Hello World [NOISE] <UNK> "
                                            "Café 12 000 x")
    assert lm.get_replace("a", "b")("banana") == "bbnbnb"
    assert lm.lowercase_keep_special("A[B]c<D>e [NOISE]x") == "a[b]c<d>e [NOISE]x"
    assert lm.expand_abbreviations("DR. Who; mrs. X, Mr.Y st. Z") == "doctor Who; misses X, misterY saint Z"
    f = lm.get_post_processor_function(["lowercase", lambda x: x + "!"])
    assert f("AB") == "ab!"
    with pytest.raises(KeyError, match="bogus"):
        lm.get_post_processor_function("bogus")


def test_english_cleaners_equal_reference():
    pytest.importorskip("unidecode")  # optional third-party packages of english_cleaners (as the reference)
    pytest.importorskip("inflect")
    s = "Mr. Smith paid $3.50 on the 2nd of May, 1999 -- Hello  World [NOISE] <UNK> Café 12,000 x"
    # all observed from the reference (with unidecode + inflect installed)
    assert lm.english_cleaners(s) == ("mister smith paid three dollars, fifty cents on the second of may, nineteen "
                                      "ninety-nine -- hello world [noise] <unk> cafe twelve thousand x")
    assert lm.english_cleaners_keep_special(s).endswith("hello world [NOISE] <UNK> cafe twelve thousand x")
    t = "In 2005 and 2000, 1500 people paid £20 and $1 or $0.01 for 3.14 apples; the 21st, 103rd and 1,000,000th"
    assert lm.english_cleaners(t) == (
        "in two thousand five and two thousand , fifteen hundred people paid ps twenty and one dollar or one cent "
        "for three point fourteen apples; the twenty-first, one hundred and third and one millionth")
    assert lm.normalize_numbers("1066 and 1900") == "ten sixty-six and nineteen hundred"


def test_epoch_wise_filter_unit():
    lens = [11, 11, 1, 5, 1, 7, 3, 20]
    ewf = EpochWiseFilter({(1, 2): {"max_mean_len": 4}})
    # observed from the reference: the shortest kept (ties by corpus index), in the given order
    assert ewf.filter(epoch=1, seq_order=[7, 6, 5, 4, 3, 2, 1, 0], get_seq_len=lambda i: lens[i]) == [6, 5, 4, 3, 2, 0]
    assert ewf.filter(epoch=3, seq_order=[7, 6, 5], get_seq_len=lambda i: lens[i]) == [7, 6, 5]
    assert EpochWiseFilter({(1, 2): {"max_mean_len": 100}}).filter(1, [7, 6, 5, 4, 3, 2, 1, 0],
                                                                  lambda i: lens[i]) == [7, 6, 5, 4, 3, 2, 1, 0]
    assert EpochWiseFilter.filter_epoch({}, [3, 1], lambda i: lens[i], "x") == [3, 1]
    with pytest.raises(DatasetArgError, match="max_num_seqs"):
        EpochWiseFilter({(1, 2): {"max_num_seqs": 3}}).filter(1, [0, 1], lambda i: lens[i])
    with pytest.raises(DatasetArgError, match="first_epoch"):
        EpochWiseFilter({1: {"max_mean_len": 3}})

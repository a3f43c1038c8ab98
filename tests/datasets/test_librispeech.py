"""LibriSpeechCorpus (``returnn.datasets.generating.LibriSpeechCorpus``) on a tiny LibriSpeech-layout tree
(``speech_corpus.write_librispeech``) against what the reference yields on the same tree."""

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import speech_corpus  # noqa: E402

from returnn.datasets.generating import LibriSpeechCorpus  # noqa: E402
from returnn.errors import DataFileError, DatasetArgError  # noqa: E402

TRAIN_TAGS = ["train-clean-100-3-12-0000", "train-clean-100-19-198-0000", "train-clean-100-19-198-0001",
              "train-clean-100-100-7-0000", "train-clean-100-100-7-0001", "train-other-500-26-495-0000"]
TRAIN_TEXTS = ["AA BB CC DD", "HELLO WORLD", "THE CAT SAT", "ZZ TOP", "Q", "A B C"]


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    root = tmp_path_factory.mktemp("librispeech")
    speech_corpus.write_librispeech(str(root / "ls"), ogg=True)
    speech_corpus.write_librispeech(str(root / "lsz"), use_zip=True)
    speech_corpus.write_bpe(str(root))
    return root


def _seqs(ds):
    ds.load_seqs(0, ds.num_seqs)
    return [(ds.get_tag(i), str(ds.get_data(i, "raw"))) for i in range(ds.num_seqs)]


def test_text_only_corpus_order_tags_keys(tree):
    ds = LibriSpeechCorpus(path=str(tree / "ls"), prefix="train", audio=None)
    ds.init_seq_order(epoch=1)
    assert ds.name == "prefix:train" and ds.num_seqs == 6 and ds.get_total_num_seqs() == 6
    assert ds.get_data_keys() == ["data", "raw"] and ds.num_outputs == {"raw": {"dtype": "string", "shape": ()}}
    assert _seqs(ds) == list(zip(TRAIN_TAGS, TRAIN_TEXTS))  # speakers 3 < 19 < 100 as numbers
    assert ds.get_all_tags() == TRAIN_TAGS
    raw, data = ds.get_data(0, "raw"), ds.get_data(0, "data")
    assert raw.dtype == object and raw.shape == ()
    assert data.dtype == np.float64 and data.shape == () and float(data) == 0.0  # as the reference with audio=None
    ds = LibriSpeechCorpus(path=str(tree / "ls"), prefix="dev", audio=None)
    ds.init_seq_order(epoch=1)
    assert _seqs(ds) == [("dev-clean-84-121-0000", "DEV ONE"), ("dev-clean-84-121-0001", "DEV TWO")]


def test_chars_sorted_by_text_length(tree):
    labels = list(" ABCDEFGHIJKLMNOPQRSTUVWXYZ'@")
    ds = LibriSpeechCorpus(path=str(tree / "ls"), prefix="train", audio=None, seq_ordering="sorted",
                           chars={"vocab_file": None, "labels": labels})
    ds.init_seq_order(epoch=1)
    assert ds.get_data_keys() == ["classes", "data", "raw"] and ds.num_outputs["classes"] == [29, 1]
    assert sorted(ds.labels) == ["classes"]
    assert [t for t, _ in _seqs(ds)] == ["train-clean-100-100-7-0001", "train-other-500-26-495-0000",
                                         "train-clean-100-100-7-0000", "train-clean-100-3-12-0000",
                                         "train-clean-100-19-198-0000", "train-clean-100-19-198-0001"]
    assert ds.get_data(1, "classes").tolist() == [1, 0, 2, 0, 3]
    assert ds.get_data(3, "classes").tolist() == [1, 1, 0, 2, 2, 0, 3, 3, 0, 4, 4]


def test_bpe_with_orth_post_process(tree):
    ds = LibriSpeechCorpus(path=str(tree / "ls"), prefix="train", audio=None, orth_post_process="lowercase",
                           bpe={"bpe_file": str(tree / "codes.txt"), "vocab_file": str(tree / "bpe.vocab"),
                                "unknown_label": "<unk>"})
    ds.init_seq_order(epoch=1)
    assert ds.num_outputs["classes"] == [59, 1]
    assert [str(ds.get_data(i, "raw")) for i in range(6)] == [t.lower() for t in TRAIN_TEXTS]
    # observed from the reference
    assert [ds.get_data(i, "classes").tolist() for i in range(6)] == [
        [3, 2, 6, 2, 8, 2, 2, 9], [2, 12, 25, 25, 32, 54, 33, 40, 25, 9], [48, 8, 5, 43], [58, 2, 46, 33, 2], [2],
        [2, 2, 2]]


def test_audio_from_zip_flac_and_ogg(tree):
    ds = LibriSpeechCorpus(path=str(tree / "lsz"), prefix="train", use_zip=True,
                           audio={"features": "mfcc", "num_feature_filters": 13})
    ds.init_seq_order(epoch=1)
    assert ds.num_outputs["data"] == [13, 2] and ds.num_inputs == 13
    ds.load_seqs(0, 6)
    # observed from the reference: (frames, frame 5 dims 0:4, sum)
    expected = [(61, [0.8297, 141.672, 12.0006, -26.2889], -5827.53), (21, [0.8278, 176.6113, 80.8071, -4.4915], 308.99),
                (31, [0.8326, 156.8621, 56.0817, -12.716], -742.33), (41, [0.8288, 54.602, 4.8289, -14.864], -4229.01),
                (51, [0.8241, 129.1175, 26.3385, -14.2847], -6007.67),
                (71, [0.8308, 110.1316, 6.6758, -19.0142], -3198.14)]
    for i, (frames, frame5, total) in enumerate(expected):
        data = ds.get_data(i, "data")
        assert data.shape == (frames, 13) and data.dtype == np.float32
        np.testing.assert_allclose(data[5, :4], frame5, atol=1e-4)
        assert abs(float(data.astype(np.float64).sum()) - total) < 0.02
    ds = LibriSpeechCorpus(path=str(tree / "ls"), prefix="train-clean", audio={"features": "log_mel_filterbank"},
                           seq_ordering="sorted_reverse")
    ds.init_seq_order(epoch=1)
    assert ds.num_seqs == 5
    ds.load_seqs(0, 1)
    np.testing.assert_allclose(ds.get_data(0, "data")[5, :4], [-6.9078, -6.9078, -6.9078, -5.6735], atol=1e-4)
    ds = LibriSpeechCorpus(path=str(tree / "ls"), prefix="dev", use_ogg=True, audio={"features": "mfcc"})
    ds.init_seq_order(epoch=1)
    ds.load_seqs(0, 2)
    assert [ds.get_data(i, "data").shape for i in range(2)] == [(81, 40), (91, 40)]


def test_subset_partition_epoch_filter(tree):
    path = str(tree / "ls")
    ds = LibriSpeechCorpus(path=path, prefix="train", audio=None, fixed_random_subset=3)
    ds.init_seq_order(epoch=1)
    assert ds.get_all_tags() == [TRAIN_TAGS[0], TRAIN_TAGS[1], TRAIN_TAGS[5]]
    ds = LibriSpeechCorpus(path=path, prefix="train", audio=None, partition_epoch=2, seq_ordering="random")
    ds.init_seq_order(epoch=1)
    assert ds.num_seqs == 3 and [ds.get_tag(i) for i in range(3)] == [TRAIN_TAGS[2], TRAIN_TAGS[1], TRAIN_TAGS[4]]
    # the reference's filter here: n doubled from 1 while the mean text length of the shortest 2n is <= max
    for max_mean_len, num in [(1, 1), (2, 1), (3, 2), (5, 2), (6, 4), (8, 4), (12, 4)]:
        ds = LibriSpeechCorpus(path=path, prefix="train", audio=None, seq_ordering="random",
                               epoch_wise_filter={(1, 1): {"max_mean_len": max_mean_len}})
        ds.init_seq_order(epoch=1)
        assert ds.num_seqs == num, max_mean_len
    ds = LibriSpeechCorpus(path=path, prefix="train", audio=None, epoch_wise_filter={(1, 1): {"max_mean_len": 8}})
    ds.init_seq_order(epoch=1)
    assert [ds.get_tag(i) for i in range(4)] == [TRAIN_TAGS[4], TRAIN_TAGS[5], TRAIN_TAGS[3], TRAIN_TAGS[0]]
    ds.init_seq_order(epoch=2)
    assert ds.num_seqs == 6


def test_errors(tree, tmp_path):
    with pytest.raises(DataFileError, match="no subdir starting with prefix 'test'"):
        LibriSpeechCorpus(path=str(tree / "ls"), prefix="test", audio=None)
    with pytest.raises(DatasetArgError, match="only one of"):
        LibriSpeechCorpus(path=str(tree / "ls"), prefix="dev", audio=None, chars={"vocab_file": None, "labels": ["a"]},
                          targets={"class": "Utf8ByteTargets"})
    bad = tmp_path / "ls" / "dev-x" / "1" / "2"
    bad.mkdir(parents=True)
    (bad / "1-2.trans.txt").write_text("1-2-0000 HI\n")
    (bad / "1-2-0000.flac").write_bytes(b"not flac")
    ds = LibriSpeechCorpus(path=str(tmp_path / "ls"), prefix="dev", audio={"features": "mfcc"})
    ds.init_seq_order(epoch=1)
    with pytest.raises(DataFileError, match="'dev-x-1-2-0000'.*cannot decode"):
        ds.load_seqs(0, 1)


def test_epoch_wise_filter_subdirs_and_new_filter(tree):
    path = str(tree / "ls")
    expected = [  # observed from the reference
        ({(1, 1): {"subdirs": ["train-clean-100"]}}, TRAIN_TAGS[:5]),
        ({(1, 1): {"max_mean_len": 8, "subdirs": ["train-other-500", "train-clean-100"]}},
         [TRAIN_TAGS[4], TRAIN_TAGS[5], TRAIN_TAGS[3], TRAIN_TAGS[0]]),
        ({(1, 1): {"subdirs": ["train-other-500"], "max_mean_len": 3}}, [TRAIN_TAGS[5]]),
        ({(1, 1): {"use_new_filter": True, "max_mean_len": 8}}, TRAIN_TAGS),
    ]
    for ewf, tags in expected:
        ds = LibriSpeechCorpus(path=path, prefix="train", audio=None, epoch_wise_filter=ewf)
        ds.init_seq_order(epoch=1)
        assert [ds.get_tag(i) for i in range(ds.num_seqs)] == tags, ewf

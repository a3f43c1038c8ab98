"""OggZipDataset (``returnn.datasets.audio``) against what the reference yields on the same zips
(built by ``speech_corpus``): keys, dims, dtypes, tags, orders, features, targets, options and errors."""

import os
import sys
import zipfile

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import speech_corpus  # noqa: E402

from returnn.datasets.audio import OggZipDataset  # noqa: E402
from returnn.datasets.basic import init_dataset  # noqa: E402
from returnn.errors import DataFileError, DatasetArgError  # noqa: E402

ORTHS = {"corpus/seq0": [104, 101, 108, 108, 111, 32, 119, 111, 114, 108, 100],
         "corpus/seq1": [116, 104, 101, 32, 99, 97, 116, 32, 115, 97, 116],
         "corpus/seq2": [97, 32, 98, 32, 99, 32, 100, 32, 101]}


@pytest.fixture
def corpus(tmp_path):
    path = str(tmp_path / "corpus.zip")
    speech_corpus.write_zip(path)
    return path


def _orders(ds, epochs=(1, 2, 3)):
    result = []
    for ep in epochs:
        ds.init_seq_order(epoch=ep)
        result.append([ds.get_corpus_seq_idx(i) for i in range(ds.num_seqs)])
    return result


def test_features_bpe_targets_keys_dims(corpus, tmp_path):
    codes, vocab = speech_corpus.write_bpe(str(tmp_path))
    ds = OggZipDataset(path=corpus, audio={"features": "log_mel_filterbank", "num_feature_filters": 40},
                       targets={"class": "BytePairEncoding", "bpe_file": codes, "vocab_file": vocab,
                                "unknown_label": "<unk>"})
    ds.init_seq_order(epoch=1)
    assert ds.num_outputs == {"raw": {"dtype": "string", "shape": ()}, "orth": [256, 1], "classes": [59, 1],
                              "data": [40, 2]}
    assert ds.get_data_keys() == ["data", "classes", "orth", "raw"]
    assert sorted(ds.labels) == ["classes", "orth"] and ds.num_inputs == 40
    assert ds.labels["orth"][104] == "h" and ds.labels["classes"][:3] == ["<s>", "</s>", "<unk>"]
    assert [(k, ds.get_data_dim(k), ds.get_data_shape(k), ds.get_data_dtype(k), ds.is_data_sparse(k))
            for k in ds.get_data_keys()] == [("data", 40, [40], "float32", False), ("classes", 59, [], "int32", True),
                                             ("orth", 256, [], "uint8", True), ("raw", 0, [], "string", False)]
    assert ds.name == "corpus" and ds.num_seqs == 3
    ds.load_seqs(0, 3)
    # observed from the reference: (frames, frame 5 dims 0:4, sum of all, classes)
    expected = [
        ("corpus/seq0", 51, -11170.07, [2, 12, 25, 25, 32, 54, 33, 40, 25, 9], "hello world"),
        ("corpus/seq1", 31, -6551.11, [48, 8, 5, 43], "the cat sat"),
        ("corpus/seq2", 71, -15984.96, [2, 2, 2, 9, 11], "a b c d e"),
    ]
    for i, (tag, frames, total, classes, text) in enumerate(expected):
        assert ds.get_tag(i) == tag
        data = ds.get_data(i, "data")
        assert data.shape == (frames, 40) and data.dtype == np.float32
        np.testing.assert_allclose(data[5, :4], [-6.9078] * 4, atol=1e-4)
        assert abs(float(data.astype(np.float64).sum()) - total) < 0.02
        assert ds.get_data(i, "classes").tolist() == classes and ds.get_data(i, "classes").dtype == np.int32
        assert ds.get_data(i, "orth").tolist() == ORTHS[tag] and ds.get_data(i, "orth").dtype == np.uint8
        raw = ds.get_data(i, "raw")
        assert raw.shape == () and str(raw) == text
        assert dict(ds.get_seq_length(i)) == {"data": frames, "classes": len(classes), "orth": len(text), "raw": 1}
    assert ds.targets.get_seq_labels(ds.get_data(1, "classes")) == "the c@@ at sat"


def test_mfcc_delta_preemphasis_and_wav_without_prefix(corpus, tmp_path):
    ds = OggZipDataset(path=corpus, audio={"features": "mfcc", "num_feature_filters": 13, "with_delta": True,
                                           "preemphasis": 0.97, "peak_normalization": False}, targets=None)
    ds.init_seq_order(epoch=1)
    ds.load_seqs(0, 3)
    # observed from the reference: frame 5 dims 0:4 and the sum
    for i, (shape, frame5, total) in enumerate([((51, 26), [0.0407, 50.0888, -1.4286, -13.2214], -5688.19),
                                                ((31, 26), [0.0605, 111.0506, -29.5357, -29.3462], -1788.47),
                                                ((71, 26), [0.08, 23.1338, -28.7929, -26.0743], -6332.4)]):
        data = ds.get_data(i, "data")
        assert data.shape == shape
        np.testing.assert_allclose(data[5, :4], frame5, atol=1e-4)
        assert abs(float(data.astype(np.float64).sum()) - total) < 0.02
    wavs = str(tmp_path / "wavs.zip")
    speech_corpus.write_zip(wavs, fmt="WAV", prefix=False)
    ds = OggZipDataset(path=wavs, audio={"features": "db_mel_filterbank", "num_feature_filters": 20}, targets=None,
                       zip_audio_files_have_name_as_prefix=False)
    ds.init_seq_order(epoch=1)
    ds.load_seqs(0, 3)
    for i, (shape, frame5, total) in enumerate([((51, 20), [-143.3342, 13.9678, 41.6141, 22.7994], -110066.68),
                                                ((31, 20), [-103.8365, -81.1827, -40.8148, 35.0305], -52572.97),
                                                ((71, 20), [-143.7571, -185.2982, -181.3055, -168.1143], -168541.23)]):
        data = ds.get_data(i, "data")
        assert data.shape == shape
        np.testing.assert_allclose(data[5, :4], frame5, atol=1e-4)
        assert abs(float(data.astype(np.float64).sum()) - total) < 0.02


def test_ogg_vorbis_members(tmp_path):
    path = str(tmp_path / "oggs.zip")
    speech_corpus.write_zip(path, fmt="OGG")
    ds = OggZipDataset(path=path, audio={"features": "log_mel_filterbank", "num_feature_filters": 80,
                                         "window_len": 0.05, "step_len": 0.0125}, targets=None)
    ds.init_seq_order(epoch=1)
    ds.load_seqs(0, 3)
    assert [ds.get_data(i, "data").shape for i in range(3)] == [(41, 80), (25, 80), (57, 80)]  # as the reference


def test_text_only_character_targets_post_process(corpus):
    ds = OggZipDataset(path=corpus, audio=None, targets={"class": "CharacterTargets", "vocab_file": None,
                                                         "labels": list(" abcdefghijklmnopqrstuvwxyz@")},
                       targets_post_process=["lowercase", "collapse_whitespace"])
    ds.init_seq_order(epoch=1)
    assert ds.get_data_keys() == ["classes", "orth", "raw"] and ds.num_inputs == 0
    assert ds.get_target_list() == ["classes", "orth", "raw"]
    ds.load_seqs(0, 3)
    assert ds.get_data(0, "classes").tolist() == [8, 5, 12, 12, 15, 0, 23, 15, 18, 12, 4]
    assert ds.get_data(2, "classes").tolist() == [1, 0, 2, 0, 3, 0, 4, 0, 5]


def test_post_process_only_changes_targets(tmp_path):
    path = str(tmp_path / "mixed.zip")
    entries = [{"file": "a.ogg", "seq_name": "x/a", "text": "Hello  World", "duration": 1.0}]
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("mixed.txt", repr(entries))
    labels = list(" abcdefghijklmnopqrstuvwxyz@")
    got = {}
    for tpp in ["lowercase", ["lowercase", "collapse_whitespace"], None]:
        ds = OggZipDataset(path=path, audio=None, targets={"class": "CharacterTargets", "vocab_file": None,
                                                           "labels": labels}, targets_post_process=tpp)
        ds.init_seq_order(epoch=1)
        ds.load_seqs(0, 1)
        assert str(ds.get_data(0, "raw")) == "Hello  World"
        assert ds.get_data(0, "orth").tolist()[:2] == [72, 101]
        got[str(tpp)] = ds.get_data(0, "classes").tolist()
    # observed from the reference (27 = "@", the unknown label, for the capitals)
    assert got == {"lowercase": [8, 5, 12, 12, 15, 0, 0, 23, 15, 18, 12, 4],
                   "['lowercase', 'collapse_whitespace']": [8, 5, 12, 12, 15, 0, 23, 15, 18, 12, 4],
                   "None": [27, 5, 12, 12, 15, 0, 0, 27, 15, 18, 12, 4]}


def test_fixed_random_subset(tmp_path):
    path = str(tmp_path / "text20.zip")
    speech_corpus.write_text_zip(path)
    # observed from the reference
    for frs, seed, tags in [(5, 42, ["c/s00", "c/s17", "c/s15", "c/s01", "c/s08"]),
                            (0.3, 42, ["c/s00", "c/s17", "c/s15", "c/s01", "c/s08", "c/s05"]),
                            (5, 1, ["c/s03", "c/s16", "c/s06", "c/s10", "c/s02"])]:
        ds = OggZipDataset(path=path, audio=None, targets=None, fixed_random_subset=frs,
                           fixed_random_subset_seed=seed)
        ds.init_seq_order(epoch=1)
        assert ds.get_all_tags() == tags and ds.num_seqs == len(tags)


def test_orders_partition_epoch(tmp_path):
    path = str(tmp_path / "text20.zip")
    speech_corpus.write_text_zip(path)
    expected = {  # observed from the reference, sub-epochs 1, 2, 3 of partition_epoch=2
        "sorted": [[0, 3, 6, 9, 12, 15, 18, 1, 4, 7], [10, 13, 16, 19, 2, 5, 8, 11, 14, 17],
                   [0, 3, 6, 9, 12, 15, 18, 1, 4, 7]],
        "sorted_reverse": [[17, 14, 11, 8, 5, 2, 19, 16, 13, 10], [7, 4, 1, 18, 15, 12, 9, 6, 3, 0],
                           [17, 14, 11, 8, 5, 2, 19, 16, 13, 10]],
        "random": [[3, 16, 6, 10, 2, 14, 4, 17, 7, 1], [13, 0, 19, 18, 9, 15, 8, 12, 11, 5],
                   [12, 4, 18, 0, 9, 5, 3, 10, 1, 17]],
        "laplace:5": [[3, 6, 10, 16, 17, 14, 2, 4, 0, 1], [7, 13, 19, 18, 15, 9, 12, 5, 8, 11],
                      [0, 12, 18, 4, 5, 10, 9, 3, 1, 7]],
    }
    for order, orders in expected.items():
        ds = OggZipDataset(path=path, audio=None, targets=None, seq_ordering=order, partition_epoch=2)
        assert _orders(ds) == orders, order
        assert ds.get_total_num_seqs() == 20


def test_epoch_wise_filter(tmp_path):
    path = str(tmp_path / "text20.zip")
    speech_corpus.write_text_zip(path)
    cases = [  # observed from the reference: epochs 1, 2, 3
        ({(1, 2): {"max_mean_len": 170}}, "default", 1,
         [[0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 12, 13, 15, 16, 18, 19], [0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 12, 13, 15, 16, 18, 19],
          list(range(20))]),
        ({(1, 2): {"max_mean_len": 170}}, "random", 2,
         [[3, 16, 6, 10, 4, 7, 1], [13, 0, 19, 18, 9, 15, 12, 5], [12, 4, 18, 0, 9, 5, 3, 10, 1, 17]]),
        ({(1, 1): {"max_mean_len": 200}, (2, 2): {"max_mean_len": 130}}, "random", 1,
         [[3, 16, 6, 10, 2, 14, 4, 17, 7, 1, 13, 0, 19, 18, 9, 15, 8, 12, 11, 5], [12, 18, 0, 9, 3, 6, 15],
          [14, 2, 1, 17, 4, 16, 6, 7, 15, 12, 9, 11, 19, 18, 13, 5, 0, 8, 3, 10]]),
        ({(2, None): {"max_mean_len": 150}}, "random", 2,
         [[3, 16, 6, 10, 2, 14, 4, 17, 7, 1], [13, 0, 19, 18, 9, 15, 12], [12, 4, 18, 0, 9, 5, 3, 10, 1]]),
    ]
    for ewf, order, pe, orders in cases:
        ds = OggZipDataset(path=path, audio=None, targets=None, epoch_wise_filter=ewf, seq_ordering=order,
                           partition_epoch=pe)
        assert _orders(ds) == orders, (ewf, order, pe)
    ds = OggZipDataset(path=path, audio=None, targets=None, epoch_wise_filter={(1, 2): {"max_mean_lenn": 1}})
    with pytest.raises(DatasetArgError, match="max_mean_lenn"):
        ds.init_seq_order(epoch=1)


def test_several_zips_directory_segment_file(corpus, tmp_path):
    text20 = str(tmp_path / "text20.zip")
    speech_corpus.write_text_zip(text20)
    ds = OggZipDataset(path=[corpus, text20], audio=None, targets=None)
    ds.init_seq_order(epoch=1)
    assert ds.num_seqs == 23 and ds.get_all_tags()[:5] == ["corpus/seq0", "corpus/seq1", "corpus/seq2", "c/s00",
                                                           "c/s01"]
    assert ds.name == "corpus"
    unpacked = tmp_path / "unpacked"
    zipfile.ZipFile(corpus).extractall(unpacked)
    ds = OggZipDataset(path=str(unpacked / "corpus"), audio={"features": "log_mel_filterbank"}, targets=None)
    ds.init_seq_order(epoch=1)
    ds.load_seqs(0, 1)
    assert ds.get_data(0, "data").shape == (51, 40)
    assert abs(float(ds.get_data(0, "data").astype(np.float64).sum()) - (-11170.07)) < 0.02
    seg = tmp_path / "seg.txt"
    seg.write_text("corpus/seq2\ncorpus/seq0\n")
    ds = OggZipDataset(path=corpus, audio=None, targets=None, segment_file=str(seg))
    ds.init_seq_order(epoch=1)
    assert [ds.get_tag(i) for i in range(ds.num_seqs)] == ["corpus/seq0", "corpus/seq2"]  # corpus order kept
    ds = OggZipDataset(path=corpus, audio=None, targets=None, use_cache_manager=True)
    ds.init_seq_order(epoch=1)
    assert ds.num_seqs == 3


def test_init_dataset_dict_and_content_name(corpus, tmp_path):
    renamed = str(tmp_path / "other.zip")
    os.rename(corpus, renamed)
    ds = init_dataset({"class": "OggZipDataset", "path": renamed, "content_name": "corpus", "audio": None,
                       "targets": None, "seq_ordering": "sorted"})
    ds.init_seq_order(epoch=1)
    assert [ds.get_tag(i) for i in range(3)] == ["corpus/seq1", "corpus/seq0", "corpus/seq2"]  # by duration


def test_bad_input_errors_name_file_and_sequence(tmp_path):
    path = str(tmp_path / "bad.zip")
    speech_corpus.write_zip(path, skip_members=["seq1.flac"], corrupt_members=["seq2.flac"],
                            extra_entries=[{"file": "seq3.flac", "seq_name": "corpus/notext", "duration": 1.0}])
    ds = OggZipDataset(path=path, audio={"features": "mfcc"}, targets=None)
    ds.init_seq_order(epoch=1)
    assert ds.num_seqs == 4
    ds.load_seqs(0, 1)
    assert ds.get_data(0, "data").shape == (51, 40)  # the good sequence still loads
    with pytest.raises(DataFileError, match=r"bad\.zip.*'corpus/seq1'.*no audio member 'bad/seq1\.flac'"):
        ds.get_data(1, "data")
    with pytest.raises(DataFileError, match=r"bad\.zip:bad/seq2\.flac.*'corpus/seq2'.*cannot decode"):
        ds.get_data(2, "data")
    with pytest.raises(DataFileError, match=r"bad\.zip:bad\.txt.*'corpus/notext' has no 'text'"):
        ds.get_data(3, "data")
    corrupt = tmp_path / "corrupt.zip"
    corrupt.write_bytes(b"PK\x03\x04garbage")
    ds = OggZipDataset(path=str(corrupt), audio=None, targets=None)
    with pytest.raises(DataFileError, match="corrupt.zip.*not a zip file"):
        ds.init_seq_order(epoch=1)
    with pytest.raises(DataFileError, match="missing.zip.*does not exist"):
        OggZipDataset(path=str(tmp_path / "missing.zip"), audio=None, targets=None)
    (tmp_path / "dir").mkdir()
    with pytest.raises(DataFileError, match=r"dir\.txt"):
        OggZipDataset(path=str(tmp_path / "dir"), audio=None, targets=None)
    no_dur = str(tmp_path / "nodur.zip")
    with zipfile.ZipFile(no_dur, "w") as zf:
        zf.writestr("nodur.txt", repr([{"file": "a.ogg", "text": "hi"}]))
    ds = OggZipDataset(path=no_dur, audio=None, targets=None, seq_ordering="sorted")
    with pytest.raises(DataFileError, match="'a.ogg' has no 'duration'"):
        ds.init_seq_order(epoch=1)
    ds = OggZipDataset(path=no_dur, audio=None, targets=None)
    ds.init_seq_order(epoch=1)
    assert ds.get_all_tags() == ["a.ogg"]  # no seq_name: the file name is the tag (reference)
    with pytest.raises(DatasetArgError, match="targets"):
        OggZipDataset(path=no_dur, audio=None, targets="chars")


def test_batches_and_feeding_with_raw_key(corpus):
    from returnn.datasets.feeding import build_batch_data

    ds = OggZipDataset(path=corpus, audio={"features": "log_mel_filterbank"}, targets=None)
    ds.init_seq_order(epoch=1)
    batches = list(ds.generate_batches(batch_size=1000, max_seqs=3, used_data_keys=["data", "orth"]))
    assert len(batches) == 1
    batch = build_batch_data(ds, batches[0], ["data", "orth"])
    assert batch.data["data"].shape == (3, 71, 40) and batch.data["orth"].dtype == np.int32
    assert batch.seq_lens["data"].tolist() == [51, 31, 71] and batch.seq_tags[0] == "corpus/seq0"

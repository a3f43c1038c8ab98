"""OggZipDataset's ``feature_cache`` (``returnn.datasets.util.feature_cache``, not in the reference): a cache hit
gives the features of a fresh extraction, the entries are per ``audio`` options and per audio content, and
``MultiProcDataset`` over the dataset yields what the dataset yields alone."""

import os
import shutil
import sys
import zipfile

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import speech_corpus  # noqa: E402

from returnn.datasets.audio import OggZipDataset  # noqa: E402
from returnn.datasets.basic import init_dataset  # noqa: E402
from returnn.errors import DatasetArgError  # noqa: E402

AUDIO = {"features": "log_mel_filterbank", "num_feature_filters": 40}


@pytest.fixture
def corpus(tmp_path):
    path = str(tmp_path / "corpus.zip")
    speech_corpus.write_zip(path)
    return path


def _all_features(ds, epoch=1):
    ds.init_seq_order(epoch=epoch)
    ds.load_seqs(0, ds.num_seqs)
    return {ds.get_tag(i): ds.get_data(i, "data") for i in range(ds.num_seqs)}


def _assert_same(got, expected):
    assert sorted(got) == sorted(expected)
    for tag in expected:
        assert got[tag].dtype == expected[tag].dtype == np.float32
        np.testing.assert_array_equal(got[tag], expected[tag])


@pytest.mark.parametrize("kind", ["memory", "disk"])
def test_cache_hit_equals_fresh_extraction(corpus, tmp_path, kind):
    fresh = _all_features(OggZipDataset(path=corpus, audio=AUDIO, targets=None))
    cache = "memory" if kind == "memory" else str(tmp_path / "cache")
    ds = OggZipDataset(path=corpus, audio=AUDIO, targets=None, feature_cache=cache, seq_ordering="random")
    _assert_same(_all_features(ds, epoch=1), fresh)
    assert (ds.feature_cache.hits, ds.feature_cache.misses) == (0, 3)
    _assert_same(_all_features(ds, epoch=2), fresh)  # another order, the same features
    assert (ds.feature_cache.hits, ds.feature_cache.misses) == (3, 3)
    if kind == "disk":
        files = sorted(os.listdir(os.path.join(cache, ds.feature_cache.options_key)))
        assert len([f for f in files if f.endswith(".npy")]) == 3 and "options.json" in files
        assert not [f for f in files if ".tmp." in f]
        # a new dataset (another process, a later run) finds them
        ds2 = OggZipDataset(path=corpus, audio=AUDIO, targets=None, feature_cache=cache)
        _assert_same(_all_features(ds2), fresh)
        assert (ds2.feature_cache.hits, ds2.feature_cache.misses) == (3, 0)


def test_memory_cache_hands_out_copies(corpus):
    ds = OggZipDataset(path=corpus, audio=AUDIO, targets=None, feature_cache="memory")
    first = _all_features(ds)
    expected = {tag: arr.copy() for tag, arr in first.items()}
    for arr in first.values():
        arr[...] = 0.0  # a consumer changing its array in place
    _assert_same(_all_features(ds, epoch=2), expected)


def test_cache_hit_does_not_read_the_audio(tmp_path):
    """Unpacked directory: after the first epoch the audio files may even be unreadable... as long as their size and
    modification time are unchanged, the features come from the cache (here: the file made unreadable by mode)."""
    unpacked = tmp_path / "unpacked"
    unpacked.mkdir()
    zip_path = str(tmp_path / "corpus.zip")
    speech_corpus.write_zip(zip_path)
    with zipfile.ZipFile(zip_path) as zf:
        zf.extractall(str(unpacked))
    ds = OggZipDataset(path=str(unpacked / "corpus"), audio=AUDIO, targets=None, feature_cache=str(tmp_path / "c"))
    fresh = _all_features(ds)
    calls = []
    orig = ds._sources[0].read_audio
    ds._sources[0].read_audio = lambda *a: calls.append(a) or orig(*a)
    _assert_same(_all_features(ds, epoch=2), fresh)
    assert calls == [] and ds.feature_cache.hits == 3


def test_changed_audio_options_invalidate(corpus, tmp_path):
    cache = str(tmp_path / "cache")
    ds = OggZipDataset(path=corpus, audio=AUDIO, targets=None, feature_cache=cache)
    _all_features(ds)
    other_opts = dict(AUDIO, num_feature_filters=20)
    fresh20 = _all_features(OggZipDataset(path=corpus, audio=other_opts, targets=None))
    ds20 = OggZipDataset(path=corpus, audio=other_opts, targets=None, feature_cache=cache)
    assert ds20.feature_cache.options_key != ds.feature_cache.options_key
    got = _all_features(ds20)
    _assert_same(got, fresh20)
    assert (ds20.feature_cache.hits, ds20.feature_cache.misses) == (0, 3)
    assert all(arr.shape[1] == 20 for arr in got.values())
    for opts in ({"step_len": 0.02}, {"with_delta": 1}, {"peak_normalization": False}, {"preemphasis": 0.97},
                 {"features": "mfcc"}, {"norm_mean": 1.0}):
        other = OggZipDataset(path=corpus, audio=dict(AUDIO, **opts), targets=None, feature_cache=cache)
        assert other.feature_cache.options_key != ds.feature_cache.options_key, opts
    same = OggZipDataset(path=corpus, audio=dict(AUDIO), targets=None, feature_cache=cache)
    assert same.feature_cache.options_key == ds.feature_cache.options_key


def test_changed_normalization_file_invalidates(corpus, tmp_path):
    """The same file name with other values: other entries (the key holds the values, not the file name)."""
    mean_file = tmp_path / "mean.txt"
    mean_file.write_text("\n".join(["-5.0"] * 40))
    opts = dict(AUDIO, norm_mean=str(mean_file))
    cache = str(tmp_path / "cache")
    ds = OggZipDataset(path=corpus, audio=opts, targets=None, feature_cache=cache)
    before = _all_features(ds)
    mean_file.write_text("\n".join(["-6.0"] * 40))
    ds2 = OggZipDataset(path=corpus, audio=opts, targets=None, feature_cache=cache)
    after = _all_features(ds2)
    assert ds2.feature_cache.misses == 3 and ds2.feature_cache.hits == 0
    for tag in before:
        np.testing.assert_allclose(after[tag], before[tag] + 1.0, atol=1e-5)  # x - (-6) = (x - (-5)) + 1


def test_changed_audio_file_invalidates(tmp_path):
    path = str(tmp_path / "corpus.zip")
    speech_corpus.write_zip(path)
    cache = str(tmp_path / "cache")
    _all_features(OggZipDataset(path=path, audio=AUDIO, targets=None, feature_cache=cache))
    # the same tags and files, other tones: other zip members (CRC), so no stale features
    seqs = [(tag, text, freq * 1.5, dur) for tag, text, freq, dur in speech_corpus.SEQS]
    speech_corpus.write_zip(path, seqs)
    fresh = _all_features(OggZipDataset(path=path, audio=AUDIO, targets=None))
    ds = OggZipDataset(path=path, audio=AUDIO, targets=None, feature_cache=cache)
    _assert_same(_all_features(ds), fresh)
    assert ds.feature_cache.misses == 3


def test_damaged_cache_file_is_recomputed(corpus, tmp_path):
    cache = str(tmp_path / "cache")
    ds = OggZipDataset(path=corpus, audio=AUDIO, targets=None, feature_cache=cache)
    fresh = _all_features(ds)
    files = [f for f in os.listdir(os.path.join(cache, ds.feature_cache.options_key)) if f.endswith(".npy")]
    victim = os.path.join(cache, ds.feature_cache.options_key, files[0])
    with open(victim, "wb") as f:
        f.write(b"\x93NUMPY garbage")
    ds2 = OggZipDataset(path=corpus, audio=AUDIO, targets=None, feature_cache=cache)
    _assert_same(_all_features(ds2), fresh)
    assert (ds2.feature_cache.hits, ds2.feature_cache.misses) == (2, 1)
    assert np.load(victim).shape[1] == 40  # written again


def test_bad_feature_cache_values(corpus, tmp_path):
    with pytest.raises(DatasetArgError, match="random_permute"):
        OggZipDataset(path=corpus, audio=dict(AUDIO, random_permute=True), targets=None, feature_cache="memory")
    with pytest.raises(DatasetArgError, match="needs audio features"):
        OggZipDataset(path=corpus, audio=None, targets=None, feature_cache="memory")
    with pytest.raises(DatasetArgError, match="directory path"):
        OggZipDataset(path=corpus, audio=AUDIO, targets=None, feature_cache=True)
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(DatasetArgError, match="cannot create the cache directory"):
        OggZipDataset(path=corpus, audio=AUDIO, targets=None, feature_cache=str(blocker / "sub"))


def _iterate_all(ds):
    out, i = [], 0
    while ds.is_less_than_num_seqs(i):
        ds.load_seqs(i, i + 1)
        out.append((ds.get_tag(i), {k: np.asarray(ds.get_data(i, k)) for k in ds.get_data_keys()}))
        i += 1
    return out


@pytest.mark.parametrize("cache", [None, "disk"])
def test_multi_proc_over_ogg_zip_yields_the_same(tmp_path, cache):
    path = str(tmp_path / "corpus.zip")
    seqs = [("corpus/s%02d" % i, "text %d" % i, 300.0 + 40 * i, 0.2 + 0.05 * (i % 4)) for i in range(9)]
    speech_corpus.write_zip(path, seqs)
    sub = {"class": "OggZipDataset", "path": path, "audio": AUDIO, "targets": {"class": "Utf8ByteTargets"},
           "seq_ordering": "random", "partition_epoch": 2}
    if cache:
        sub["feature_cache"] = str(tmp_path / "cache")
    alone = init_dataset(dict(sub))
    multi = init_dataset({"class": "MultiProcDataset", "dataset": sub, "num_workers": 2, "buffer_size": 2})
    try:
        assert sorted(multi.get_data_keys()) == sorted(alone.get_data_keys()) == ["classes", "data", "orth", "raw"]
        for epoch in (1, 2, 3):
            alone.init_seq_order(epoch=epoch)
            multi.init_seq_order(epoch=epoch)
            expected, got = _iterate_all(alone), _iterate_all(multi)
            assert [t for t, _ in got] == [t for t, _ in expected] and len(got) in (4, 5)
            for (_, g), (_, e) in zip(got, expected):
                for key in e:
                    assert g[key].dtype == e[key].dtype
                    np.testing.assert_array_equal(g[key], e[key])
    finally:
        multi.__del__()
    if cache:
        key_dir = os.path.join(str(tmp_path / "cache"), alone.feature_cache.options_key)
        assert len([f for f in os.listdir(key_dir) if f.endswith(".npy")]) == 9
        shutil.rmtree(str(tmp_path / "cache"))


def _scaled_post_process(factor):
    def post(feature_data, seq_name=None):
        return feature_data * factor
    return post


def test_options_key_covers_function_code_and_closures(corpus, tmp_path):
    from returnn.datasets.util.feature_cache import feature_options_key
    from returnn.datasets.util.feature_extraction import ExtractAudioFeatures

    def key(**opts):
        return feature_options_key(ExtractAudioFeatures(**dict(AUDIO, **opts)))

    assert key(post_process=_scaled_post_process(2.0)) == key(post_process=_scaled_post_process(2.0))  # stable
    assert key(post_process=_scaled_post_process(2.0)) != key(post_process=_scaled_post_process(3.0))  # closure
    assert key(post_process=lambda feature_data, seq_name=None: feature_data + 1) != \
        key(post_process=lambda feature_data, seq_name=None: feature_data + 2)  # code constants
    # and the features follow: the cached ones of another closure value are not reused
    cache = str(tmp_path / "cache")
    a = _all_features(OggZipDataset(path=corpus, audio=dict(AUDIO, post_process=_scaled_post_process(2.0)),
                                    targets=None, feature_cache=cache))
    b = _all_features(OggZipDataset(path=corpus, audio=dict(AUDIO, post_process=_scaled_post_process(3.0)),
                                    targets=None, feature_cache=cache))
    for tag in a:
        np.testing.assert_allclose(b[tag], a[tag] * 1.5, rtol=1e-6)

"""A tiny run of demos/asr-synth/prepare_zip.py: the Ogg zips and the LibriSpeech tree read by OggZipDataset /
LibriSpeechCorpus in the demo's MetaDataset (features + BPE targets), and ctc-greedy-decode.py --bpe."""

import ast
import os
import subprocess
import sys

import numpy as np
import pytest

from tests.demos._demo_modules import ASR_DIR, FORTUNES_DIR, have_espeak, have_fortunes, load_module

PREPARE = os.path.join(ASR_DIR, "prepare_zip.py")
NUM = {"train": 8, "dev": 2, "test": 2}


def _have_subword_nmt() -> bool:
    try:
        import subword_nmt  # noqa: F401  (optional package of the demo)
    except ImportError:
        return False
    return True


needs_data = [
    pytest.mark.skipif(not have_espeak(), reason="espeak-ng not installed (apt-get install espeak-ng)"),
    pytest.mark.skipif(not have_fortunes(), reason="fortunes not installed (apt-get install fortunes)"),
    pytest.mark.skipif(not _have_subword_nmt(), reason="subword-nmt not installed (pip install subword-nmt)"),
]


@pytest.fixture(scope="module")
def prepared(tmp_path_factory):
    out = tmp_path_factory.mktemp("asr-synth-zip")
    proc = subprocess.run([sys.executable, PREPARE, "--out-dir", str(out), "--jobs", "2", "--bpe-merges", "30",
                           "--num-train", str(NUM["train"]), "--num-dev", str(NUM["dev"]), "--num-test",
                           str(NUM["test"]), "--quiet"], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return out


@needs_data[0]
@needs_data[1]
@needs_data[2]
def test_layout_and_meta_dataset(prepared):
    from returnn.datasets import init_dataset

    ft = load_module(os.path.join(ASR_DIR, "fortunes_text.py"), "fortunes_text")
    texts = ft.load_corpus(FORTUNES_DIR)["dev"][:NUM["dev"]]
    refs = [line.split(" ", 1) for line in open(os.path.join(prepared, "dev.txt")).read().splitlines()]
    assert [t for _, t in refs] == texts
    bpe = {"class": "BytePairEncoding", "bpe_file": str(prepared / "bpe.codes"),
           "vocab_file": str(prepared / "bpe.vocab"), "unknown_label": "<unk>"}
    audio = {"features": "log_mel_filterbank", "num_feature_filters": 40,
             "norm_mean": str(prepared / "stats.mean.txt"), "norm_std_dev": str(prepared / "stats.std_dev.txt")}
    ds = init_dataset({
        "class": "MetaDataset",
        "datasets": {"zip": {"class": "OggZipDataset", "path": str(prepared / "dev.zip"), "audio": audio,
                             "targets": None, "seq_ordering": "sorted"},
                     "corpus": {"class": "LibriSpeechCorpus", "path": str(prepared / "librispeech"), "prefix": "dev",
                                "audio": None, "targets": bpe, "orth_post_process": "lowercase"}},
        "data_map": {"data": ("zip", "data"), "classes": ("corpus", "classes")},
        "seq_order_control_dataset": "zip"})
    ds.init_seq_order(epoch=1)
    assert ds.num_seqs == NUM["dev"]
    vocab = ast.literal_eval(open(prepared / "bpe.vocab").read())
    labels = {i: label for label, i in vocab.items()}
    for i in range(ds.num_seqs):
        ds.load_seqs(i, i + 1)
        tag = ds.get_tag(i)
        data, classes = ds.get_data(i, "data"), ds.get_data(i, "classes")
        assert data.shape[1] == 40 and data.dtype == np.float32 and len(data) > 3 * len(classes)
        assert 2 not in classes.tolist()  # no <unk>: every character is a unit
        text = " ".join(labels[c] for c in classes.tolist()).replace("@@ ", "")
        assert text == dict(refs)[tag]
    mean = np.loadtxt(prepared / "stats.mean.txt")
    assert mean.shape == (40,)


def test_ctc_greedy_decode_bpe(tmp_path):
    import h5py

    decode = load_module(os.path.join(ASR_DIR, "ctc-greedy-decode.py"), "ctc_greedy_decode")
    (tmp_path / "bpe.vocab").write_text(repr({"<s>": 0, "</s>": 0, "<unk>": 1, "he@@": 2, "llo": 3, "you": 4}))
    assert decode.read_vocab(str(tmp_path / "bpe.vocab")) == ["<s>", "<unk>", "he@@", "llo", "you"]
    assert decode.labels_to_text(["he@@", "llo", "you"], bpe=True) == "hello you"
    assert decode.labels_to_text(["he@@"], bpe=True) == "he"
    post = np.full((5, 6), 0.01, np.float32)
    post[np.arange(5), [2, 5, 3, 4, 4]] = 0.9  # he@@ _ llo you you -> "hello you"
    with h5py.File(tmp_path / "fwd.hdf", "w") as f:
        f.create_dataset("inputs", data=post)
        f.create_dataset("seqLengths", data=np.array([[5, 0]], np.int32))
        f.create_dataset("seqTags", data=["t/0"], dtype=h5py.string_dtype("utf-8"))
    proc = subprocess.run([sys.executable, os.path.join(ASR_DIR, "ctc-greedy-decode.py"), str(tmp_path / "fwd.hdf"),
                           "--vocab", str(tmp_path / "bpe.vocab"), "--bpe", "--out", str(tmp_path / "h.py")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert ast.literal_eval((tmp_path / "h.py").read_text()) == {"t/0": "hello you"}


def _demo_datasets(prepared, monkeypatch, workers: str, cache: str):
    """The train dataset dict of blstm-ctc-bpe.config for the given ASR_SYNTH_ZIP_WORKERS / _FEATURE_CACHE."""
    from returnn.config import Config

    monkeypatch.setenv("ASR_SYNTH_ZIP_DATA", str(prepared))
    monkeypatch.setenv("ASR_SYNTH_ZIP_WORKERS", workers)
    monkeypatch.setenv("ASR_SYNTH_ZIP_FEATURE_CACHE", cache)
    config = Config()
    config.load_file(os.path.join(ASR_DIR, "blstm-ctc-bpe.config"))
    return config.typed_value("train")


@needs_data[0]
@needs_data[1]
@needs_data[2]
def test_bpe_config_multi_proc_and_feature_cache(prepared, monkeypatch, tmp_path):
    """The demo's default data path (one MultiProcDataset worker, the feature cache) yields, epoch after epoch, the
    sequences of the plain MetaDataset (no worker, no cache)."""
    from returnn.datasets import init_dataset

    plain = _demo_datasets(prepared, monkeypatch, "0", "none")
    assert plain["class"] == "MetaDataset" and "feature_cache" not in plain["datasets"]["zip_dataset"]
    fast = _demo_datasets(prepared, monkeypatch, "1", str(tmp_path / "cache"))
    assert fast["class"] == "MultiProcDataset" and fast["num_workers"] == 1
    assert fast["dataset"]["datasets"]["zip_dataset"]["feature_cache"] == str(tmp_path / "cache")
    ds_plain, ds_fast = init_dataset(plain), init_dataset(fast)
    try:
        for epoch in (1, 2, 3):  # epoch 1 filtered to the short utterances; from epoch 2 on the features are cached
            got = []
            for ds in (ds_plain, ds_fast):
                ds.init_seq_order(epoch=epoch)
                seqs, i = [], 0
                while ds.is_less_than_num_seqs(i):
                    ds.load_seqs(i, i + 1)
                    seqs.append((ds.get_tag(i), ds.get_data(i, "data"), ds.get_data(i, "classes").tolist()))
                    i += 1
                got.append(seqs)
            assert [s[0] for s in got[1]] == [s[0] for s in got[0]] and len(got[0]) > 0
            for (_, d1, c1), (_, d0, c0) in zip(got[1], got[0]):
                np.testing.assert_array_equal(d1, d0)
                assert c1 == c0
        files = [f for _, _, fs in os.walk(tmp_path / "cache") for f in fs if f.endswith(".npy")]
        assert len(files) == NUM["train"]
    finally:
        ds_fast.__del__()

"""A tiny run of demos/asr-synth/prepare.py: HDF layout, shapes, normalization, resume, missing packages."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from tests.demos._demo_modules import ASR_DIR, FORTUNES_DIR, have_espeak, have_fortunes, load_module

PREPARE = os.path.join(ASR_DIR, "prepare.py")

pytestmark = [
    pytest.mark.skipif(not have_espeak(), reason="espeak-ng not installed (apt-get install espeak-ng)"),
    pytest.mark.skipif(not have_fortunes(), reason="fortunes not installed (apt-get install fortunes)"),
]

NUM = {"train": 6, "dev": 2, "test": 2}


def _run(out_dir, *extra, env=None):
    args = [sys.executable, PREPARE, "--out-dir", str(out_dir), "--jobs", "2",
            "--num-train", str(NUM["train"]), "--num-dev", str(NUM["dev"]), "--num-test", str(NUM["test"]), *extra]
    return subprocess.run(args, capture_output=True, text=True, timeout=300, env=env)


@pytest.fixture(scope="module")
def prepared(tmp_path_factory):
    out = tmp_path_factory.mktemp("asr-synth")
    proc = _run(out, "--keep-cache")
    assert proc.returncode == 0, proc.stderr
    return out


def _read_lines(path):
    with open(path) as f:
        return [line.rstrip("\n").split(" ", 1) for line in f]


def test_hdf_layout(prepared):
    import h5py

    ft = load_module(os.path.join(ASR_DIR, "fortunes_text.py"), "fortunes_text")
    corpus = ft.load_corpus(FORTUNES_DIR)
    vocab = open(os.path.join(prepared, "vocab.txt")).read().split("\n")[:-1]
    assert vocab == [" ", "'"] + [chr(c) for c in range(97, 123)]
    for split, n in NUM.items():
        lines = _read_lines(os.path.join(prepared, f"{split}.txt"))
        assert [tag for tag, _ in lines] == [f"{split}/{i:05d}" for i in range(n)]
        assert [text for _, text in lines] == corpus[split][:n]
        with h5py.File(os.path.join(prepared, f"{split}.hdf"), "r") as f:
            lens = f["seqLengths"][()]
            assert lens.shape == (n, 2) and lens.dtype == np.int32
            assert f["inputs"].shape == (lens[:, 0].sum(), 40) and f["inputs"].dtype == np.float32
            assert dict(f.attrs) == {"inputPattSize": 40, "numDims": 1, "numLabels": 40, "numSeqs": n,
                                     "numTimesteps": lens[:, 0].sum()}
            assert [t.decode() for t in f["seqTags"][()]] == [tag for tag, _ in lines]
            assert [x.decode() for x in f["targets/labels/classes"][()]] == vocab
            assert list(f["targets/size"].attrs["classes"]) == [28, 1]
            classes = f["targets/data/classes"][()]
            assert classes.dtype == np.int32 and len(classes) == lens[:, 1].sum()
            offsets = np.concatenate([[0], np.cumsum(lens[:, 1])])
            texts = ["".join(vocab[i] for i in classes[offsets[k] : offsets[k + 1]]) for k in range(n)]
            assert texts == [text for _, text in lines]
            # ~10 ms frames: at 130..190 words/min a sentence of w words lasts roughly 0.3..0.5 s per word
            words = np.array([len(text.split()) for text in texts])
            assert np.all(lens[:, 0] > 15 * words) and np.all(lens[:, 0] < 120 * words + 100)
            if split == "train":
                x = f["inputs"][()]
                np.testing.assert_allclose(x.mean(axis=0), 0.0, atol=1e-3)
                np.testing.assert_allclose(x.std(axis=0), 1.0, atol=1e-3)
    stats = np.loadtxt(os.path.join(prepared, "feature-stats.txt"))
    assert stats.shape == (40, 3)
    info = json.load(open(os.path.join(prepared, "prepare-info.json")))
    assert info["settings"]["num"] == NUM


def test_voices_held_out(prepared):
    voices = {}
    for tag, rest in _read_lines(os.path.join(prepared, "voices.txt")):
        voices.setdefault(tag.split("/")[0], set()).add(rest.split()[0])
    assert not voices["train"] & voices["test"] and not voices["train"] & voices["dev"]


def test_read_with_hdf_dataset(prepared):
    from returnn.datasets.hdf import HDFDataset

    ds = HDFDataset(files=[os.path.join(prepared, "dev.hdf")])
    ds.init_seq_order(epoch=1)
    assert ds.num_seqs == NUM["dev"]
    assert ds.get_data_dim("classes") == 28 and ds.is_data_sparse("classes")
    assert ds.get_data_dim("data") == 40 and not ds.is_data_sparse("data")
    ds.load_seqs(0, 1)
    assert ds.get_data(0, "data").shape[1] == 40
    assert ds.get_tag(0) == "dev/00000"


def test_resume_skips_and_reuses_cache(prepared):
    proc = _run(prepared)
    assert proc.returncode == 0 and "nothing to do" in proc.stderr
    cache = os.path.join(prepared, "cache")
    chunk = os.path.join(cache, "train-0000.npz")
    mtime = os.path.getmtime(chunk)
    before = open(os.path.join(prepared, "test.hdf"), "rb").read()
    os.remove(os.path.join(prepared, "test.hdf"))  # as if interrupted before the last HDF was written
    proc = _run(prepared, "--keep-cache")
    assert proc.returncode == 0, proc.stderr
    assert os.path.getmtime(chunk) == mtime  # chunk reused, not synthesized again
    import h5py

    with h5py.File(os.path.join(prepared, "test.hdf"), "r") as f:
        inputs = f["inputs"][()]
    with open(os.path.join(prepared, "test.hdf.expected"), "wb") as f:
        f.write(before)
    with h5py.File(os.path.join(prepared, "test.hdf.expected"), "r") as f:
        np.testing.assert_array_equal(inputs, f["inputs"][()])


def test_missing_packages_named(tmp_path):
    env = dict(os.environ, PATH=str(tmp_path))  # no espeak-ng on PATH
    proc = _run(tmp_path / "out", env=env)
    assert proc.returncode == 1 and "apt-get install espeak-ng" in proc.stderr
    proc = _run(tmp_path / "out", "--fortunes-dir", str(tmp_path))
    assert proc.returncode == 1 and "apt-get install fortunes" in proc.stderr

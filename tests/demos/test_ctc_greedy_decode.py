"""Tests for demos/asr-synth/ctc-greedy-decode.py: exact greedy CTC collapse, forward-HDF to search-output py."""

import ast
import os
import subprocess
import sys

import numpy as np

from tests.demos._demo_modules import ASR_DIR, REPO_ROOT, load_module

SCRIPT = os.path.join(ASR_DIR, "ctc-greedy-decode.py")
decode = load_module(SCRIPT, "ctc_greedy_decode")


def _one_hot(ids, dim):
    x = np.full((len(ids), dim), 0.01, dtype=np.float32)
    x[np.arange(len(ids)), ids] = 0.9
    return x


def test_ctc_greedy_ids_exact():
    blank = 3
    # frames: a a _ a b b _ _ b  ->  a a b b  (repeats merged, blank separates repeated labels)
    assert decode.ctc_greedy_ids(_one_hot([0, 0, 3, 0, 1, 1, 3, 3, 1], 4), blank) == [0, 0, 1, 1]
    assert decode.ctc_greedy_ids(_one_hot([3, 3, 3], 4), blank) == []
    assert decode.ctc_greedy_ids(np.zeros((0, 4), np.float32), blank) == []
    assert decode.ctc_greedy_ids(_one_hot([2], 4), blank) == [2]


def test_decode_forward_hdf_and_score(tmp_path):
    import h5py

    vocab = [" ", "a", "b"]
    (tmp_path / "vocab.txt").write_text("".join(v + "\n" for v in vocab))
    seqs = {"s/1": [1, 3, 1, 0, 0, 2, 2], "s/0": [3, 2, 3, 3]}  # "a a b" / "b"
    post = np.concatenate([_one_hot(ids, 4) for ids in seqs.values()])
    with h5py.File(tmp_path / "fwd.hdf", "w") as f:
        f.create_dataset("inputs", data=post)
        f.create_dataset("seqLengths", data=np.array([[len(v), 0] for v in seqs.values()], np.int32))
        f.create_dataset("seqTags", data=list(seqs), dtype=h5py.string_dtype("utf-8"))
    out = tmp_path / "hyp.py"
    proc = subprocess.run([sys.executable, SCRIPT, str(tmp_path / "fwd.hdf"), "--vocab", str(tmp_path / "vocab.txt"),
                           "--out", str(out)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert out.read_text() == "{\n's/1': 'aa b',\n's/0': 'b',\n}\n"
    assert ast.literal_eval(out.read_text()) == {"s/1": "aa b", "s/0": "b"}
    # the WER tool reads it: ref "a a b" vs hyp "aa b": words 1 sub + 1 del of 3; chars 1 del of 5
    (tmp_path / "ref.txt").write_text("s/0 b\ns/1 a a b\n")
    proc = subprocess.run([sys.executable, os.path.join(REPO_ROOT, "tools", "calculate-word-error-rate.py"),
                           "--refs", str(tmp_path / "ref.txt"), "--hyps", str(out)],
                          capture_output=True, text=True, timeout=60)
    assert proc.stdout.splitlines() == [
        "WER: 50.00 % (2 errors / 4 words: 1 sub, 1 del, 0 ins), 2 seqs",
        "CER: 16.67 % (1 errors / 6 chars: 0 sub, 1 del, 0 ins), 2 seqs",
    ]


def test_label_dim_mismatch(tmp_path):
    import h5py

    (tmp_path / "vocab.txt").write_text("a\nb\n")
    with h5py.File(tmp_path / "fwd.hdf", "w") as f:
        f.create_dataset("inputs", data=np.zeros((2, 5), np.float32))
        f.create_dataset("seqLengths", data=np.array([[2, 0]], np.int32))
        f.create_dataset("seqTags", data=["x"], dtype=h5py.string_dtype("utf-8"))
    proc = subprocess.run([sys.executable, SCRIPT, str(tmp_path / "fwd.hdf"), "--vocab", str(tmp_path / "vocab.txt"),
                           "--out", str(tmp_path / "o.py")], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and "expected [frames, 3]" in proc.stderr
    assert not (tmp_path / "o.py").exists()

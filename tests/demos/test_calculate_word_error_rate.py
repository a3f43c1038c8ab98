"""Tests for tools/calculate-word-error-rate.py: exact WER/CER on hand-made files, formats, bad input."""

import gzip
import os
import subprocess
import sys

import pytest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(REPO_ROOT, "tools", "calculate-word-error-rate.py")


def _run(*args):
    proc = subprocess.run([sys.executable, TOOL, *args], capture_output=True, text=True, timeout=60)
    return proc.returncode, proc.stdout, proc.stderr


@pytest.fixture
def files(tmp_path):
    refs = tmp_path / "refs.txt"
    refs.write_text(
        "# comment\n"
        "test/00000 the cat sat on the mat\n"
        "\n"
        "test/00001 hello big world\n"
        "test/00002\tgood day\n"
    )
    hyps = tmp_path / "hyps.py"
    # search output py format: {seq_tag: hyp}
    hyps.write_text(
        "{\n'test/00000': 'the cat sit on the mat',\n'test/00001': 'hello world',\n'test/00002': 'good day sir',\n}\n"
    )
    return str(refs), str(hyps), tmp_path


def test_exact_values(files):
    refs, hyps, _ = files
    rc, out, err = _run("--refs", refs, "--hyps", hyps)
    assert rc == 0, err
    # words: sat->sit (1 sub / 6), "big" deleted (1 del / 3), "sir" inserted (1 ins / 2) -> 3 / 11
    # chars: a->i (1 sub / 22), "big " deleted (4 del / 15), " sir" inserted (4 ins / 8) -> 9 / 45
    assert out.splitlines() == [
        "WER: 27.27 % (3 errors / 11 words: 1 sub, 1 del, 1 ins), 3 seqs",
        "CER: 20.00 % (9 errors / 45 chars: 1 sub, 4 del, 4 ins), 3 seqs",
    ]


def test_dict_refs_nbest_hyps_and_gz(files):
    _, _, tmp = files
    refs = tmp / "refs.py"
    refs.write_text(repr({"a": "one two three", "b": "four"}))
    hyps = tmp / "hyps.py.gz"
    with gzip.open(hyps, "wt") as f:
        f.write(repr({"a": [(-1.5, "one two three"), (-2.0, "one too three")], "b": ["for"]}))
    rc, out, err = _run("--refs", str(refs), "--hyps", str(hyps), "--per-seq")
    assert rc == 0, err
    lines = out.splitlines()
    assert lines[0] == "a: WER 0.00 % (0/3), CER 0.00 % (0/13)"
    assert lines[1] == "b: WER 100.00 % (1/1), CER 25.00 % (1/4)"
    assert lines[2] == "WER: 25.00 % (1 errors / 4 words: 1 sub, 0 del, 0 ins), 2 seqs"


def test_missing_hyp_skipped_or_error(files):
    refs, _, tmp = files
    hyps = tmp / "partial.py"
    hyps.write_text("{'test/00001': 'hello world', 'test/00002': 'good day'}")
    rc, out, err = _run("--refs", refs, "--hyps", str(hyps))
    assert rc == 0
    assert "1 reference seqs without hypothesis" in err
    assert out.splitlines()[0] == "WER: 20.00 % (1 errors / 5 words: 0 sub, 1 del, 0 ins), 2 seqs"
    rc, out, err = _run("--refs", refs, "--hyps", str(hyps), "--expect-full")
    assert rc == 1
    assert "'test/00000'" in err and "no hypothesis" in err


def test_bad_input(files):
    refs, _, tmp = files
    hyps = tmp / "bad.py"
    hyps.write_text("{'unknown/1': 'x'}")
    rc, _, err = _run("--refs", refs, "--hyps", str(hyps))
    assert rc == 1 and "'unknown/1'" in err and "not in the reference" in err
    hyps.write_text("{'test/00000': 'x',")
    rc, _, err = _run("--refs", refs, "--hyps", str(hyps))
    assert rc == 1 and "not a valid Python dict literal" in err
    rc, _, err = _run("--refs", str(tmp / "nonexistent.txt"), "--hyps", str(hyps))
    assert rc == 1 and "cannot read" in err

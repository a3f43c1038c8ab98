"""Tests for tools/plot-learning-curve.py: exact table from a hand-written learning_rate_file, PNG or hint."""

import os
import subprocess
import sys

from tests.demos._demo_modules import REPO_ROOT

TOOL = os.path.join(REPO_ROOT, "tools", "plot-learning-curve.py")

LR_FILE = """{
1: EpochData(learningRate=0.001, error={
':meta:effective_learning_rate': np.float32(0.001),
':meta:epoch_num_train_steps': 8,
'dev_error': 0.9764065146446228,
'dev_score': 4.921053886413574,
'train_score': 6.102222919464111,
}),
2: EpochData(learningRate=0.0007, error={'dev_error': 0.5, 'dev_score': 2.5}),
}
"""


def _run(*args):
    return subprocess.run([sys.executable, TOOL, *args], capture_output=True, text=True, timeout=120)


def test_table(tmp_path):
    path = tmp_path / "newbob.data"
    path.write_text(LR_FILE)
    proc = _run(str(path), "--table", "--percent-errors")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == (
        "| epoch | learning rate | dev_error (%) | dev_score | train_score |\n"
        "|---|---|---|---|---|\n"
        "| 1 | 0.001 | 97.64 | 4.9211 | 6.1022 |\n"
        "| 2 | 0.0007 | 50.00 | 2.5000 |  |\n"
    )
    proc = _run(str(path), "--table", "--keys", "dev_score")
    assert proc.stdout.splitlines()[2] == "| 1 | 0.001 | 4.9211 |"


def test_png_or_install_hint(tmp_path):
    path = tmp_path / "newbob.data"
    path.write_text(LR_FILE)
    out = tmp_path / "curve.png"
    proc = _run(str(path), "--out", str(out))
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert proc.returncode == 2 and "pip install matplotlib" in proc.stderr
        assert not out.exists()
    else:
        assert proc.returncode == 0, proc.stderr
        assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_bad_input(tmp_path):
    path = tmp_path / "newbob.data"
    path.write_text(LR_FILE)
    proc = _run(str(path), "--table", "--keys", "dev_scor")
    assert proc.returncode == 1 and "'dev_scor'" in proc.stderr and "dev_score" in proc.stderr
    path.write_text("{1: EpochData(learningRate=0.1, error={")
    proc = _run(str(path), "--table")
    assert proc.returncode == 1 and "newbob.data" in proc.stderr

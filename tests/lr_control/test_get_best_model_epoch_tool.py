"""tools/get-best-model-epoch.py on learning_rate_files."""

import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(os.path.dirname(os.path.dirname(HERE)), "tools", "get-best-model-epoch.py")
CONTENT = """{
1: EpochData(learningRate=0.01, error={
':meta:epoch_num_train_steps': 5,
'dev_error': 0.2,
'dev_score': 0.9,
'train_score': 1.5,
}),
2: EpochData(learningRate=0.01, error={
'dev_error': 0.1,
'dev_score': 0.7,
'train_score': 1.0,
}),
3: EpochData(learningRate=0.005, error={
'dev_error': 0.15,
'dev_score': 0.6,
'train_score': 0.5,
}),
4: EpochData(learningRate=0.005, error={}),
}
"""


def run_tool(*args):
    proc = subprocess.run([sys.executable, TOOL, *args], capture_output=True, text=True, timeout=120)
    return proc.returncode, proc.stdout, proc.stderr


def test_best_epoch(tmp_path):
    filename = str(tmp_path / "lr.txt")
    with open(filename, "w") as f:
        f.write(CONTENT)
    assert run_tool(filename)[:2] == (0, "3\n")
    assert run_tool(filename, "--key", "dev_error")[:2] == (0, "2\n")
    assert run_tool(filename, "--key", "dev_error", "--print-score")[:2] == (0, "2 dev_error 0.1\n")
    assert run_tool(filename, "--last-epoch", "2")[:2] == (0, "2\n")
    open(str(tmp_path / "model.002.index"), "w").close()
    open(str(tmp_path / "model.001.index"), "w").close()
    assert run_tool(filename, "--model", str(tmp_path / "model"))[:2] == (0, "2\n")


def test_reference_file():
    assert run_tool(os.path.join(HERE, "reference_learning_rate_file.txt"))[:2] == (0, "3\n")


def test_unknown_key_and_bad_file(tmp_path):
    filename = str(tmp_path / "lr.txt")
    with open(filename, "w") as f:
        f.write(CONTENT)
    code, out, err = run_tool(filename, "--key", "dev_eror")
    assert code == 1 and out == ""
    assert "'dev_eror'" in err and "did you mean: 'dev_error'" in err and "dev_score" in err
    with open(filename, "w") as f:
        f.write(CONTENT[:40])
    code, out, err = run_tool(filename)
    assert code == 1 and filename in err and "truncated" in err
    code, out, err = run_tool(str(tmp_path / "missing.txt"))
    assert code == 1 and "missing.txt" in err

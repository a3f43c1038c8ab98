"""The demo configs end to end with ./rnn.py on tiny data (a few sentences, a few epochs).

ASR: prepare 8/3/3 sentences, train 3 epochs, the training CTC loss decreases, forward the test set, decode
greedily into the search-output py format, score it with the WER tool and the per-epoch table script. LM: prepare a small text, train 3
sub-epochs, the dev score decreases from the first epoch and is below log(75) (uniform guessing).
"""

import ast
import math
import os
import subprocess
import sys

import pytest

from tests.demos._demo_modules import ASR_DIR, LM_DIR, REPO_ROOT, have_espeak, have_fortunes

needs_fortunes = pytest.mark.skipif(not have_fortunes(), reason="fortunes not installed (apt-get install fortunes)")
needs_espeak = pytest.mark.skipif(not have_espeak(), reason="espeak-ng not installed (apt-get install espeak-ng)")


def _run(args, env=None, timeout=600):
    proc = subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=timeout, cwd=REPO_ROOT,
                          env=dict(os.environ, **(env or {})))
    assert proc.returncode == 0, (proc.stdout[-3000:], proc.stderr[-3000:])
    return proc


def _lr_file(path):
    from returnn.lr_control.file_format import read_learning_rate_file

    return read_learning_rate_file(path)


@needs_fortunes
@needs_espeak
def test_asr_pipeline(tmp_path):
    data, out = tmp_path / "data", tmp_path / "out"
    _run([os.path.join(ASR_DIR, "prepare.py"), "--out-dir", str(data), "--num-train", "8", "--num-dev", "3",
          "--num-test", "3", "--quiet"])
    env = {"ASR_SYNTH_DATA": str(data), "ASR_SYNTH_OUT": str(out)}
    config = os.path.join("demos", "asr-synth", "blstm-ctc.config")
    _run(["rnn.py", config, "++num_epochs", "3", "++learning_rate", "0.003", "++log_verbosity", "3"], env=env)
    epochs = _lr_file(str(out / "newbob.data"))
    assert sorted(epochs) == [1, 2, 3]
    scores = [epochs[e].error["train_score"] for e in (1, 2, 3)]
    assert scores[2] < scores[0], scores
    for e in (1, 2, 3):
        assert 0.0 <= epochs[e].error["dev_error"] <= 1.0 + 1e-6 and math.isfinite(epochs[e].error["dev_score"])
    _run(["rnn.py", config, "++task", "forward", "++load_epoch", "3", "++log_verbosity", "3"], env=env)
    _run([os.path.join(ASR_DIR, "ctc-greedy-decode.py"), str(out / "forward.test.hdf"), "--vocab",
          str(data / "vocab.txt"), "--out", str(out / "search.test.py")])
    hyps = ast.literal_eval((out / "search.test.py").read_text())
    assert sorted(hyps) == ["test/00000", "test/00001", "test/00002"]
    assert all(isinstance(h, str) and set(h) <= set(" 'abcdefghijklmnopqrstuvwxyz") for h in hyps.values())
    proc = _run([os.path.join(REPO_ROOT, "tools", "calculate-word-error-rate.py"), "--refs", str(data / "test.txt"),
                 "--hyps", str(out / "search.test.py"), "--expect-full"])
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("WER: ") and lines[1].startswith("CER: ") and lines[1].endswith("3 seqs")
    # the per-epoch table: epoch 3 decoded again by score-epochs.py, same WER/CER as the WER tool's
    _run([os.path.join(ASR_DIR, "score-epochs.py"), "--epochs", "3"], env=env)
    rows = [r.split("|")[1:-1] for r in (out / "epochs.md").read_text().splitlines()[2:]]
    assert [int(r[0]) for r in rows] == [1, 2, 3]
    assert [c.strip() for c in rows[2][6:8]] == [lines[1].split()[1] + " %", lines[0].split()[1] + " %"]
    assert rows[0][6].strip() == "" and rows[0][4].strip().endswith("%")  # epochs not asked for: LR file only
    # an HDF whose label dim disagrees with the config: one clear error naming the key and both dims
    bad = tmp_path / "bad-dim.config"
    bad.write_text(f"#!rnn.py\nexec(open({os.path.join(REPO_ROOT, config)!r}).read())\n"
                   "extern_data['classes']['dim'] = 30\n")
    proc = subprocess.run([sys.executable, "rnn.py", str(bad), "++num_epochs", "1"], capture_output=True, text=True,
                          timeout=300, cwd=REPO_ROOT, env=dict(os.environ, **env))
    assert proc.returncode != 0
    message = proc.stdout + proc.stderr
    assert "extern_data['classes']" in message and "30" in message and "28" in message


@needs_fortunes
def test_lm_pipeline(tmp_path):
    data, out = tmp_path / "data", tmp_path / "out"
    _run([os.path.join(LM_DIR, "prepare.py"), "--out-dir", str(data), "--num-train", "200", "--num-dev", "20"])
    env = {"LM_FORTUNES_DATA": str(data), "LM_FORTUNES_OUT": str(out)}
    _run(["rnn.py", os.path.join("demos", "lm-fortunes", "char-lstm.config"), "++num_epochs", "3",
          "++log_verbosity", "3"], env=env)
    epochs = _lr_file(str(out / "newbob.data"))
    assert sorted(epochs) == [1, 2, 3]
    dev = [epochs[e].error["dev_score"] for e in (1, 2, 3)]
    assert dev[2] < dev[0] and dev[2] < math.log(75), dev

"""demos/rf-conformer-aed end to end with ./rnn.py on tiny data: prepare 8/3/3 sentences (demos/asr-synth),
train one epoch of a small version (RF_AED_SMALL) with backend "tensorflow" (CTC and decoder cross-entropy losses in the learning-rate file), then
the rf beam search through forward_step + forward_callback writes one hypothesis per test sequence in the search
output py format, which the WER tool scores."""

import ast
import math
import os
import subprocess
import sys

import pytest

from tests.demos._demo_modules import ASR_DIR, REPO_ROOT, have_espeak, have_fortunes

CONFIG = os.path.join("demos", "rf-conformer-aed", "conformer-aed.config")


def _run(args, env=None, timeout=600):
    proc = subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=timeout, cwd=REPO_ROOT,
                          env=dict(os.environ, **(env or {})))
    assert proc.returncode == 0, (proc.stdout[-3000:], proc.stderr[-3000:])
    return proc


@pytest.mark.skipif(not (have_espeak() and have_fortunes()), reason="needs espeak-ng and fortunes (apt-get install)")
def test_rf_conformer_aed_train_and_recognize(tmp_path):
    from returnn.lr_control.file_format import read_learning_rate_file
    data, out = tmp_path / "data", tmp_path / "out"
    _run([os.path.join(ASR_DIR, "prepare.py"), "--out-dir", str(data), "--num-train", "8", "--num-dev", "3",
          "--num-test", "3", "--quiet"])
    env = {"ASR_SYNTH_DATA": str(data), "RF_AED_OUT": str(out), "RF_AED_MAX_HYP_LEN": "12", "RF_AED_SMALL": "1"}
    _run(["rnn.py", CONFIG, "++num_epochs", "1", "++log_verbosity", "3"], env=env)
    epochs = read_learning_rate_file(str(out / "newbob.data"))
    assert sorted(epochs) == [1]
    scores = epochs[1].error
    for key in ("train_score_ce", "train_score_ctc", "dev_score_ce", "dev_score_ctc"):
        assert math.isfinite(scores[key]) and scores[key] > 0, (key, scores)
    _run(["rnn.py", CONFIG, "++task", "forward", "++load_epoch", "1", "++log_verbosity", "3"], env=env)
    hyps = ast.literal_eval((out / "search.test.py").read_text())
    assert sorted(hyps) == ["test/00000", "test/00001", "test/00002"]
    assert all(isinstance(h, str) and len(h) <= 12 and set(h) <= set(" 'abcdefghijklmnopqrstuvwxyz")
               for h in hyps.values())
    proc = _run([os.path.join(REPO_ROOT, "tools", "calculate-word-error-rate.py"), "--refs", str(data / "test.txt"),
                 "--hyps", str(out / "search.test.py"), "--expect-full"])
    assert proc.stdout.splitlines()[1].startswith("CER: ")

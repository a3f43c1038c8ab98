"""A real SIGINT/SIGTERM during epoch 2: the epoch is abandoned, model.001 stays the last checkpoint, and a
rerun resumes at epoch 2."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

SCRIPT = textwrap.dedent("""
    import sys, time, pathlib
    sys.path.insert(0, {repo!r})
    from tests.tf.engine import standin
    from tests.tf.engine.test_training import make_config, run_task
    from returnn.tf.engine.state import StopSignal

    standin.install(standin.PermanentPatch())
    orig = StopSignal.requested

    def slow_stop_requested(self):  # make each step take a while so the signal lands mid-epoch
        time.sleep({delay!r})
        return orig(self)

    StopSignal.requested = slow_stop_requested
    run_task(make_config(pathlib.Path({tmp!r}), num_epochs=3, max_seqs=1))
""")


def _start(tmp_path, delay):
    script = SCRIPT.format(repo=REPO, tmp=str(tmp_path), delay=delay)
    return subprocess.Popen([sys.executable, "-u", "-c", script], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2"))


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_signal_abandons_epoch_and_rerun_resumes(tmp_path, signum):
    proc = _start(tmp_path, delay=0.05)
    lines = []
    deadline = time.time() + 240
    for line in proc.stdout:
        lines.append(line)
        if line.startswith("train epoch 2, step 3,"):
            proc.send_signal(signum)
            break
        assert time.time() < deadline
    out = "".join(lines) + proc.stdout.read()
    rc = proc.wait(timeout=120)
    assert rc != 0
    assert "Training stopped in epoch 2" in out, out[-3000:]
    assert "the last complete checkpoint is" in out
    models = tmp_path / "models"
    assert os.path.exists(models / "model.001.index")
    assert not os.path.exists(models / "model.002.index")
    if signum != signal.SIGINT:
        return
    proc = _start(tmp_path, delay=0.0)
    out = proc.communicate(timeout=240)[0]
    assert proc.returncode == 0, out[-3000:]
    assert "start training at epoch 2" in out and "Finished training in epoch 3." in out

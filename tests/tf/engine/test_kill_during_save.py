"""kill -9 while epoch 2's checkpoint is being renamed into place: the next run resumes at epoch 2."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

SCRIPT = textwrap.dedent("""
    import os, signal, sys
    sys.path.insert(0, {repo!r})
    from tests.tf.engine import standin
    from tests.tf.engine.test_training import make_config, run_task
    import pathlib

    standin.install(standin.PermanentPatch())
    if {kill!r}:
        from returnn.tf.engine import checkpoints
        real_replace = os.replace

        class OsProxy:
            def __getattr__(self, name):
                return getattr(os, name)

            def replace(self, src, dst):
                if dst.endswith("model.002.index"):
                    os.kill(os.getpid(), signal.SIGKILL)
                return real_replace(src, dst)

        checkpoints.os = OsProxy()
    run_task(make_config(pathlib.Path({tmp!r}), num_epochs=3))
""")


def _run(tmp_path, kill):
    script = SCRIPT.format(repo=REPO, kill=kill, tmp=str(tmp_path))
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2"))


def test_kill_9_during_save_then_resume(tmp_path):
    proc = _run(tmp_path, kill=True)
    assert proc.returncode == -signal.SIGKILL, proc.stdout[-2000:] + proc.stderr[-2000:]
    models = tmp_path / "models"
    assert os.path.exists(models / "model.001.index")
    assert not os.path.exists(models / "model.002.index")
    proc = _run(tmp_path, kill=False)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "start training at epoch 2" in proc.stdout
    assert "Finished training in epoch 3." in proc.stdout
    assert os.path.exists(models / "model.003.index")

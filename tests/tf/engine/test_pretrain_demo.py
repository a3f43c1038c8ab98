"""demos/demo-tf-pretrain-grow.config: killed (SIGKILL) during a pretrain epoch, the rerun goes on with the network of
that epoch and trains through the growth epochs into the full network."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
DEMO = os.path.join(ROOT, "demos", "demo-tf-pretrain-grow.config")


def _cmd(model):
    return [sys.executable, os.path.join(ROOT, "rnn.py"), DEMO, "++model", model, "++num_epochs", "5",
            "++log_verbosity", "5", "++device", "cpu", "++dev", "{'class': 'Task12AXDataset', 'num_seqs': 10}",
            "++train", "{'class': 'Task12AXDataset', 'num_seqs': 200, 'fixed_random_seed': 1}"]


def _env():
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    env.pop("PYTHONPATH", None)
    return env


def test_demo_killed_in_pretrain_epoch_resumes(tmp_path):
    model = str(tmp_path / "model")
    proc = subprocess.Popen(_cmd(model), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=_env(),
                            cwd=ROOT)
    first = []
    for line in proc.stdout:
        first.append(line)
        if line.startswith("pretrain epoch 3, step 0,"):  # the 2-layer network is training
            os.kill(proc.pid, signal.SIGKILL)
            break
    proc.wait()
    first = "".join(first)
    assert proc.returncode == -signal.SIGKILL, first[-3000:]
    assert "Update config key 'batch_size' for epoch 1: 4000 -> 1000" in first
    assert os.path.exists(model + ".pretrain.002.index") and not os.path.exists(model + ".pretrain.003.index")

    out = subprocess.run(_cmd(model), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=_env(),
                         cwd=ROOT, timeout=600).stdout
    assert "Finished training in epoch 5." in out, out[-3000:]
    loading = out.index("loading weights from %s.pretrain.002" % model)
    assert out.index("start training at epoch 3") > loading
    # epoch 3: the second BLSTM layer is added and the first one widened (params carried over as 'subset')
    reinit = out.index("reinit because network description differs. Diff:\ndict diff:\n  key 'lstm1_bw' not in self\n"
                       "  key 'lstm1_fw' not in self\n")
    assert loading < reinit < out.index("start pretrain epoch 3 with learning rate")
    assert "Update config key 'batch_size' for epoch 3: 4000 -> 2000" in out
    assert ("Param <tf.Variable 'lstm0_fw/rec/W_re:0' shape=(12, 48) dtype=float32>: transform old values of shape "
            "parts [[8], [8, 8, 8, 8]] into new shape parts [[12], [12, 12, 12, 12]].") in out
    # epoch 5: the final network (3 layers, full width), and the batch size of the config again
    assert "  key '#config' not in other\n  key '#copy_param_mode' not in other\n  key '#info' not in other\n" in out
    assert "layer rec 'lstm2_fw' #: 16" in out
    for name in ("pretrain.001", "pretrain.002", "pretrain.003", "pretrain.004", "pretrain.005"):
        assert os.path.exists("%s.%s.index" % (model, name))

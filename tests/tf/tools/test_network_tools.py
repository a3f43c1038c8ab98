"""tools/dump-network-json.py, tools/dump-forward.py, tools/dump-forward-stats.py on a small model the test
initialises (``task = "initialize_model"``): the printed lines and written files as observed from the reference's
tools on the same config, the values against numpy from the checkpoint."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys

import numpy as np
import pytest
import tensorflow as tf

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

CONFIG = """#!rnn.py
use_tensorflow = True
task = "initialize_model"
train = {"class": "Task12AXDataset", "num_seqs": 4, "fixed_random_seed": 5}
num_inputs = 9
num_outputs = 2
batch_size = 500
network = {
    "hidden": {"class": "linear", "activation": "tanh", "n_out": 3, "from": "data", "dropout": 0.5},
    "output": {"class": "softmax", "loss": "ce", "from": "hidden"},
}
model = %(model)r
log_verbosity = 3
"""

#: ``dump-network-json.py`` of that config, as the reference prints it
NETWORK_JSON = """{
  "hidden": {
    "activation": "tanh",
    "class": "linear",
    "dropout": 0.5,
    "from": "data",
    "n_out": 3
  },
  "output": {
    "class": "softmax",
    "from": "hidden",
    "loss": "ce"
  }
}
"""


@pytest.fixture(scope="module")
def model_config(tmp_path_factory):
    """A config file and its checkpoint ``<model>.001`` (initialize_model), as training epoch 1 would leave it."""
    from returnn.config import Config
    from returnn.log import log
    from returnn.tasks import run_task

    tmp = tmp_path_factory.mktemp("nettools")
    model = str(tmp / "net")
    path = tmp / "tiny.config"
    path.write_text(CONFIG % {"model": model})
    config = Config()
    config.load_file(str(path))
    config.set("model", model + ".001")
    log.init_by_config(config)
    run_task(config, "initialize_model")
    return str(path), model + ".001"


def _numpy_forward(checkpoint, x):
    reader = tf.compat.v1.train.NewCheckpointReader(checkpoint)
    hidden = np.tanh(x.astype(np.float64) @ reader.get_tensor("hidden/W") + reader.get_tensor("hidden/b"))
    logits = hidden @ reader.get_tensor("output/W") + reader.get_tensor("output/b")
    e = np.exp(logits - logits.max(-1, keepdims=True))
    return hidden, e / e.sum(-1, keepdims=True)


def _train_seqs():
    from returnn.datasets import init_dataset

    ds = init_dataset({"class": "Task12AXDataset", "num_seqs": 4, "fixed_random_seed": 5})
    ds.init_seq_order(epoch=1)
    ds.load_seqs(0, 4)
    return [(ds.get_data(i, "data"), ds.get_data(i, "classes")) for i in range(4)]


def test_dump_network_json_as_reference(model_config, tmp_path):
    from returnn.tf.tools.network_json import dump_network_json

    out = io.StringIO()
    assert dump_network_json(model_config[0], stdout=out) == NETWORK_JSON
    assert out.getvalue() == NETWORK_JSON
    dump_network_json(model_config[0], out=str(tmp_path / "net.json"))
    assert (tmp_path / "net.json").read_text() == NETWORK_JSON


def test_dump_network_json_pretrain_epoch_and_bad_values(tmp_path):
    from returnn.errors import ConfigValueError
    from returnn.tf.tools.network_json import dump_network_json

    config = tmp_path / "pre.config"
    config.write_text(
        "#!rnn.py\nnum_inputs = 9\nnum_outputs = 2\npretrain = 'default'\nnetwork = {\n"
        " 'l1': {'class': 'linear', 'activation': 'tanh', 'n_out': 5, 'from': ['data']},\n"
        " 'l2': {'class': 'linear', 'activation': 'tanh', 'n_out': 5, 'from': ['l1']},\n"
        " 'output': {'class': 'softmax', 'loss': 'ce', 'from': ['l2']}}\n")
    # as the reference: epoch 1 of the default pretrain has l1 and output only, epoch 2 all three
    assert sorted(json.loads(dump_network_json(str(config), stdout=io.StringIO()))) == ["l1", "output"]
    assert sorted(json.loads(dump_network_json(str(config), epoch=2, stdout=io.StringIO()))) == [
        "l1", "l2", "output"]
    bad = tmp_path / "bad.config"
    bad.write_text("#!rnn.py\nnetwork = {'output': {'class': 'eval', 'eval': lambda source, **kw: source(0)}}\n")
    with pytest.raises(ConfigValueError, match=r"network\['output'\]\['eval'\] \(function"):
        dump_network_json(str(bad), stdout=io.StringIO())


def test_dump_network_json_cli_stdout_is_the_json(model_config):
    env = dict(os.environ, PYTHONPATH=REPO_ROOT, TF_CPP_MIN_LOG_LEVEL="3")
    proc = subprocess.run([sys.executable, os.path.join(REPO_ROOT, "tools", "dump-network-json.py"),
                           model_config[0]], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == NETWORK_JSON
    assert "RETURNN dump-dataset starting up." in proc.stderr


def test_dump_forward_lines_and_values(model_config, capsys):
    from returnn.tf.tools.forward_dump import dump_forward

    out = io.StringIO()
    result = dump_forward(model_config[0], endseq=1, stdout=out)
    lines = out.getvalue().splitlines()
    # the keys and size lines as the reference's tool prints them for this config (observed)
    assert lines[:2] == ["Epoch: 1", "Seq idx: 0"]
    keys = [line.split(": ")[0] for line in lines if line.startswith("  ") and not line.startswith("   ")]
    per_seq = ["  data:classes:out", "  data:classes:shape(1)", "  data:out", "  data:shape(1)", "  hidden:out",
               "  hidden:shape(1)", "  output:out", "  output:shape(1)"]
    assert keys == per_seq * 2
    assert "  data:shape(1): array([44], dtype=int32), shape=(1,)" in lines
    assert "  output:shape(1): array([93], dtype=int32), shape=(1,)" in lines
    assert lines[-1] == "Done. More seqs which we did not dumped: True"
    assert result.more and sorted(result.seqs) == [0, 1]
    # a long value is cut to 300 characters: 297 and "...", then the shape
    assert "..., shape=(1, 44, 9)\n  data:shape(1)" in out.getvalue()
    seqs = _train_seqs()
    for seq_idx in (0, 1):
        x, y = seqs[seq_idx]
        hidden, probs = _numpy_forward(model_config[1], x)
        values = result.seqs[seq_idx]
        np.testing.assert_array_equal(values["data:out"][0], x)
        np.testing.assert_array_equal(values["data:classes:out"][0], y)
        np.testing.assert_allclose(values["hidden:out"][0], hidden, rtol=1e-5, atol=1e-6)  # no dropout
        np.testing.assert_allclose(values["output:out"][0], probs, rtol=1e-5, atol=1e-6)


def test_dump_forward_to_the_end(model_config):
    from returnn.tf.tools.forward_dump import dump_forward

    out = io.StringIO()
    result = dump_forward(model_config[0], startseq=3, endseq=-1, epoch=4, stdout=out)
    lines = out.getvalue().splitlines()
    assert lines[:2] == ["Epoch: 4", "Seq idx: 3"]
    assert lines[-1] == "Done. More seqs which we did not dumped: False"
    assert sorted(result.seqs) == [3] and not result.more


def test_format_value_cuts_long_reprs():
    from returnn.tf.tools.forward_dump import format_value

    short = np.array([84], dtype="int32")
    assert format_value(short) == "array([84], dtype=int32), shape=(1,)"
    long = np.zeros((1, 84), dtype="int32")
    text = format_value(long)
    assert text == repr(long)[:297] + "..., shape=(1, 84)"


def test_dump_forward_stats(model_config, tmp_path, capsys):
    from returnn.tf.tools.forward_stats import forward_stats

    prefix = str(tmp_path / "st")
    stats = forward_stats(model_config[0], layer="hidden", reset_seq_ordering="default", dump_stats=prefix)
    out = capsys.readouterr().out
    frames = np.concatenate([_numpy_forward(model_config[1], x)[0] for x, _ in _train_seqs()])
    assert stats.num_seqs == 4 and stats.total_data_len == len(frames)
    np.testing.assert_allclose(stats.get_mean(), frames.mean(0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(stats.get_std_dev(), frames.std(0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.loadtxt(prefix + ".min.txt"), frames.min(0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.loadtxt(prefix + ".max.txt"), frames.max(0), rtol=1e-5, atol=1e-6)
    assert open(prefix + ".info.txt").read() == '{\n"num_seqs": 4,\n"total_data_len": %i,\n}\n' % len(frames)
    for line in ["NOTE: We are resetting partition epoch to 1.", "NOTE: We will use 'default' seq ordering.",
                 "Load model: %s" % model_config[1], "Epoch: 1", "Layer 'hidden' Stats:",
                 "  4 seqs, %i total frames, %f average frames" % (len(frames), len(frames) / 4)]:
        assert line in out.splitlines()


def test_dump_forward_stats_unknown_layer(model_config, capsys):
    from returnn.errors import ConfigValueError
    from returnn.tf.tools.forward_stats import forward_stats

    with pytest.raises(ConfigValueError, match="(?s)hiden.*did you mean.*hidden"):
        forward_stats(model_config[0], layer="hiden", reset_seq_ordering="default")


def _tool(name):
    import importlib.util

    spec = importlib.util.spec_from_file_location(name.replace("-", "_"), os.path.join(REPO_ROOT, "tools", name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_scripts_take_the_reference_arguments(model_config, tmp_path, capsys):
    _tool("dump-forward").main([model_config[0], "--epoch", "2", "--startseq", "1", "--endseq", "1"])
    out = capsys.readouterr().out
    assert "Epoch: 2\nSeq idx: 1\n" in out and "Done. More seqs which we did not dumped: True" in out
    prefix = str(tmp_path / "s")
    _tool("dump-forward-stats").main([model_config[0], "--layer", "output", "--reset_seq_ordering", "default",
                                      "--stats", "--dump_stats", prefix, "--load", model_config[1]])
    out = capsys.readouterr().out
    assert "Layer 'output' Stats:\n  4 seqs, " in out
    assert np.loadtxt(prefix + ".mean.txt").shape == (2,)

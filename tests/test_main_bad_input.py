"""Bad input a new user tries ends in one clear message from ``rnn.py`` (a ``ReturnnError`` naming the layer or
config key, what was expected and what was found; no Python traceback at the default verbosity).

Observed from the reference (same configs): ``n_out = -3`` fails with TensorFlow's ``ValueError: Dimension -3 must
be >= 0``; ``extern_data = {"data": {"dim": "x"}}`` with ``TypeError: unexpected dimension type: <class 'str'>``; a
``combine`` of dims 4 and 3 broadcasts to ``[B,T,4,3]`` and the ``ce`` loss then rejects it (``AssertionError:
Number of dimensions mismatch``). The reference rejects all three; so do we, with a message instead of a traceback.
``batch_size = 0``: the reference fails at the first batch (``Exception: batch_size must be set and be greater
than 0``); we reject it when the options are read. The combine and batch_size cases run ``rnn.py`` end to end; the others check the config-loading functions (``rnn.py`` prints any
``ReturnnError`` without traceback, see ``tests/test_main.py``).
"""

import os
import subprocess
import sys

import pytest

from returnn.errors import ConfigValueError, LayerArgError, ReturnnError

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RNN_PY = os.path.join(REPO_ROOT, "rnn.py")

_BASE = """#!rnn.py
task = "train"
num_epochs = 1
model = {model!r}
train = {{"class": "DummyDataset", "input_dim": 5, "output_dim": 3, "num_seqs": 2, "seq_len": 3}}
dev = None
batch_size = {batch_size}
learning_rate = 0.01
extern_data = {extern_data}
network = {network}
"""
_EXTERN = {"data": {"dim": 5}, "classes": {"dim": 3, "sparse": True}}

CASES = {
    "batch_size_0": (  # the reference: Exception 'batch_size must be set and be greater than 0' at the first batch
        _EXTERN, {"output": {"class": "softmax", "loss": "ce", "from": "data"}},
        ["ConfigValueError: config key 'batch_size': expected an int > 0", ", got 0\n",
         "'batch_size must be set and be greater than 0'"], 0),
    "combine_dims_differ_into_ce": (
        _EXTERN,
        {"a": {"class": "linear", "activation": "tanh", "n_out": 4, "from": "data"},
         "b": {"class": "linear", "activation": "tanh", "n_out": 3, "from": "data"},
         "output": {"class": "combine", "kind": "add", "from": ["a", "b"], "loss": "ce"}},
        ["LayerShapeError: layer 'output' {\"class\": \"combine\"}: loss 'ce': output has 4 axes, the target "
         "'classes'", "needs 3 (its axes plus the class axis)", "expected: an output with 3 axes",
         "F'a:feature-dense'(4)", "F'b:feature-dense'(3)", "give them the same dim"], 100),
}


def test_n_out_negative():
    """Checked with the layer dict, before anything is built (the config-loading path of every network)."""
    from returnn.tf.layers.core.spec import validate_layer_dict

    with pytest.raises(ReturnnError) as exc_info:
        validate_layer_dict("l1", {"class": "linear", "activation": "tanh", "n_out": -3, "from": "data"})
    assert isinstance(exc_info.value, LayerArgError)
    assert str(exc_info.value).splitlines()[:3] == [
        "layer 'l1' {\"class\": \"linear\"}: invalid value for 'n_out'",
        "  expected: an int >= 0 (the size of the output's feature axis), or leave it out to take it from the loss "
        "target",
        "  got:      -3"]
    for bad in ("5", 2.0, True):
        with pytest.raises(LayerArgError, match="invalid value for 'n_out'"):
            validate_layer_dict("l1", {"class": "linear", "n_out": bad})
    for good in (0, 7, None):
        validate_layer_dict("l1", {"class": "linear", "n_out": good})


@pytest.mark.parametrize("spec, got", [({"dim": "x"}, "'x'"), ({"dim": -3}, "-3"), ({"shape": (None, "x")},
                                                                                      "(None, 'x')")])
def test_extern_data_bad_dim(spec, got):
    """Checked when the config's extern_data is read (before the dataset check and the network)."""
    from returnn.config import Config
    from returnn.datasets.extern_data import extern_data_from_config

    config = Config({"extern_data": {"data": spec, "classes": {"dim": 3, "sparse": True}}})
    with pytest.raises(ConfigValueError) as exc_info:
        extern_data_from_config(config)
    first = str(exc_info.value).splitlines()[0]
    assert first.startswith("config key \"extern_data['data']\": expected '")
    assert first.endswith(f", got {got}")
    if spec == {"dim": "x"}:
        assert "unexpected dimension type: <class 'str'>" in str(exc_info.value)
    import numpy
    extern_data_from_config(Config({"extern_data": {"data": {"dim": numpy.int64(5)}}}))  # numpy ints are fine


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_input_one_clear_message(case, tmp_path):
    extern_data, network, needles, batch_size = CASES[case]
    config = tmp_path / f"{case}.config"
    config.write_text(_BASE.format(model=str(tmp_path / "model"), extern_data=repr(extern_data),
                                   network=repr(network), batch_size=batch_size))
    env = dict(os.environ, PYTHONPATH=REPO_ROOT)
    proc = subprocess.run([sys.executable, RNN_PY, str(config)], cwd=str(tmp_path), env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr and "Traceback" not in proc.stdout
    assert "ValueError: Dimension" not in proc.stderr  # not TensorFlow's message
    for needle in needles:
        assert needle in proc.stderr, f"{needle!r} not in stderr:\n{proc.stderr}"
    assert "--debug" in proc.stderr  # the one line saying how to get the traceback
    assert not (tmp_path / "model.001.index").exists()

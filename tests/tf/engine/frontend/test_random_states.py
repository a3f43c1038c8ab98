"""The random generator states of an RF model's random ops in checkpoints: each dropout in training draws from an
int64 ``[3]`` state variable named as the reference's ``tensorflow-net-dict`` backend names it
(``<module call>/cond/random/random_generator/StateVar``, observed in its checkpoints of the conformer AED demo);
the state advances with each draw, is saved per epoch, and a checkpoint without it loads with a warning."""

from __future__ import annotations

import numpy as np
import tensorflow as tf

import returnn.frontend as rf
from returnn.tensor import Dim
from tests.tf.engine.frontend.test_engine_rf import _losses, in_dim, make_config, out_dim
from tests.tf.engine.test_training import run_task

SUFFIX = "/random_generator/StateVar"
# observed: tf.train.list_variables of the reference's checkpoints (tensorflow-net-dict) of _DropModel and
# _dropout_train_step below; between its epochs 1 and 2 the first word of each state advanced, the others stayed
OBSERVED_NAMES = {
    "cond/random/random_generator/StateVar": [3], "global_step": [],
    "inner/cond/random/random_generator/StateVar": [3], "inner/lin/bias/param": [6], "inner/lin/weight/param": [9, 6],
    "out/bias/param": [2], "out/weight/param": [6, 2],
}


class _Inner(rf.Module):
    def __init__(self):
        super().__init__()
        self.lin = rf.Linear(in_dim, Dim(6, name="hid"))

    def __call__(self, x):
        return rf.dropout(self.lin(x), 0.3)


class _DropModel(rf.Module):
    def __init__(self):
        super().__init__()
        self.inner = _Inner()
        self.out = rf.Linear(self.inner.lin.out_dim, out_dim)


def _dropout_train_step(*, model, extern_data, **_kwargs):
    h = rf.dropout(model.inner(extern_data["data"]), 0.2)  # outside any module call: the root scope
    _losses(model.out(h), extern_data["classes"])


def _plain_train_step(*, model, extern_data, **_kwargs):
    _losses(model.out(model.inner.lin(extern_data["data"])), extern_data["classes"])


def _states(path):
    reader = tf.compat.v1.train.NewCheckpointReader(path)
    return {name: reader.get_tensor(name) for name, _ in tf.train.list_variables(path) if name.endswith(SUFFIX)}


def test_dropout_states_in_checkpoints(tmp_path, capsys):
    config = make_config(tmp_path, get_model=lambda *, epoch, step, **_kw: _DropModel(),
                         train_step=_dropout_train_step, num_epochs=2)
    run_task(config, capsys=capsys)
    model = config.value("model", None)
    assert {name: shape for name, shape in tf.train.list_variables(model + ".001")
            if not name.startswith("optimize/")} == OBSERVED_NAMES
    ep1, ep2 = _states(model + ".001"), _states(model + ".002")
    assert sorted(ep1) == ["cond/random" + SUFFIX, "inner/cond/random" + SUFFIX]
    for name, value in ep1.items():
        assert value.dtype == np.int64 and value.shape == (3,)
        assert list(ep2[name][1:]) == list(value[1:])  # the key (and the counter's high word) stay
        assert ep2[name][0] > value[0] > 0  # the counter advanced with the draws of each epoch


def test_checkpoint_without_states_loads_with_a_warning(tmp_path, capsys):
    config = make_config(tmp_path, get_model=lambda *, epoch, step, **_kw: _DropModel(),
                         train_step=_plain_train_step, num_epochs=1)
    run_task(config, capsys=capsys)
    assert _states(config.value("model", None) + ".001") == {}
    config.set("train_step", _dropout_train_step)  # resume from it with dropout
    config.set("num_epochs", 2)
    out = run_task(config, capsys=capsys)
    assert "2 random generator state(s) not in the checkpoint keep their initial values" in out
    assert len(_states(config.value("model", None) + ".002")) == 2

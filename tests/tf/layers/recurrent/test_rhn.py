"""The ``rhn`` unit (recurrent highway network) and ``RHNCell``: param names, shapes and initializers as observed
from the reference; numerics against a numpy implementation of the module's formula; dropout only in training."""

import numpy as np
import pytest
import tensorflow as tf

from tf_net_helpers import build_net, make_feed

from returnn.tf.layers.rec import RHNCell

tf.compat.v1.disable_eager_execution()

N_IN, N = 4, 3


def _sigmoid(x):
    return 1. / (1. + np.exp(-x))


def np_rhn(p, x, lens, depth=5):
    batch, num_frames, _ = x.shape
    y = np.zeros((batch, num_frames, N))
    for b in range(batch):
        s = np.zeros(N)
        for t in range(lens[b]):
            xp = x[b, t] @ p["W"] + p["b"]
            for d in range(depth):
                a = s @ p[f"rhn_cell/depth_{d}/W"] + (xp if d == 0 else 0.)
                h, tr = np.tanh(a[:N]), _sigmoid(a[N:])
                s = h * tr + s * (1. - tr)
            y[b, t] = s
    return y


def test_rhn_params_as_reference(session):
    """observed: W [n_in, 2n] (forward_weights_init), b [2n] zeros (bias_init not used), rhn_cell/depth_<l>/W [n, 2n]
    (recurrent_weights_init)"""
    net = build_net({"output": {"class": "rec", "unit": "rhn", "n_out": N, "from": "data", "forward_weights_init": 0.3,
                                "recurrent_weights_init": 0.2, "bias_init": 0.1}}, extern_data={"data": {"dim": N_IN}})
    session.run(tf.compat.v1.global_variables_initializer())
    values = session.run({v.name[len("output/rec/"):-2]: v for v in net.get_params_list()})
    expected = {"W": ([N_IN, 2 * N], 0.3), "b": ([2 * N], 0.0)}
    expected.update({f"rhn_cell/depth_{d}/W": ([N, 2 * N], 0.2) for d in range(5)})
    assert {k: list(v.shape) for k, v in values.items()} == {k: shape for k, (shape, _) in expected.items()}
    for key, (_, value) in expected.items():
        np.testing.assert_allclose(values[key], value, rtol=1e-6)


@pytest.mark.parametrize("opts", [{}, {"depth": 2}, {"dropout": 0.5}])
def test_rhn_numerics(session, opts):
    """without training, dropout has no effect"""
    net = build_net({"output": {"class": "rec", "unit": "rhn", "unit_opts": opts, "n_out": N, "from": "data"}},
                    extern_data={"data": {"dim": N_IN}}, train_flag=False)
    session.run(tf.compat.v1.global_variables_initializer())
    rng = np.random.RandomState(1)
    p = {}
    for v in net.get_params_list():
        p[v.name[len("output/rec/"):-2]] = value = rng.uniform(-1, 1, v.shape.as_list()).astype("float32")
        v.load(value, session)
    x = rng.uniform(-1, 1, (2, 5, N_IN)).astype("float32")
    lens = [5, 3]
    y = session.run(net.get_layer("output").output.copy_as_batch_major().placeholder,
                    make_feed(net, {"data": x}, {"data": lens}))
    np.testing.assert_allclose(y, np_rhn(p, x.astype("float64"), lens, opts.get("depth", 5)), atol=1e-5)


def test_rhn_cell_dropout_in_training(session):
    """RHNCell with dropout 0.9 in training: one mask per cell (the same for every frame), finite outputs."""
    with tf.compat.v1.variable_scope("cell", initializer=tf.compat.v1.glorot_uniform_initializer(seed=1)):
        cell = RHNCell(num_units=N, is_training=True, dropout=0.9, dropout_seed=1, batch_size=2)
        x = cell.get_input_transformed(tf.ones([4, 2, N_IN]))
        assert x.shape.as_list() == [4, 2, 2 * N]
        state = cell.zero_state(2, tf.float32)
        outs = []
        for t in range(4):
            out, state = cell(inputs=x[t], state=state)
            outs.append(out)
    names = sorted(v.op.name for v in tf.compat.v1.global_variables())
    assert names == ["cell/W", "cell/b"] + [f"cell/rhn_cell/depth_{d}/W" for d in range(5)]
    session.run(tf.compat.v1.global_variables_initializer())
    values = session.run(outs)
    assert all(np.all(np.isfinite(v)) for v in values)

"""Tests of the ``rec`` layer with string units: parameter names/shapes as the reference, numerics against
numpy references (gate orders and biases as observed from the reference), masking, direction, a BLSTM
network with one forward + gradient step, and bad input."""

import os
import sys

import numpy as np
import pytest
import tensorflow as tf

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "ops", "rnn"))

from rnn_numpy_ref import (basic_rnn_step, gru_step, native_lstm_step, run_per_seq,  # noqa: E402
                           tf_lstm_cell_step)
from tf_net_helpers import build_net, forward_and_grad_step, make_feed  # noqa: E402

from returnn.errors import LayerArgError, LayerShapeError, UnknownNameError  # noqa: E402

tf.compat.v1.disable_eager_execution()

N_IN, N_OUT = 3, 4

# Observed from the reference (rec layer, n_in 3, n_out 4): variable names and shapes per unit.
REF_PARAMS = {
    "nativelstm2": {"output/rec/W": [3, 16], "output/rec/W_re": [4, 16], "output/rec/b": [16]},
    "nativelstm": {"output/rec/W": [3, 16], "output/rec/W_re": [4, 16], "output/rec/b": [16]},
    "lstm": {"output/rec/W": [3, 16], "output/rec/W_re": [4, 16], "output/rec/b": [16]},
    "lstmblock": {"output/rec/W": [3, 16], "output/rec/W_re": [4, 16], "output/rec/b": [16]},
    "lstmblockfused": {"output/rec/W": [3, 16], "output/rec/W_re": [4, 16], "output/rec/b": [16]},
    "cudnnlstm": {"output/rec/W": [3, 16], "output/rec/W_re": [4, 16], "output/rec/b": [16]},
    "nativelstmlowmem": {"output/rec/W": [7, 16], "output/rec/b": [16]},
    "standardlstm": {"output/rec/lstm_cell/kernel": [7, 16], "output/rec/lstm_cell/bias": [16]},
    "basiclstm": {"output/rec/basic_lstm_cell/kernel": [7, 16], "output/rec/basic_lstm_cell/bias": [16]},
    "gru": {"output/rec/gru_cell/gates/kernel": [7, 8], "output/rec/gru_cell/gates/bias": [8],
            "output/rec/gru_cell/candidate/kernel": [7, 4], "output/rec/gru_cell/candidate/bias": [4]},
    "basicrnn": {"output/rec/basic_rnn_cell/kernel": [7, 4], "output/rec/basic_rnn_cell/bias": [4]},
}


def _np_step(unit, p):
    if unit in ("standardlstm", "basiclstm"):
        cell = "lstm_cell" if unit == "standardlstm" else "basic_lstm_cell"
        return tf_lstm_cell_step(p[f"output/rec/{cell}/kernel"], p[f"output/rec/{cell}/bias"], forget_bias=1.0)
    if unit == "nativelstmlowmem":
        w = p["output/rec/W"]
        return native_lstm_step(w[:N_IN], w[N_IN:], p["output/rec/b"])
    if unit == "gru":
        return gru_step(p["output/rec/gru_cell/gates/kernel"], p["output/rec/gru_cell/gates/bias"],
                        p["output/rec/gru_cell/candidate/kernel"], p["output/rec/gru_cell/candidate/bias"])
    if unit == "basicrnn":
        return basic_rnn_step(p["output/rec/basic_rnn_cell/kernel"], p["output/rec/basic_rnn_cell/bias"])
    return native_lstm_step(p["output/rec/W"], p["output/rec/W_re"], p["output/rec/b"])


@pytest.mark.parametrize("direction", [1, -1])
@pytest.mark.parametrize("unit", sorted(REF_PARAMS))
def test_rec_unit_params_and_numerics(session, unit, direction):
    net = build_net({"output": {"class": "rec", "unit": unit, "n_out": N_OUT, "direction": direction,
                                "from": "data"}}, train_flag=False)
    params = {p.name[:-2]: p for p in net.get_params_list()}
    assert {k: v.shape.as_list() for k, v in params.items()} == REF_PARAMS[unit]
    out = net.get_layer("output").output
    assert out.time_dim_axis == 0 and out.batch_dim_axis == 1 and out.dim == N_OUT
    session.run(tf.compat.v1.global_variables_initializer())
    rng = np.random.RandomState(1)
    values = {}
    for name in sorted(params):
        values[name] = rng.uniform(-.5, .5, params[name].shape.as_list()).astype("float32")
        params[name].load(values[name], session)
    x = rng.uniform(-1, 1, (3, 6, N_IN)).astype("float32")
    lens = np.array([6, 2, 4], "int32")
    x[1, 2:] = 7.  # padding garbage
    y = session.run(out.copy_as_batch_major().placeholder, feed_dict=make_feed(net, {"data": x}, {"data": lens}))
    expected, _ = run_per_seq(x, lens, _np_step(unit, values), N_OUT, direction=direction)
    np.testing.assert_allclose(y, expected, atol=1e-5)


def test_rec_default_init_as_reference(session):
    """Reference defaults (observed): glorot_uniform kernels, zero biases, GRU gate bias 1."""
    net = build_net({"l": {"class": "rec", "unit": "nativelstm2", "n_out": 100, "from": "data", "is_output_layer": True},
                     "g": {"class": "rec", "unit": "gru", "n_out": 100, "from": "data", "is_output_layer": True}},
                    extern_data={"data": {"dim": 200}})
    session.run(tf.compat.v1.global_variables_initializer())
    v = session.run({p.name[:-2]: p for p in net.get_params_list()})
    for name, limit in [("l/rec/W", np.sqrt(6 / 600)), ("l/rec/W_re", np.sqrt(6 / 500)),
                        ("g/rec/gru_cell/gates/kernel", np.sqrt(6 / 500))]:
        assert np.abs(v[name]).max() <= limit and np.abs(v[name]).max() > 0.9 * limit, name
    assert np.all(v["l/rec/b"] == 0) and np.all(v["g/rec/gru_cell/gates/bias"] == 1)
    assert np.all(v["g/rec/gru_cell/candidate/bias"] == 0)


BLSTM = {
    "fw": {"class": "rec", "unit": "nativelstm2", "n_out": 6, "from": "data", "dropout": 0.2, "L2": 0.01},
    "bw": {"class": "rec", "unit": "nativelstm2", "n_out": 6, "direction": -1, "from": "data"},
    "output": {"class": "softmax", "loss": "ce", "from": ["fw", "bw"]},
}


def test_blstm_network_forward_and_gradient_step(session):
    net = build_net(BLSTM, train_flag=True)
    names = sorted(p.name for p in net.get_params_list())
    assert names == ["bw/rec/W:0", "bw/rec/W_re:0", "bw/rec/b:0", "fw/rec/W:0", "fw/rec/W_re:0", "fw/rec/b:0",
                     "output/W:0", "output/b:0"]
    rng = np.random.RandomState(2)
    lens = np.array([7, 3, 5], "int32")
    feed = make_feed(net, {"data": rng.randn(3, 7, N_IN).astype("float32"),
                           "classes": rng.randint(0, 4, (3, 7)).astype("int32")},
                     {"data": lens, "classes": lens})
    y = forward_and_grad_step(session, net, feed, layer="bw")  # [T, B, F]
    assert y.shape == (7, 3, 6)
    for b, length in enumerate(lens):
        assert np.all(y[length:, b] == 0)
        assert np.all(np.abs(y[:length, b]).sum(axis=-1) > 0)


@pytest.mark.parametrize("unit", ["gru", "basicrnn", "standardlstm"])
def test_rec_gradient_step_other_units(session, unit):
    """Forward, then (graph extended after a run) one SGD step; gradients numerically checked for x."""
    net = build_net({"output": {"class": "rec", "unit": unit, "n_out": 3, "direction": -1, "from": "data"}})
    rng = np.random.RandomState(5)
    lens = np.array([4, 2], "int32")
    x = rng.randn(2, 4, N_IN).astype("float32")
    feed = make_feed(net, {"data": x}, {"data": lens})
    forward_and_grad_step(session, net, feed)
    out = tf.reduce_sum(net.get_layer("output").output.placeholder * rng.randn(4, 2, 3))
    ph = net.extern_data.data["data"].placeholder
    grad = session.run(tf.gradients(out, ph)[0], feed_dict=feed)
    assert np.all(grad[1, 2:] == 0)
    eps = 1e-2
    for idx in [(0, 0, 0), (0, 3, 2), (1, 1, 1)]:
        x_p, x_m = x.copy(), x.copy()
        x_p[idx] += eps
        x_m[idx] -= eps
        f_p = session.run(out, feed_dict={**feed, ph: x_p})
        f_m = session.run(out, feed_dict={**feed, ph: x_m})
        np.testing.assert_allclose(grad[idx], (f_p - f_m) / (2 * eps), rtol=2e-2, atol=2e-3)


def test_blstm_time_major_input(session):
    """Time-major extern data gives the same result as batch-major."""
    results = []
    rng = np.random.RandomState(3)
    x = rng.randn(2, 5, N_IN).astype("float32")
    lens = np.array([5, 2], "int32")
    for time_major in (False, True):
        with tf.Graph().as_default():
            ed = {"data": {"dim": N_IN, "time_dim_axis": 0, "batch_dim_axis": 1} if time_major else {"dim": N_IN}}
            net = build_net({"output": {"class": "rec", "unit": "lstm", "n_out": 4, "direction": -1,
                                        "from": "data", "forward_weights_init": 0.3,
                                        "recurrent_weights_init": -0.2, "bias_init": 0.1}},
                            extern_data=ed, train_flag=False)
            with tf.compat.v1.Session() as sess:
                sess.run(tf.compat.v1.global_variables_initializer())
                feed = make_feed(net, {"data": np.transpose(x, (1, 0, 2)) if time_major else x}, {"data": lens})
                results.append(sess.run(net.get_layer("output").output.placeholder, feed_dict=feed))
    np.testing.assert_allclose(results[0], results[1], atol=1e-6)
    w = np.full((N_IN, 16), 0.3)
    expected, _ = run_per_seq(x, lens, native_lstm_step(w, np.full((4, 16), -0.2), np.full(16, 0.1)), 4, direction=-1)
    np.testing.assert_allclose(np.transpose(results[0], (1, 0, 2)), expected, atol=1e-5)


def test_rec_initial_state_from_layer_and_last_state(session):
    net = build_net({
        "init": {"class": "copy", "from": "data:state"},
        "output": {"class": "rec", "unit": "nativelstm2", "n_out": 2, "from": "data",
                   "initial_state": {"c": "init", "h": "zeros"}}},
        extern_data={"data": {"dim": N_IN}, "state": {"dim": 2, "shape": (2,), "time_dim_axis": None}},
        train_flag=False)
    layer = net.get_layer("output")
    session.run(tf.compat.v1.global_variables_initializer())
    p = {k: session.run(v) for k, v in layer.params.items()}
    rng = np.random.RandomState(4)
    x = rng.randn(2, 4, N_IN).astype("float32")
    c0 = rng.randn(2, 2).astype("float32")
    lens = np.array([4, 0], "int32")
    feed = make_feed(net, {"data": x}, {"data": lens})
    feed[net.extern_data.data["state"].placeholder] = c0
    c_last = session.run(layer.get_last_hidden_state("c"), feed_dict=feed)
    _, finals = run_per_seq(x, lens, native_lstm_step(p["W"], p["W_re"], p["b"]), 2,
                            initial=[(c0[b].astype(np.float64), np.zeros(2)) for b in range(2)])
    np.testing.assert_allclose(c_last, np.array([s[0] for s in finals]), atol=1e-5)
    np.testing.assert_array_equal(c_last[1], c0[1])


@pytest.mark.parametrize("layer_dict, error, match", [
    ({"unit": "nativelstm3"}, UnknownNameError, "nativelstm2"),
    ({"unit": "lstm", "direction": 2}, LayerArgError, "direction"),
    ({"unit": {"s": {"class": "copy"}}}, LayerArgError, "subnetwork"),
    ({"unit": "standardlstm", "unit_opts": {"forget_bia": 0.}}, LayerArgError, "forget_bia"),
    ({"unit": "lstm", "n_ot": 3}, LayerArgError, "n_out"),
])
def test_rec_bad_input(session, layer_dict, error, match):
    d = {"class": "rec", "n_out": 3, "from": "data", **layer_dict}
    with pytest.raises(error, match=match):
        build_net({"output": d})


def test_rec_without_time_axis_is_one_step(session):
    """As the reference (observed): an input without time axis is one step, {B, F} -> {B, n_out}; without a batch
    axis it is an error."""
    net = build_net({"output": {"class": "rec", "unit": "lstm", "n_out": 4, "from": "data"}},
                    extern_data={"data": {"dim": 3, "shape": (3,), "time_dim_axis": None}})
    assert net.get_layer("output").output.batch_shape == (None, 4)
    with pytest.raises(LayerShapeError, match="time"):
        build_net({"output": {"class": "rec", "unit": "lstm", "n_out": 3, "from": "data"}},
                  extern_data={"data": {"dim": 3, "shape": (3,), "time_dim_axis": None, "batch_dim_axis": None}})


def test_get_last_hidden_state_layer(session):
    """Keys as observed from the reference: "c", "h", and "*" = concat [c, h]; the n_out must match."""
    net = build_net({
        "l": {"class": "rec", "unit": "nativelstm2", "n_out": 4, "from": "data", "direction": -1},
        "s_c": {"class": "get_last_hidden_state", "from": "l", "n_out": 4, "key": "c", "is_output_layer": True},
        "s_h": {"class": "get_last_hidden_state", "from": "l", "n_out": 4, "key": "h", "is_output_layer": True},
        "s_all": {"class": "get_last_hidden_state", "from": "l", "n_out": 8, "is_output_layer": True}},
        train_flag=False)
    session.run(tf.compat.v1.global_variables_initializer())
    p = {k: session.run(v) for k, v in net.get_layer("l").params.items()}
    rng = np.random.RandomState(6)
    x = rng.randn(2, 5, N_IN).astype("float32")
    lens = np.array([5, 3], "int32")
    feed = make_feed(net, {"data": x}, {"data": lens})
    c, h, both = session.run([net.get_layer(k).output.placeholder for k in ("s_c", "s_h", "s_all")], feed_dict=feed)
    _, finals = run_per_seq(x, lens, native_lstm_step(p["W"], p["W_re"], p["b"]), 4, direction=-1)
    np.testing.assert_allclose(c, np.array([s[0] for s in finals]), atol=1e-5)
    np.testing.assert_allclose(h, np.array([s[1] for s in finals]), atol=1e-5)
    np.testing.assert_allclose(both, np.concatenate([c, h], axis=-1), atol=1e-6)


def test_get_last_hidden_state_wrong_n_out(session):
    with pytest.raises(LayerShapeError, match="n_out=8"):
        build_net({"l": {"class": "rec", "unit": "lstm", "n_out": 4, "from": "data"},
                   "output": {"class": "get_last_hidden_state", "from": "l", "n_out": 4}})


@pytest.mark.parametrize("unit, names", [
    ("nativelstm2", ["output/rec/initial_c", "output/rec/initial_h"]),
    ("standardlstm", ["output/rec/initial_c", "output/rec/initial_h"]),
    ("gru", ["output/rec/initial_var"])])
def test_rec_initial_state_var(session, unit, names):
    """``initial_state: "var"``: trainable zero-initialized ``[n_out]`` params (names observed from the reference);
    the output equals that with explicit initial states of the variables' values (loaded as non-zero)."""
    net = build_net({"output": {"class": "rec", "unit": unit, "n_out": N_OUT, "initial_state": "var",
                                "from": "data"}}, train_flag=False)
    params = {p.name[:-2]: p for p in net.get_params_list()}
    assert sorted(k for k in params if "initial" in k) == names
    trainable = set(tf.compat.v1.trainable_variables())
    assert all(params[k] in trainable and params[k].shape.as_list() == [N_OUT] for k in names)
    session.run(tf.compat.v1.global_variables_initializer())
    assert all(not session.run(params[k]).any() for k in names)
    rng = np.random.RandomState(3)
    values = {k: rng.uniform(-.5, .5, params[k].shape.as_list()).astype("float32") for k in sorted(params)}
    for k, v in values.items():
        params[k].load(v, session)
    x = rng.uniform(-1, 1, (2, 4, N_IN)).astype("float32")
    lens = np.array([4, 3], "int32")
    y = session.run(net.get_layer("output").output.copy_as_batch_major().placeholder,
                    feed_dict=make_feed(net, {"data": x}, {"data": lens}))
    if len(names) == 2:
        initial = [(values["output/rec/initial_c"], values["output/rec/initial_h"])] * 2
    else:
        initial = [values["output/rec/initial_var"]] * 2
    expected, _ = run_per_seq(x, lens, _np_step(unit, values), N_OUT, initial=initial)
    np.testing.assert_allclose(y, expected, atol=1e-5)

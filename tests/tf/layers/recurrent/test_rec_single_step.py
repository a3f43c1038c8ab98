"""A string-unit ``rec`` layer for one step outside a rec loop: an input without time axis ``{B, F}`` is one step
(from ``state`` if given, else zeros), and ``axis=single_step_dim`` makes every frame of the input one step on its
own (the output keeps the input's axes, batch-major). Expected values: the same unit with the same params run over
sequences of length 1 (with ``initial_state`` for ``state``)."""

import numpy as np
import tensorflow as tf

from returnn.config import Config
from returnn.tensor import Dim, batch_dim, single_step_dim
from returnn.tf.network import TFNetwork

tf.compat.v1.disable_eager_execution()

N_IN, N_OUT = 3, 5
STATE_DIM = Dim(N_OUT, name="state-feat")


def _run(net_dict, values, seq_lens=None, params=None):
    """:return: (output of layer "output" batch-major, params name -> value)"""
    with tf.Graph().as_default() as graph, tf.compat.v1.Session(graph=graph) as session:
        extern = {"data": {"dim": N_IN}, "h0": {"dim_tags": (batch_dim, STATE_DIM)}}
        net = TFNetwork(config=Config({"extern_data": extern}), train_flag=False)
        net.construct_from_dict(net_dict)
        net.initialize_params(session)
        layer = net.get_layer("output")
        if params is not None:
            for name, value in params.items():
                layer.params[name].load(value, session)
        feed = {net.extern_data.data["data"].placeholder: values["data"],
                net.extern_data.data["data"].size_placeholder[0]: seq_lens,
                net.extern_data.data["h0"].placeholder: values["h0"]}
        out = layer.output.copy_as_batch_major()
        return session.run(out.placeholder, feed_dict=feed), session.run(layer.params)


def _over_time(values, initial_state=None):
    """:return: the LSTM over the frames of ``values["data"]`` as sequences of length 1: ``[B, T, N_OUT]``"""
    x = values["data"]
    n_batch, n_time, _ = x.shape
    rec = {"class": "rec", "unit": "lstm", "n_out": N_OUT, "from": "data"}
    if initial_state is not None:
        rec["initial_state"] = initial_state
    flat = {"data": x.reshape(n_batch * n_time, 1, N_IN), "h0": np.repeat(values["h0"], n_time, axis=0)}
    y, params = _run({"output": rec}, flat, seq_lens=[1] * (n_batch * n_time))
    return y.reshape(n_batch, n_time, N_OUT), params


def test_single_step_dim_is_each_frame_on_its_own():
    rs = np.random.RandomState(1)
    values = {"data": rs.uniform(-1, 1, size=(2, 4, N_IN)).astype("float32"),
              "h0": rs.uniform(-1, 1, size=(2, N_OUT)).astype("float32")}
    expected, params = _over_time(values)
    net_dict = {"output": {"class": "rec", "unit": "lstm", "from": "data", "n_out": N_OUT, "axis": single_step_dim}}
    y, _ = _run(net_dict, values, seq_lens=[4, 3], params=params)
    assert y.shape == (2, 4, N_OUT)
    np.testing.assert_allclose(y, expected, rtol=1e-5, atol=1e-6)


def test_frame_without_time_axis_is_one_step_from_state():
    rs = np.random.RandomState(2)
    values = {"data": rs.uniform(-1, 1, size=(2, 1, N_IN)).astype("float32"),
              "h0": rs.uniform(-1, 1, size=(2, N_OUT)).astype("float32")}
    expected, params = _over_time(values, initial_state={"h": "data:h0", "c": "data:h0"})
    net_dict = {"frame": {"class": "reduce", "mode": "mean", "axis": "T", "from": "data"},
                "output": {"class": "rec", "unit": "lstm", "n_out": N_OUT, "from": "frame",
                           "state": {"h": "data:h0", "c": "data:h0"}}}
    y, _ = _run(net_dict, values, seq_lens=[1, 1], params=params)
    assert y.shape == (2, N_OUT)
    np.testing.assert_allclose(y, expected[:, 0], rtol=1e-5, atol=1e-6)
    without_state, _ = _run({**net_dict, "output": {k: v for k, v in net_dict["output"].items() if k != "state"}},
                            values, seq_lens=[1, 1], params=params)
    assert not np.allclose(without_state, y)  # zeros as the state: another result

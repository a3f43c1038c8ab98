"""A string-unit ``rec`` layer over one axis of an input with more axes (see ``returnn.tf.layers.recurrent.rec_axes``):
the other axes but the feature axis count as batch. Expected values: the same unit with the same params run on the
plain ``{B, T, F}`` input of each sequence (each entry of the other axes); the layouts as observed from the
reference (``{T, W, B, F}`` over ``T`` -> ``{T, W, B, n_out}``)."""

import numpy as np
import tensorflow as tf

from tf_net_helpers import make_feed

from returnn.config import Config
from returnn.tensor import Dim, batch_dim
from returnn.tf.network import TFNetwork

tf.compat.v1.disable_eager_execution()

N_IN, N_OUT = 3, 2


def _net(extern, net_dict):
    net = TFNetwork(config=Config({"extern_data": extern}), train_flag=False)
    net.construct_from_dict(net_dict)
    return net


def _plain_lstm(session, x, lens, params, direction=1):
    """:return: the ``lstm`` unit with ``params`` over ``x`` ``[N, T, F]`` (lengths ``lens``), ``[N, T, N_OUT]``"""
    net = _net({"plain": {"dim": N_IN}},
               {"output": {"class": "rec", "unit": "lstm", "n_out": N_OUT, "from": "data:plain",
                           "direction": direction}})
    layer = net.get_layer("output")
    for name, value in params.items():
        layer.params[name].load(value, session)
    out = layer.output.copy_as_batch_major()
    return session.run(out.placeholder, feed_dict=make_feed(net, {"plain": x}, {"plain": lens}))


def _init_params(session, layer, seed):
    rs = np.random.RandomState(seed)
    session.run(tf.compat.v1.global_variables_initializer())
    values = {}
    for name in sorted(layer.params):
        values[name] = rs.uniform(-1, 1, size=layer.params[name].shape.as_list()).astype("float32")
        layer.params[name].load(values[name], session)
    return values


def test_time_win_batch_feat_input(session):
    time_dim, win_dim, feat_dim, out_dim = Dim(None, name="time"), Dim(2, name="win"), Dim(N_IN, name="in"), \
        Dim(N_OUT, name="out")
    net = _net({"data": {"dims": (time_dim, win_dim, batch_dim, feat_dim), "dtype": "float32"}},
               {"output": {"class": "rec", "unit": "lstm", "from": "data", "axis": time_dim, "out_dim": out_dim}})
    layer = net.get_layer("output")
    assert layer.output.dims == (time_dim, win_dim, batch_dim, out_dim)  # as the reference's
    params = _init_params(session, layer, 1)
    rs = np.random.RandomState(2)
    x = rs.uniform(-1, 1, size=(4, 2, 3, N_IN)).astype("float32")  # [T, W, B, F]
    lens = np.array([4, 2, 3], "int32")
    y = session.run(layer.output.placeholder, feed_dict=make_feed(net, {"data": x}, {"data": lens}))
    assert y.shape == (4, 2, 3, N_OUT)
    # each (w, b) a sequence of its own, of length lens[b]
    flat = x.transpose(1, 2, 0, 3).reshape(6, 4, N_IN)
    expected = _plain_lstm(session, flat, np.tile(lens, 2), params).reshape(2, 3, 4, N_OUT).transpose(2, 0, 1, 3)
    np.testing.assert_allclose(y, expected, rtol=1e-5, atol=1e-6)
    for b, n in enumerate(lens):
        assert not y[n:, :, b].any()  # zero in the padded frames


def test_over_static_window_axis(session):
    """Over a static axis of each frame (as the reference's online BLSTM over a window of frames), backwards."""
    win_dim = Dim(3, name="win")
    net = _net({"data": {"dim": N_IN}},
               {"win": {"class": "window", "window_dim": win_dim, "window_right": 0, "from": "data"},
                "output": {"class": "rec", "unit": "lstm", "n_out": N_OUT, "from": "win", "axis": win_dim,
                           "direction": -1}})
    layer = net.get_layer("output")
    assert layer.output.dims[0] is win_dim and layer.output.dim == N_OUT
    params = _init_params(session, layer, 3)
    rs = np.random.RandomState(4)
    x = rs.uniform(-1, 1, size=(2, 4, N_IN)).astype("float32")
    lens = np.array([4, 3], "int32")
    out = layer.output.copy_as_batch_major()
    y = session.run(out.copy_move_axis(out.dims.index(win_dim), 2).placeholder,
                    feed_dict=make_feed(net, {"data": x}, {"data": lens}))  # [B, T, W, n]
    padded = np.concatenate([np.zeros((2, 2, N_IN), "float32"), x], axis=1)
    windows = np.stack([padded[:, t:t + 3] for t in range(4)], axis=1)  # [B, T, W, F], the last frame the current
    expected = _plain_lstm(session, windows.reshape(8, 3, N_IN), [3] * 8, params, direction=-1).reshape(2, 4, 3, N_OUT)
    for b, n in enumerate(lens):
        np.testing.assert_allclose(y[b, :n], expected[b, :n], rtol=1e-5, atol=1e-6)

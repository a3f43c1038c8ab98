"""dot, dot_attention, gauss_window_attention vs numpy."""

import numpy as np
import tensorflow as tf

import returnn.tf.layers  # noqa: F401
from tf_net_helpers import build_net, make_feed

RNG = np.random.RandomState(11)
X = RNG.randn(2, 5, 3).astype("float32")
LENS = [5, 3]


def test_dot_reduce_feature_over_time_pairs(session):
    net = build_net({"a": {"class": "linear", "activation": None, "n_out": 3, "from": "data"},
                     "output": {"class": "dot", "from": ["a", "data"], "red1": "F", "red2": "F", "var1": None,
                                "var2": None}}, extern_data={"data": {"dim": 3}})
    out = net.get_layer("output").output
    # the reference appends a size-1 'output:dot:dummy-var2' axis when var2 is empty: [B, T, 1]
    assert out.batch_ndim == 3 and out.dims[2].dimension == 1
    session.run(tf.compat.v1.global_variables_initializer())
    a, y = session.run([net.get_layer("a").output.placeholder, out.placeholder],
                       make_feed(net, {"data": X}, {"data": LENS}))
    np.testing.assert_allclose(y[..., 0], (a * X).sum(axis=2), rtol=1e-5, atol=1e-6)


def test_dot_attention(session):
    net = build_net({"query": {"class": "reduce", "mode": "max", "axes": "T", "from": "data"},
                     "output": {"class": "dot_attention", "from": "query", "base": "data", "energy_factor": 0.5}},
                    extern_data={"data": {"dim": 3}})
    y, q = session.run([net.get_layer("output").output.placeholder, net.get_layer("query").output.placeholder],
                       make_feed(net, {"data": X}, {"data": LENS}))
    for b, n in enumerate(LENS):
        e = 0.5 * X[b, :n] @ q[b]
        w = np.exp(e - e.max())
        w /= w.sum()
        np.testing.assert_allclose(y[b], w @ X[b, :n], rtol=1e-5, atol=1e-6)


def test_gauss_window_attention(session):
    net = build_net({"pos": {"class": "constant", "value": 1.6, "with_batch_dim": True},
                     "output": {"class": "gauss_window_attention", "from": "pos", "base": "data", "window_size": 3,
                                "std": 2.0}}, extern_data={"data": {"dim": 3}})
    y = session.run(net.get_layer("output").output.placeholder, make_feed(net, {"data": X}, {"data": LENS}))
    g = np.array([np.exp(-(t - 1.6) ** 2 / 8.0) if abs(t - 2) <= 1 else 0.0 for t in range(5)], "float32")
    for b, n in enumerate(LENS):
        np.testing.assert_allclose(y[b], g[:n] @ X[b, :n], rtol=1e-5, atol=1e-6)

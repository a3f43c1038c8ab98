"""weighted_sum: param W (init 1/n, as observed from the reference) and sum(x * W) against numpy."""

import numpy as np
import tensorflow as tf

from tf_net_helpers import build_net, make_feed


def test_weighted_sum(session):
    x = np.random.RandomState(0).randn(2, 3, 6).astype("float32")
    net = build_net({"output": {"class": "weighted_sum", "axes": "F", "from": "data"}}, {"data": {"dim": 6}})
    layer = net.get_layer("output")
    assert repr(layer.output) == "Tensor{'output_output', [B,T|'time:var:extern_data:data'[B]]}"
    session.run(tf.compat.v1.global_variables_initializer())
    feed = make_feed(net, {"data": x}, {"data": [3, 2]})
    np.testing.assert_allclose(session.run(layer.params["W"]), np.full(6, 1 / 6), rtol=1e-6)
    w = np.arange(6, dtype="float32")
    layer.params["W"].load(w, session)
    np.testing.assert_allclose(session.run(layer.output.placeholder, feed), (x * w).sum(-1), rtol=1e-5)

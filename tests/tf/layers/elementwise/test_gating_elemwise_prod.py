"""gating and elemwise_prod: numpy references; dims and params as observed from the reference."""

import numpy as np
import pytest
import tensorflow as tf

from returnn.errors import LayerShapeError
from returnn.tensor import FeatureDim
from tf_net_helpers import build_net, make_feed

X = np.random.RandomState(4).randn(2, 3, 6).astype("float32")


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def test_gating(session):
    out_dim = FeatureDim("go", 3)
    net = build_net({"a": {"class": "gating", "activation": "identity", "from": "data", "is_output_layer": True},
                     "b": {"class": "gating", "activation": "tanh", "gate_activation": "relu", "from": "data",
                           "out_dim": out_dim, "is_output_layer": True}}, {"data": {"dim": 6}})
    assert repr(net.get_layer("a").output) == \
        "Tensor{'a_output', [B,T|'time:var:extern_data:data'[B],F|F'feature:data//2'(3)]}"
    assert net.get_layer("b").output.feature_dim == out_dim
    a, b = session.run([net.get_layer(n).output.placeholder for n in "ab"],
                       feed_dict=make_feed(net, {"data": X}, {"data": [3, 2]}))
    np.testing.assert_allclose(a, X[..., :3] * sigmoid(X[..., 3:]), rtol=1e-5)
    np.testing.assert_allclose(b, np.tanh(X[..., :3]) * np.maximum(X[..., 3:], 0), rtol=1e-5)
    with pytest.raises(LayerShapeError, match="even"):
        build_net({"output": {"class": "gating", "activation": None, "from": "data"}}, {"data": {"dim": 5}})


def test_elemwise_prod(session):
    net = build_net({"output": {"class": "elemwise_prod", "axes": ("s:1", "f"), "from": "data"}},
                    {"data": {"shape": (None, 5, 2)}})
    layer = net.get_layer("output")
    assert {k: v.shape.as_list() for k, v in layer.params.items()} == {"W": [5, 2]}
    session.run(tf.compat.v1.global_variables_initializer())
    x = np.random.RandomState(5).randn(2, 3, 5, 2).astype("float32")
    feed = make_feed(net, {"data": x}, {"data": [3, 1]})
    np.testing.assert_allclose(session.run(layer.output.placeholder, feed), x)  # W initialized to ones
    w = np.random.RandomState(6).randn(5, 2).astype("float32")
    layer.params["W"].load(w, session)
    np.testing.assert_allclose(session.run(layer.output.placeholder, feed), x * w, rtol=1e-6)
    with pytest.raises(LayerShapeError, match="static"):
        build_net({"output": {"class": "elemwise_prod", "axes": "T", "from": "data"}}, {"data": {"dim": 5}})

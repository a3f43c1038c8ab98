"""norm and math_norm: numpy references; params and keep-dims as observed from the reference."""

import numpy as np
import pytest
import tensorflow as tf

from returnn.errors import LayerArgError
from tf_net_helpers import build_net, make_feed

X = np.random.RandomState(7).randn(2, 3, 3).astype("float32")
LENS = [3, 2]
MASK = (np.arange(3)[None, :] < np.array(LENS)[:, None])[:, :, None]


def test_math_norm(session):
    net = build_net({"a": {"class": "math_norm", "p": 2, "axis": "F", "from": "data", "is_output_layer": True},
                     "b": {"class": "math_norm", "p": 1, "axes": "T", "keep_dims": True, "from": "data",
                           "is_output_layer": True}}, {"data": {"dim": 3}})
    assert repr(net.get_layer("b").output) == \
        "Tensor{'b_output', [B,T|'b:keep-dim-1'(1),F|F'feature:data'(3)]}"  # observed from the reference
    a, b = session.run([net.get_layer(n).output.placeholder for n in "ab"],
                       feed_dict=make_feed(net, {"data": X}, {"data": LENS}))
    np.testing.assert_allclose(a, np.sqrt((X ** 2).sum(-1)), rtol=1e-5)  # padded frames not masked (not reduced)
    np.testing.assert_allclose(b, np.abs(np.where(MASK, X, 0)).sum(1, keepdims=True), rtol=1e-5)


def test_norm(session):
    net = build_net({"output": {"class": "norm", "axes": ["T", "F"], "from": "data"}}, {"data": {"dim": 3}})
    layer = net.get_layer("output")
    assert {k: v.shape.as_list() for k, v in layer.params.items()} == {"scale": [3], "bias": [3]}
    session.run(tf.compat.v1.global_variables_initializer())
    scale, bias = np.array([1.0, 2.0, 0.5], "float32"), np.array([0.0, 1.0, -1.0], "float32")
    layer.params["scale"].load(scale, session)
    layer.params["bias"].load(bias, session)
    y = session.run(layer.output.placeholder, feed_dict=make_feed(net, {"data": X}, {"data": LENS}))
    mean, var = X.mean((1, 2), keepdims=True), X.var((1, 2), keepdims=True)  # raw padded tensor, as the reference
    np.testing.assert_allclose(y, (X - mean) / np.sqrt(var + 1e-6) * scale + bias, rtol=1e-4, atol=1e-5)
    with pytest.raises(LayerArgError):
        build_net({"output": {"class": "norm", "from": "data"}}, {"data": {"dim": 3}})

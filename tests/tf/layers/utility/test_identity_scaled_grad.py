"""identity and scaled_grad: forward identity; scaled_grad's gradient as observed from the reference."""

import numpy as np
import pytest
import tensorflow as tf

from returnn.tensor import FeatureDim, SpatialDim, batch_dim
from tf_net_helpers import build_net, make_feed

X = np.arange(18, dtype="float32").reshape(2, 3, 3)
W = np.random.RandomState(0).randn(2, 3, 3).astype("float32")


@pytest.mark.parametrize("opts, expected", [
    ({"scale": -0.5}, lambda w: -0.5 * w),
    ({"scale": 2.0, "shift": 0.1}, lambda w: 2 * w + 0.1),
    ({"scale": 1.0, "shift": 1.0, "scale_shift_by_sum_over_axis": "F"},
     lambda w: w + np.abs(w).sum(-1, keepdims=True)),
    ({"scale": 1.0, "shift": -1.0, "clip_max_axis": "F"},
     lambda w: np.clip(w - 1, -np.abs(w).max(-1, keepdims=True), np.abs(w).max(-1, keepdims=True))),
])
def test_scaled_grad(session, opts, expected):
    net = build_net({"output": {"class": "scaled_grad", "from": "data", **opts}}, {"data": {"dim": 3}})
    x_ph = net.extern_data.data["data"].placeholder
    y = net.get_layer("output").output.placeholder
    grad = tf.gradients(tf.reduce_sum(y * W), x_ph)[0]
    out, g = session.run([y, grad], feed_dict=make_feed(net, {"data": X}, {"data": [3, 2]}))
    np.testing.assert_array_equal(out, X)
    np.testing.assert_allclose(g, expected(W), rtol=1e-5, atol=1e-6)


def test_identity_control_dependencies(session):
    net = build_net({"v": {"class": "variable", "shape": [3]},
                     "output": {"class": "identity", "from": "data", "control_dependencies": ["v"]}},
                    {"data": {"dim": 3}})
    out = net.get_layer("output").output
    assert repr(out) == "Tensor{'output_output', [B,T|'time:var:extern_data:data'[B],F|F'feature:data'(3)]}"
    assert net.get_layer("v").output.placeholder.op in out.placeholder.op.control_inputs
    session.run(tf.compat.v1.global_variables_initializer())
    np.testing.assert_array_equal(session.run(out.placeholder, make_feed(net, {"data": X}, {"data": [3, 2]})), X)


def test_scaled_grad_scale_from_a_layer(session):
    # a per-feature scale [F] from a layer broadcasts over [B,T,F]
    scales = np.array([0.5, -1.0, 2.0], dtype="float32")
    feat = FeatureDim("feat", 3)
    net = build_net({"s": {"class": "variable", "shape": [feat], "add_batch_axis": False},
                     "output": {"class": "scaled_grad", "from": "data", "scale": "s"}},
                    {"data": {"dim_tags": [batch_dim, SpatialDim("time"), feat]}})
    assert net.get_layer("s") in net.get_layer("output").get_dep_layers()
    session.run(tf.compat.v1.global_variables_initializer())
    net.get_layer("s").params["s"].load(scales, session)
    x_ph = net.extern_data.data["data"].placeholder
    y = net.get_layer("output").output.placeholder
    grad = tf.gradients(tf.reduce_sum(y * W), x_ph)[0]
    out, g = session.run([y, grad], feed_dict=make_feed(net, {"data": X}, {"data": [3, 2]}))
    np.testing.assert_array_equal(out, X)
    np.testing.assert_allclose(g, W * scales, rtol=1e-6)

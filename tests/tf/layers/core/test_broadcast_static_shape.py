"""Broadcasting a layer input against the output (returnn/tf/layers/core/broadcast.py): the reshape to the
output's rank uses the static sizes as numbers, and reads only dynamic sizes from the tensor's shape; values
vs numpy."""

import numpy as np
import tensorflow as tf

from tf_net_helpers import build_net, make_feed

X = np.random.RandomState(3).randn(2, 5, 4).astype("float32")  # [B, T, F]
LENS = [5, 3]


def _reshape_inputs(net):
    return [op.inputs[1].op for op in tf.compat.v1.get_default_graph().get_operations()
            if op.type == "Reshape" and op.name.startswith("output/")]


def test_static_feature_vector_broadcast_has_constant_shape(session):
    """a [F] vector (a variable) added to [B,T,F]: the reshape to [1,1,F] takes a constant shape"""
    net = build_net({"v": {"class": "variable", "shape": (4,), "add_batch_axis": False, "init": 0.5},
                     "output": {"class": "combine", "kind": "add", "from": ["data", "v"]}}, {"data": {"dim": 4}})
    shapes = _reshape_inputs(net)
    assert shapes and all(op.type == "Const" for op in shapes)
    session.run(tf.compat.v1.global_variables_initializer())
    out = session.run(net.get_layer("output").output.placeholder, make_feed(net, {"data": X}, {"data": LENS}))
    np.testing.assert_allclose(out, X + 0.5, rtol=1e-6)


def test_dynamic_batch_broadcast_reads_shape(session):
    """a [B,F] reduction broadcast over T: the batch size comes from the tensor's shape, values as numpy"""
    net = build_net({"m": {"class": "reduce", "mode": "max", "axes": "T", "from": "data"},
                     "output": {"class": "combine", "kind": "sub", "from": ["data", "m"]}}, {"data": {"dim": 4}})
    assert any(op.type != "Const" for op in _reshape_inputs(net))
    out = session.run(net.get_layer("output").output.placeholder, make_feed(net, {"data": X}, {"data": LENS}))
    mask = np.arange(5)[None, :] < np.array(LENS)[:, None]
    xm = np.where(mask[:, :, None], X, -np.inf).max(axis=1)
    np.testing.assert_allclose(out, X - xm[:, None, :], rtol=1e-5)

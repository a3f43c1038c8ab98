"""variable: dims, param names, init and batch tiling as observed from the reference."""

import numpy as np
import pytest
import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import FeatureDim, SpatialDim
from tf_net_helpers import build_net, make_feed


def test_variable_dims_and_params(session):
    sd = SpatialDim("sp", 2)
    net = build_net({
        "a": {"class": "variable", "shape": [5], "is_output_layer": True},
        "b": {"class": "variable", "shape": [2, 3], "add_batch_axis": True, "add_time_axis": True, "init": 1.5,
              "is_output_layer": True},
        "c": {"class": "variable", "shape": [FeatureDim("vf", 4), sd], "param_name": "p", "trainable": False,
              "is_output_layer": True},
        "d": {"class": "variable", "shape": [], "dtype": "int32", "init": 3, "is_output_layer": True},
        "e": {"class": "variable", "shape": [3], "init_by_layer": "const", "is_output_layer": True},
        "const": {"class": "constant", "value": np.arange(3, dtype="float32")},
    }, {"data": {"dim": 3}})
    # reprs observed from the reference
    assert repr(net.get_layer("a").output) == "Tensor{'a_output', [F|F'a:static:0'(5)]}"
    assert repr(net.get_layer("b").output) == \
        "Tensor{'b_output', [B,'b:dummy-time'(1),'b:static:0'(2),F|F'b:static:1'(3)]}"
    assert repr(net.get_layer("c").output) == "Tensor{'c_output', [F'vf'(4),F|'sp'(2)]}"
    assert repr(net.get_layer("d").output) == "Tensor{'d_output', [], dtype='int32'}"
    names = {v.name: v.shape.as_list() for v in tf.compat.v1.global_variables()}
    assert names == {"a/a:0": [5], "b/b:0": [2, 3], "c/p:0": [4, 2], "d/d:0": [], "e/e:0": [3]}
    assert [v.name for v in tf.compat.v1.trainable_variables()] == ["a/a:0", "b/b:0", "d/d:0", "e/e:0"]
    session.run(tf.compat.v1.global_variables_initializer())
    feed = make_feed(net, {"data": np.zeros((4, 2, 3), "float32")}, {"data": [2, 2, 1, 1]})
    a, b, d, e = session.run([net.get_layer(n).output.placeholder for n in "abde"], feed_dict=feed)
    np.testing.assert_array_equal(a, np.zeros(5))  # default init: zeros (as the reference)
    np.testing.assert_array_equal(b, np.full((4, 1, 2, 3), 1.5))
    assert d == 3 and d.dtype == np.int32
    np.testing.assert_array_equal(e, [0.0, 1.0, 2.0])


def test_variable_gradient_and_error(session):
    net = build_net({"v": {"class": "variable", "shape": [3], "init": 2.0},
                     "output": {"class": "combine", "kind": "mul", "from": ["data", "v"]}}, {"data": {"dim": 3}})
    x = np.random.RandomState(0).randn(2, 4, 3).astype("float32")
    out = net.get_layer("output").output.placeholder
    grad = tf.gradients(tf.reduce_sum(out), net.get_layer("v").params["v"])[0]
    session.run(tf.compat.v1.global_variables_initializer())
    y, g = session.run([out, grad], feed_dict=make_feed(net, {"data": x}, {"data": [4, 4]}))
    np.testing.assert_allclose(y, x * 2.0, rtol=1e-6)
    np.testing.assert_allclose(g, x.sum((0, 1)), rtol=1e-5)
    with pytest.raises(LayerArgError) as info:
        build_net({"output": {"class": "variable", "shape": 3}}, {"data": {"dim": 3}})
    assert info.value.arg == "shape"


def test_variable_public_path():
    from returnn.tf.layers.variable import VariableLayer
    from returnn.tf.layers.basic import get_layer_class
    assert get_layer_class("variable") is VariableLayer


def test_variable_split_info_of_dim_arithmetic(session):
    from returnn.tf.util.basic import get_param_axes_split_info
    feat1, feat2 = FeatureDim("feature1", 3), FeatureDim("feature2", 5)
    net = build_net({"output": {"class": "variable", "shape": [2 * feat1 + feat2, 3 * feat1]},
                     "b": {"class": "variable", "shape": [4, feat2], "is_output_layer": True}}, {"data": {"dim": 3}})
    # observed from the reference: the raw output and the param carry the parts of each axis
    layer = net.get_layer("output")
    assert get_param_axes_split_info(layer.output.placeholder) == [[3, 3, 5], [3, 3, 3]]
    assert get_param_axes_split_info(layer.params["output"]) == [[3, 3, 5], [3, 3, 3]]
    assert get_param_axes_split_info(net.get_layer("b").output.placeholder) == [[4], [5]]

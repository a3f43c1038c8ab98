"""transposed_conv: params and dims as the reference, numerics against a numpy scatter-add deconvolution."""

import numpy as np
import pytest
import tensorflow as tf

from returnn.errors import LayerArgError
from tf_net_helpers import build_net, make_feed

RND = np.random.RandomState(2)
X = RND.randn(2, 4, 3).astype("float32")
LENS = [4, 2]


def np_transposed_conv(x, w, stride, pad_left, out_len):
    """x [B, T, C_in], w [k, 1, C_out, C_in] -> [B, out_len, C_out]"""
    k = w.shape[0]
    full = np.zeros((x.shape[0], (x.shape[1] - 1) * stride + k, w.shape[2]), "float32")
    for t in range(x.shape[1]):
        for kk in range(k):
            full[:, t * stride + kk] += x[:, t] @ w[kk, 0].T
    return full[:, pad_left:pad_left + out_len]


@pytest.mark.parametrize("opts, out_desc, pad_left, out_len, lens", [
    ({"strides": [3]}, "time:var:extern_data:data*3", 0, 12, [12, 6]),  # same, k == s
    ({"strides": [2], "padding": "valid"}, "time:var:extern_data:data*2+1", 0, 9, [9, 5]),
    ({"strides": [2], "padding": "valid", "remove_padding": 1}, "-1+time:var:extern_data:data*2", 1, 7, [7, 3]),
])
def test_transposed_conv_numpy(session, opts, out_desc, pad_left, out_len, lens):
    net = build_net({"output": {"class": "transposed_conv", "filter_size": [3], "n_out": 5, "from": "data", **opts}},
                    {"data": {"dim": 3}})
    layer = net.get_layer("output")
    assert repr(layer.output) == f"Tensor{{'output_output', [B,T|'{out_desc}'[B],F|F'output:channel'(5)]}}"
    # param names and shapes observed from the reference
    assert {k: v.shape.as_list() for k, v in layer.params.items()} == {
        "W_native_transposed_conv": [3, 1, 5, 3], "bias": [5]}
    session.run(tf.compat.v1.global_variables_initializer())
    w = RND.randn(3, 1, 5, 3).astype("float32")
    b = RND.randn(5).astype("float32")
    layer.params["W_native_transposed_conv"].load(w, session)
    layer.params["bias"].load(b, session)
    y, sizes = session.run([layer.output.placeholder, layer.output.dims[1].dyn_size],
                           feed_dict=make_feed(net, {"data": X}, {"data": LENS}))
    np.testing.assert_allclose(y, np_transposed_conv(X, w, opts["strides"][0], pad_left, out_len) + b,
                               rtol=1e-5, atol=1e-5)
    assert sizes.tolist() == lens


def test_transposed_conv_2d_dims_and_output_padding(session):
    net = build_net({"a": {"class": "transposed_conv", "filter_size": [3, 2], "strides": [2, 2], "n_out": 4,
                           "from": "data:img", "is_output_layer": True},
                     "b": {"class": "transposed_conv", "filter_size": [4], "strides": [2], "n_out": 4,
                           "output_padding": 1, "with_bias": False, "from": "data", "is_output_layer": True}},
                    {"data": {"dim": 3}, "img": {"shape": (None, 5, 2)}})
    assert repr(net.get_layer("a").output) == (
        "Tensor{'a_output', [B,T|'time:var:extern_data:img*2'[B],'spatial1:static5:img*2'(10),F|F'a:channel'(4)]}")
    assert net.get_layer("a").params["W_native_transposed_conv"].shape.as_list() == [3, 2, 4, 2]
    assert net.get_layer("b").output.dims[1].description == "time:var:extern_data:data*2+-1"
    assert list(net.get_layer("b").params) == ["W_native_transposed_conv"]


def test_transposed_conv_missing_n_out(session):
    with pytest.raises(LayerArgError) as info:
        build_net({"output": {"class": "transposed_conv", "filter_size": [3], "from": "data"}}, {"data": {"dim": 3}})
    assert info.value.arg == "n_out"


def test_transposed_conv_valid_stride_equal_filter_numpy(session):
    # strides = filter size with padding "valid": no overlap and no extra frames (the matmul path)
    net = build_net({"output": {"class": "transposed_conv", "filter_size": [2], "strides": [2], "padding": "valid",
                                "n_out": 4, "with_bias": False, "from": "data"}}, {"data": {"dim": 3}})
    layer = net.get_layer("output")
    session.run(tf.compat.v1.global_variables_initializer())
    w = RND.randn(2, 1, 4, 3).astype("float32")
    layer.params["W_native_transposed_conv"].load(w, session)
    y, sizes = session.run([layer.output.placeholder, layer.output.dims[1].dyn_size],
                           feed_dict=make_feed(net, {"data": X}, {"data": LENS}))
    np.testing.assert_allclose(y, np_transposed_conv(X, w, 2, 0, 8), rtol=1e-5, atol=1e-5)
    assert sizes.tolist() == [8, 4]


def test_transposed_conv_2d_stride_equal_filter_as_tf(session):
    # 2-d, strides = filter size: values and gradients (input and weights) equal to TensorFlow's conv2d_transpose
    net = build_net({"output": {"class": "transposed_conv", "filter_size": [2, 3], "strides": [2, 3], "n_out": 4,
                                "with_bias": False, "from": "data:img"}},
                    {"data": {"dim": 3}, "img": {"shape": (None, 5, 2)}})
    layer = net.get_layer("output")
    weights = layer.params["W_native_transposed_conv"]
    assert weights.shape.as_list() == [2, 3, 4, 2]
    x_ph = net.extern_data.data["img"].placeholder
    y = layer.output.placeholder
    shape = tf.shape(x_ph)
    ref = tf.nn.conv2d_transpose(x_ph, weights, output_shape=tf.stack([shape[0], shape[1] * 2, 15, 4]),
                                 strides=[1, 2, 3, 1], padding="SAME")
    grads = tf.gradients(tf.reduce_sum(y * y), [x_ph, weights])
    ref_grads = tf.gradients(tf.reduce_sum(ref * ref), [x_ph, weights])
    session.run(tf.compat.v1.global_variables_initializer())
    img = RND.randn(2, 4, 5, 2).astype("float32")
    out = session.run([y, ref] + grads + ref_grads, feed_dict=make_feed(net, {"img": img, "data": X},
                                                                         {"img": [4, 3], "data": LENS}))
    assert out[0].shape == (2, 8, 15, 4)
    np.testing.assert_allclose(out[0], out[1], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(out[2], out[4], rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(out[3], out[5], rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("padding, bias, expected", [
    ("same", 0.0, [[1.5, 1.5, 3.5, 3.5, 5.0], [6.5, 6.5, 8.5, 8.5, 10.0]]),  # 3 frames * 2: cut to 5
    ("valid", 0.0, [[1.5, 1.5, 3.5, 3.5, 0.0], [6.5, 6.5, 8.5, 8.5, 0.0]]),  # 2 frames * 2: zero-padded to 5
    ("valid", 10.0, [[11.5, 11.5, 13.5, 13.5, 10.0], [16.5, 16.5, 18.5, 18.5, 10.0]]),  # the bias after the padding
])
def test_out_spatial_dims_of_another_size_cut_or_padded(session, padding, bias, expected):
    # values observed from the reference: pool by 2, then back up to the input's own time dim
    from returnn.tensor import FeatureDim, SpatialDim, batch_dim
    time_dim, feature_dim = SpatialDim("time"), FeatureDim("feature", 1)
    net = build_net({
        "down": {"class": "pool", "mode": "avg", "pool_size": [2], "from": "data", "padding": padding},
        "output": {"class": "transposed_conv", "filter_size": [2], "from": "down", "padding": padding,
                   "out_spatial_dims": [time_dim], "out_dim": feature_dim, "forward_weights_init": 1.0,
                   "bias_init": bias}}, {"data": {"dim_tags": (batch_dim, time_dim, feature_dim)}})
    out = net.layers["output"].output
    assert out.dims == net.extern_data.data["data"].dims  # the input's dims, not ceil(T / 2) * 2
    session.run(tf.compat.v1.global_variables_initializer())
    x = np.arange(1, 11, dtype="float32").reshape(2, 5, 1)
    y, lens = session.run((out.placeholder, out.get_sequence_lengths()), make_feed(net, {"data": x}, {"data": [5, 3]}))
    np.testing.assert_allclose(y[..., 0], expected)
    assert lens.tolist() == [5, 3]

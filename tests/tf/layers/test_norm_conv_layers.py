"""layer_norm, batch_norm, conv, pool: param names/shapes and numbers as observed from the reference, masking of
padded frames, batch- and time-major input, one gradient step."""

import numpy as np
import pytest
import tensorflow as tf

from tf_net_helpers import build_net, forward_and_grad_step, make_feed

# input and outputs observed from the reference (rounded to 4 digits)
X = np.array([[[1.7641, 0.4002, 0.9787, 2.2409], [1.8676, -0.9773, 0.9501, -0.1514],
               [-0.1032, 0.4106, 0.1440, 1.4543]],
              [[0.7610, 0.1217, 0.4439, 0.3337], [1.4941, -0.2052, 0.3131, -0.8541],
               [-2.5530, 0.6536, 0.8644, -0.7422]]], "float32")
LENS = [3, 2]


def _feed(net, time_major=False):
    return make_feed(net, {"data": X.transpose(1, 0, 2) if time_major else X}, {"data": LENS})


def test_layer_norm_like_reference(session):
    net = build_net({"output": {"class": "layer_norm", "from": "data"}}, {"data": {"dim": 4}})
    assert {k: v.shape.as_list() for k, v in net.layers["output"].params.items()} == {"scale": [4], "bias": [4]}
    out = forward_and_grad_step(session, net, _feed(net))
    np.testing.assert_allclose(out[0, 0], [0.5905, -1.3359, -0.5187, 1.2640], atol=2e-4)
    mean, std = X.mean(-1, keepdims=True), X.std(-1, keepdims=True)
    np.testing.assert_allclose(out, (X - mean) / np.sqrt(std ** 2 + 1e-6), atol=1e-5)


@pytest.mark.parametrize("time_major", [False, True])
def test_batch_norm_train_masks_padding_like_reference(session, time_major):
    net = build_net({"bn": {"class": "batch_norm", "from": "data", "is_output_layer": True}},
                    {"data": {"dim": 4, **({"batch_dim_axis": 1} if time_major else {})}})
    assert sorted(net.layers["bn"].params) == ["batch_norm/bn_bn_output_beta", "batch_norm/bn_bn_output_gamma",
                                               "batch_norm/bn_bn_output_mean", "batch_norm/bn_bn_output_variance"]
    assert net.layers["bn"].params["batch_norm/bn_bn_output_mean"].name == "bn/batch_norm/bn_bn_output_mean:0"
    feed = _feed(net, time_major)
    out = forward_and_grad_step(session, net, feed, layer="bn")
    out = out.transpose(1, 0, 2) if time_major else out
    np.testing.assert_allclose(out[0, 0], [0.8209, 0.8718, 1.2121, 1.4721], atol=3e-4)
    np.testing.assert_allclose(out[1, 2, 0], -5.014, atol=3e-3)
    session.run(tf.compat.v1.global_variables_initializer())
    session.run(tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.UPDATE_OPS), feed)
    mean = session.run(net.layers["bn"].params["batch_norm/bn_bn_output_mean"]).reshape(4)
    np.testing.assert_allclose(mean, [1.1451, -0.0495, 0.5603, 0.5986], atol=3e-4)


def test_batch_norm_eval_uses_updated_moving_stats_like_reference(session):
    net = build_net({"bn": {"class": "batch_norm", "from": "data", "is_output_layer": True}}, {"data": {"dim": 4}},
                    train_flag=False)
    session.run(tf.compat.v1.global_variables_initializer())
    out = session.run(net.layers["bn"].output.placeholder, _feed(net))
    np.testing.assert_allclose(out[0, 0], [0.8331, 0.8591, 1.1844, 1.4789], atol=3e-4)


def test_conv_1d_like_reference(session):
    net = build_net({"output": {"class": "conv", "filter_size": (3,), "n_out": 2, "padding": "same",
                                "forward_weights_init": 1.0, "from": "data"}}, {"data": {"dim": 4}})
    assert {k: v.shape.as_list() for k, v in net.layers["output"].params.items()} == {"W": [3, 4, 2]}
    assert repr(net.layers["output"].output.feature_dim) == "Dim{F'output:channel'(2)}"
    session.run(tf.compat.v1.global_variables_initializer())
    out = session.run(net.layers["output"].output.placeholder, _feed(net))
    np.testing.assert_allclose(out[0, :, 0], [7.0729, 8.9785, 3.5947], atol=1e-3)
    # frame 1 of seq 1 is its last valid frame: it sees the value in padded frame 2, as the reference (observed:
    # its conv and pool use padded frames as they are)
    np.testing.assert_allclose(out[1, 1, 0], X[1, :3].sum(), atol=1e-4)


@pytest.mark.parametrize("time_major", [False, True])
def test_conv_valid_stride_lengths_and_grad(session, time_major):
    x = np.random.RandomState(0).randn(2, 7, 4).astype("float32")
    net = build_net({"output": {"class": "conv", "filter_size": (3,), "n_out": 5, "padding": "valid", "strides": 2,
                                "with_bias": True, "activation": "relu", "from": "data"}},
                    {"data": {"dim": 4, **({"batch_dim_axis": 1} if time_major else {})}})
    feed = make_feed(net, {"data": x.transpose(1, 0, 2) if time_major else x}, {"data": [7, 4]})
    out = forward_and_grad_step(session, net, feed)
    assert sorted(net.layers["output"].params) == ["W", "bias"]
    assert out.shape == (2, 3, 5)
    lens = session.run(net.layers["output"].output.get_sequence_lengths(), feed)
    np.testing.assert_array_equal(lens, [3, 1])  # ceil((n - 2) / 2)


def test_conv_2d_input_add_feature_dim(session):
    net = build_net({"output": {"class": "conv", "filter_size": (3, 3), "n_out": 2, "padding": "same",
                                "input_add_feature_dim": True, "from": "data"}}, {"data": {"dim": 4}})
    assert net.layers["output"].params["W"].shape.as_list() == [3, 3, 1, 2]
    assert net.layers["output"].output.batch_shape == (None, None, 4, 2)
    out = forward_and_grad_step(session, net, _feed(net))
    assert out.shape == (2, 3, 4, 2)


@pytest.mark.parametrize("mode, expected", [("avg", [[1.8158, -0.2886], [-0.1032, 0.4106]]),
                                            ("max", [[1.8676, 0.4002], [-0.1032, 0.4106]])])
def test_pool_like_reference(session, mode, expected):
    net = build_net({"output": {"class": "pool", "mode": mode, "pool_size": (2,), "padding": "same", "from": "data"}},
                    {"data": {"dim": 4}})
    feed = _feed(net)
    out = forward_and_grad_step(session, net, feed)
    np.testing.assert_allclose(out[0, :, :2], expected, atol=2e-4)
    np.testing.assert_array_equal(session.run(net.layers["output"].output.get_sequence_lengths(), feed), [2, 1])
    # as the reference (observed): the new dim is named after the layer and printed as the arithmetic it is
    time_dim = net.layers["output"].output.time_dim
    assert time_dim.description == "output:conv:s0"
    assert repr(time_dim) == "Dim{'⌈time:var:extern_data:data/2⌉'[B]}"


def test_conv_same_padding_keeps_time_dim(session):
    net = build_net({"output": {"class": "conv", "filter_size": (3,), "n_out": 2, "padding": "same", "from": "data"}},
                    {"data": {"dim": 4}})
    assert net.layers["output"].output.time_dim is net.layers["data"].output.time_dim

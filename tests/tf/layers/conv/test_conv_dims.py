"""conv/pool output dims (dim arithmetic, ``out_spatial_dims``, static and unrelated dims), ``calc_out_dim``, strides
with dilation, a filter given as a layer, the channel-first option and the loss of a channel-first output; the
expectations are numpy or values observed from the reference."""

import numpy as np
import pytest
import tensorflow as tf

from returnn.config import Config
from returnn.tensor import Dim, NotSpecified, SpatialDim, batch_dim
from returnn.tf.layers.basic import ConvLayer
from returnn.tf.network import TFNetwork
from returnn.tf.util import basic as tf_util
from returnn.tf.util.device import set_configured_device
from tf_net_helpers import build_net, make_feed


def _windows(x: np.ndarray, size: int, stride: int = 1, dilation: int = 1) -> np.ndarray:
    """:return: [B, T', size, F]: the valid windows of x [B, T, F]"""
    n = (x.shape[1] - (size - 1) * dilation + stride - 1) // stride
    return np.stack([x[:, i * stride:i * stride + (size - 1) * dilation + 1:dilation] for i in range(n)], axis=1)


def test_calc_out_dim():
    # as the reference (observed): at least 0; "same" only divides by the stride
    assert ConvLayer.calc_out_dim(in_dim=10, filter_size=3, stride=3, padding="same") == 4
    assert ConvLayer.calc_out_dim(in_dim=10, filter_size=2, stride=3, padding="valid") == 3
    assert ConvLayer.calc_out_dim(in_dim=1, filter_size=3, stride=1, padding="valid") == 0
    assert ConvLayer.calc_out_dim(in_dim=10, filter_size=3, stride=2, padding="valid", dilation_rate=2) == 3
    time = SpatialDim("t")
    out = ConvLayer.calc_out_dim(in_dim=time, filter_size=3, stride=2, padding="valid", dilation_rate=2)
    assert out.description == "⌈((-2+t)+-2)/2⌉" and out == time.sub_left(2).sub_right(2).ceildiv_right(2)
    assert ConvLayer.calc_out_dim(in_dim=time, filter_size=3, stride=1, padding="same") is time
    with tf.Graph().as_default(), tf.compat.v1.Session() as session:
        assert session.run(ConvLayer.calc_out_dim(in_dim=tf.constant(2), filter_size=4, stride=2,
                                                  padding="valid")) == 0


def test_out_spatial_dims_dynamic(session):
    time_dim, conv_dim = SpatialDim("time"), SpatialDim("conv")
    net = build_net({"output": {"class": "conv", "from": "data", "filter_size": [4], "strides": 3, "padding": "valid",
                                "n_out": 2, "out_spatial_dims": [conv_dim], "forward_weights_init": 1.0}},
                    {"data": {"dim_tags": [batch_dim, time_dim, Dim(1, name="in")]}})
    out = net.layers["output"].output
    data_time = net.extern_data.data["data"].dims[1]
    assert out.dims[1] == conv_dim == data_time.sub_left(1).sub_right(2).ceildiv_right(3)
    assert conv_dim.derived_from_op is None and conv_dim.get_same_base().derived_from_op.kind == "ceildiv"
    assert out.feature_dim_axis_or_unspecified is NotSpecified
    x = np.arange(2 * 9, dtype="float32").reshape(2, 9, 1)
    session.run(tf.compat.v1.global_variables_initializer())
    y, lens = session.run((out.placeholder, out.get_sequence_lengths()), make_feed(net, {"data": x}, {"data": [9, 7]}))
    np.testing.assert_array_equal(lens, [2, 2])  # ceil((n - 3) / 3)
    np.testing.assert_allclose(y[..., 0], _windows(x, 4, 3).sum(axis=(2, 3)))


def test_out_spatial_dims_static():
    with tf.Graph().as_default():
        conv_dim = SpatialDim("conv")
        net = build_net({"output": {"class": "conv", "from": "data", "filter_size": [4], "strides": 3,
                                    "padding": "valid", "n_out": 2, "out_spatial_dims": [conv_dim]}},
                        {"data": {"shape": (13, 7)}})
        out = net.layers["output"].output
        # as the reference (observed): the undefined dim given becomes the static computed one
        assert conv_dim.dimension == 4 and not conv_dim.is_dynamic() and out.batch_shape == (None, 4, 2)
        assert repr(out.dims[1]) == "Dim{'⌈((-1+spatial0:static13:data)+-2)/3⌉'(4)}"


def test_unrelated_dim_stays_in_front(session):
    # [B, T, other, F], conv over T only: [B, other, T', C] with T' the time axis, as the reference (observed)
    net = build_net({"output": {"class": "conv", "from": "data", "filter_size": [2], "in_spatial_dims": ["T"],
                                "padding": "valid", "n_out": 1, "forward_weights_init": 1.0}},
                    {"data": {"shape": (None, None, 2)}})
    out = net.layers["output"].output
    data = net.extern_data.data["data"]
    assert out.dims[1] == data.dims[2] and out.time_dim_axis == 2 and out.dims[2] not in data.dims
    x = np.random.RandomState(0).randn(2, 4, 3, 2).astype("float32")
    session.run(tf.compat.v1.global_variables_initializer())
    y = session.run(out.placeholder, make_feed(net, {"data": x}, {"data": {0: [4, 2], 1: [3, 3]}}))
    np.testing.assert_allclose(y[..., 0], (x[:, 1:] + x[:, :-1]).sum(axis=-1).transpose(0, 2, 1), rtol=1e-5)


@pytest.mark.parametrize("padding, n, expected", [
    ("same", 8, [5, 20, 80, 64]), ("same", 7, [2, 10, 40, 32]), ("valid", 8, [5, 20, 80]), ("valid", 7, [5, 20, 80])])
def test_strides_with_dilation(session, padding, n, expected):
    # values observed from the reference for x = 2 ** t (TensorFlow's definition of both)
    net = build_net({"output": {"class": "conv", "n_out": 1, "with_bias": False, "filter_size": (2,), "strides": (2,),
                                "dilation_rate": (2,), "padding": padding, "from": "data",
                                "forward_weights_init": 1.0}}, {"data": {"dim": 1}})
    session.run(tf.compat.v1.global_variables_initializer())
    out = net.layers["output"].output
    x = (2 ** np.arange(n, dtype="float32")).reshape(1, n, 1)
    y, lens = session.run((out.placeholder, out.get_sequence_lengths()), make_feed(net, {"data": x}, {"data": [n]}))
    np.testing.assert_allclose(y[0, :, 0], expected)
    assert lens.tolist() == [len(expected)]


def test_filter_and_bias_from_layers(session):
    net = build_net({
        "filter": {"class": "variable", "shape": (3, 2, 4), "init": "glorot_uniform"},
        "bias": {"class": "variable", "shape": (4,), "init": 1.0},
        "output": {"class": "conv", "filter_size": (3,), "strides": 2, "n_out": 4, "padding": "valid",
                   "filter": "filter", "bias": "bias", "from": "data"}}, {"data": {"shape": (None, 2)}})
    layer = net.layers["output"]
    assert not layer.params and {d.name for d in layer.get_dep_layers()} == {"data", "filter", "bias"}
    session.run(tf.compat.v1.global_variables_initializer())
    x = np.random.RandomState(2).randn(2, 7, 2).astype("float32")
    y, w = session.run((layer.output.placeholder, net.layers["filter"].output.placeholder),
                       make_feed(net, {"data": x}, {"data": [7, 7]}))
    np.testing.assert_allclose(y, np.einsum("btkf,kfo->bto", _windows(x, 3, 2), w) + 1.0, rtol=1e-5, atol=1e-5)


def test_channel_first_on_gpu_device_only():
    try:
        for device, channel_first in [("gpu", True), ("cpu", False)]:
            with tf.Graph().as_default():
                net = TFNetwork(config=Config({"extern_data": {"data": {"shape": (None, 5, 1)}}, "device": device}))
                assert tf_util.is_gpu_available_in_session() == channel_first  # no session: what the config asks
                net.construct_from_dict({
                    "conv": {"class": "conv", "from": "data", "filter_size": (3, 3), "in_spatial_dims": ["T", "dim:5"],
                             "n_out": 4, "padding": "same", "auto_use_channel_first": True,
                             "forward_weights_init": 1.0, "is_output_layer": True},
                    "pool": {"class": "pool", "from": "data", "pool_size": (1, 5), "in_spatial_dims": ["T", "dim:5"],
                             "mode": "max", "use_channel_first": True, "is_output_layer": True},
                    "last": {"class": "conv", "from": "data", "filter_size": (3, 3), "in_spatial_dims": ["T", "dim:5"],
                             "n_out": 4, "padding": "same", "auto_use_channel_first": False,
                             "forward_weights_init": 1.0, "is_output_layer": True}})
                conv, pool, last = (net.layers[n].output for n in ("conv", "pool", "last"))
                assert conv.feature_dim_axis == (1 if channel_first else 3)
                assert pool.feature_dim_axis == (1 if channel_first else 3)
                assert conv.dims[2 if channel_first else 1] == last.dims[1]
                with tf.compat.v1.Session() as session:  # computed channel-last and transposed: runs on CPU too
                    session.run(tf.compat.v1.global_variables_initializer())
                    x = np.random.RandomState(3).randn(2, 3, 5, 1).astype("float32")
                    feed = make_feed(net, {"data": x}, {"data": [3, 2]})
                    a, b = session.run((conv.copy_as_batch_spatial_major().placeholder, last.placeholder), feed)
                    np.testing.assert_allclose(a, b, rtol=1e-5)
    finally:
        set_configured_device(None)


def test_loss_of_channel_first_output(session):
    # as the reference (test_Loss_NCHW): the loss takes the output feature-last, the logits moved along
    net = build_net({"output": {"class": "softmax", "from": "data", "n_out": 3, "loss": "ce"}},
                    {"data": {"dim": 3}, "classes": {"dim": 3, "sparse": True}})
    layer = net.layers["output"]
    from returnn.tf.layers.basic import ActivationLayer, InternalLayer
    from returnn.tf.layers.losses.cross_entropy import CrossEntropyLoss
    src = layer.output.copy_as_batch_feature_major()
    internal = InternalLayer(name="src", network=net, output=src)
    act = ActivationLayer(name="act", network=net, activation="softmax", sources=[internal],
                          output=ActivationLayer.get_out_data_from_opts(name="act", activation="softmax",
                                                                        network=net, sources=[internal]))
    assert act.output.feature_dim_axis == 1
    loss = CrossEntropyLoss(base_network=net)
    loss.init(output=act.output, output_with_activation=act.output_before_activation,
              target=net.extern_data.data["classes"], layer=act)
    assert loss.output.feature_dim_axis == 2
    session.run(tf.compat.v1.global_variables_initializer())
    x = np.random.RandomState(4).randn(2, 4, 3).astype("float32")
    classes = np.array([[0, 1, 2, 1], [2, 2, 0, 0]], "int32")
    feed = make_feed(net, {"data": x, "classes": classes}, {"data": [4, 3], "classes": [4, 3]})
    logits, value, src_raw = session.run((loss.output_before_softmax_flat, loss.get_value(), src.placeholder), feed)
    assert logits.shape == (7, 3)
    z = src_raw.transpose(0, 2, 1)  # [B, T, F]: the softmax over F of these
    flat = np.concatenate([z[0, :4], z[1, :3]])
    np.testing.assert_allclose(logits, flat, rtol=1e-5)
    log_p = flat - np.log(np.exp(flat).sum(-1, keepdims=True))
    labels = np.concatenate([classes[0, :4], classes[1, :3]])
    np.testing.assert_allclose(value, -log_p[np.arange(7), labels].sum(), rtol=1e-4)

"""conv/pool ``in_spatial_dims`` (published factored-hybrid configs: ``["T", "dim:50"]`` over ``[B, T, 50, C]``) and
the names of static output spatial dims (``<layer>:conv:s<i>``, as the reference names them, found by ``stag:``)."""

import numpy as np
import tensorflow as tf

from tf_net_helpers import build_net, make_feed

EXTERN = {"data": {"shape": (None, 6, 2)}}  # [B, T, 6, C=2]


def test_in_spatial_dims_in_order_and_stag_of_pooled_dim(session):
    net = build_net({
        "conv": {"class": "conv", "from": "data", "filter_size": (3, 3), "padding": "same", "n_out": 4,
                 "in_spatial_dims": ["T", "dim:6"], "activation": None},
        "pool": {"class": "pool", "from": "conv", "mode": "max", "padding": "same", "pool_size": (1, 2),
                 "in_spatial_dims": ["T", "dim:6"]},
        "output": {"class": "merge_dims", "from": "pool", "axes": ["stag:pool:conv:s1", "F"]}}, EXTERN)
    pool = net.layers["pool"].output
    assert pool.dims[2].description == "pool:conv:s1" and pool.dims[2].dimension == 3
    assert net.layers["output"].output.dim == 12
    x = np.random.RandomState(0).randn(2, 5, 6, 2).astype("float32")
    session.run(__import__("tensorflow").compat.v1.global_variables_initializer())
    out = session.run(net.layers["pool"].output.placeholder, make_feed(net, {"data": x}, {"data": [5, 3]}))
    assert out.shape == (2, 5, 3, 4)


def test_in_spatial_dims_in_another_order(session):
    # as the reference (observed): the spatial axes come in the given order, [B, S'(3), T, C]; the time axis stays T
    net = build_net({"output": {"class": "pool", "from": "data", "mode": "max", "pool_size": (2, 1),
                                "in_spatial_dims": ["dim:6", "T"]}}, EXTERN)
    out = net.layers["output"].output
    data = net.extern_data.data["data"]
    assert out.dims[2] == data.dims[1] and out.time_dim_axis == 2 and out.dims[1].dimension == 3
    assert out.feature_dim_axis == 3
    x = np.random.RandomState(1).randn(2, 5, 6, 2).astype("float32")
    y = session.run(out.placeholder, make_feed(net, {"data": x}, {"data": [5, 3]}))
    np.testing.assert_allclose(y, x.reshape(2, 5, 3, 2, 2).max(axis=3).transpose(0, 2, 1, 3))


def test_conv_and_pool_use_padded_frames_as_the_reference(session):
    # values observed from the reference (RETURNN 1.20261022) for this batch: the second sequence (length 2) has
    # 100 in its padded frames, which its last valid frame sees through the window (padding "same")
    net = build_net({"pool": {"class": "pool", "mode": "max", "pool_size": (2,), "padding": "same", "from": "data",
                           "is_output_layer": True},
                  "pool3": {"class": "pool", "mode": "avg", "pool_size": (3,), "strides": (1,), "padding": "same",
                            "from": "data", "is_output_layer": True},
                  "conv": {"class": "conv", "filter_size": (3,), "n_out": 1, "padding": "same", "from": "data",
                           "forward_weights_init": 1.0, "is_output_layer": True}}, {"data": {"dim": 1}})
    session.run(tf.compat.v1.global_variables_initializer())
    x = np.array([[[1.], [2.], [3.], [4.]], [[1.], [2.], [100.], [100.]]], "float32")
    feed = make_feed(net, {"data": x}, {"data": [4, 2]})
    out = {n: session.run(net.layers[n].output.copy_as_batch_major().placeholder, feed)[:, :, 0] for n in net.layers
           if n != "data"}
    np.testing.assert_allclose(out["pool"][0], [2.0, 4.0])
    np.testing.assert_allclose(out["pool"][1, 0], 2.0)
    np.testing.assert_allclose(out["pool3"][0], [1.5, 2.0, 3.0, 3.5], rtol=1e-6)
    np.testing.assert_allclose(out["pool3"][1, :2], [1.5, 34.333332], rtol=1e-6)
    np.testing.assert_allclose(out["conv"][0], [3.0, 6.0, 9.0, 7.0])
    np.testing.assert_allclose(out["conv"][1, :2], [3.0, 103.0])

"""Rec units: sub layers ``x/y`` of unit layers (in the loop of a search), the rec layer's ``axis`` over a dim
whose length is one scalar, out_shape of moved-out layers, config dims inside unit subnetworks."""

import numpy as np
import tensorflow as tf

from returnn.config import Config
from returnn.tensor import FeatureDim, SpatialDim, batch_dim
from returnn.tf.network import TFNetwork
from tf_net_helpers import make_feed


def test_split_sub_layer_in_search_loop(session):
    config = Config({"extern_data": {"data": {"dim": 4}, "classes": {"dim": 6, "sparse": True}}})
    net = TFNetwork(config=config, search_flag=True, train_flag=False, eval_flag=False)
    net.construct_from_dict({
        "enc": {"class": "reduce", "mode": "sum", "from": "data", "axis": "T"},
        "output": {"class": "rec", "from": [], "target": "classes", "max_seq_len": 5, "unit": {
            "embed": {"class": "linear", "from": "prev:output", "activation": None, "n_out": 10},
            "split": {"class": "split", "size_splits": (4, 6), "axis": "F", "from": "embed"},
            "prob": {"class": "softmax", "from": ["split/1", "base:enc"], "target": "classes"},
            "output": {"class": "choice", "target": "classes", "beam_size": 3, "from": "prob", "initial_output": 0},
            "end": {"class": "compare", "from": "output", "value": 0}}}})
    loop_layers = net.get_layer("output").cell.layers
    assert loop_layers["prob"].deps == ["split"]  # the template of "split/1" came from split's kwargs
    session.run(tf.compat.v1.global_variables_initializer())
    x = np.random.RandomState(0).randn(2, 3, 4).astype("float32")
    out = session.run(net.get_layer("output").output.placeholder, feed_dict=make_feed(net, {"data": x}, {"data": [3, 2]}))
    assert out.shape[1] == 2 * 3 and out.dtype == np.int32  # [T, B*beam]


def test_rec_axis_scalar_length_dim(session):
    time_dim, feat_dim, k_dim = SpatialDim("time"), FeatureDim("feat", 3), SpatialDim("k")
    config = Config({"extern_data": {"data": {"dim_tags": (batch_dim, time_dim, feat_dim)}}})
    net = TFNetwork(config=config)
    net.construct_from_dict({
        "k": {"class": "constant", "value": 2},
        "top": {"class": "top_k", "from": "data", "axis": feat_dim, "k": "k", "k_dim": k_dim},
        "pos": {"class": "range_in_axis", "from": "top", "axis": k_dim},
        "loop": {"class": "rec", "from": [], "axis": k_dim, "out_shape": {k_dim, batch_dim, time_dim, feat_dim},
                 "unit": {
                     "i": {"class": "rec_unstack", "from": "base:pos", "axis": k_dim, "out_shape": {}},
                     "acc": {"class": "combine", "kind": "add", "from": ["prev:acc", "i"], "need_last": True,
                             "initial_output": "base:data", "out_shape": {batch_dim, time_dim, feat_dim}},
                     "output": {"class": "copy", "from": "acc", "out_shape": {batch_dim, time_dim, feat_dim}}}},
        "output": {"class": "rec_last_output", "rec_layer": "loop", "sub_layer_name": "acc"},
    })
    out = net.get_layer("output").output
    assert set(out.dims) == {batch_dim, net.extern_data.data["data"].dims[1], net.extern_data.data["data"].dims[2]}
    x = np.random.RandomState(1).randn(2, 5, 3).astype("float32")
    y, full = session.run((out.placeholder, net.get_layer("loop").output.placeholder),
                          feed_dict=make_feed(net, {"data": x}, {"data": [5, 3]}))
    assert full.shape[0] == 2  # the loop ran over k_dim (k = 2 steps, the same for all sequences)
    np.testing.assert_allclose(y, x + (0 + 1), rtol=1e-6)  # the last frame: all steps summed


def test_moved_out_out_shape_and_config_dims_in_unit_subnetwork(session):
    time_dim, feat_dim = SpatialDim("time"), FeatureDim("feat", 3)
    config = Config({"extern_data": {"data": {"dim_tags": (batch_dim, time_dim, feat_dim)}}})
    net = TFNetwork(config=config)
    net.construct_from_dict({"output": {"class": "rec", "from": "data", "axis": time_dim, "unit": {
        "sub": {"class": "subnetwork", "from": [], "subnetwork": {
            "r": {"class": "range_in_axis", "from": "base:data:source", "axis": feat_dim, "out_shape": {feat_dim}},
            "output": {"class": "cast", "from": "r", "dtype": "float32"}}},
        "output": {"class": "combine", "kind": "add", "from": ["data:source", "sub"],
                   "out_shape": {batch_dim, feat_dim}}}}})
    out = net.get_layer("output").output
    x = np.random.RandomState(2).randn(2, 4, 3).astype("float32")
    y = session.run(out.copy_as_batch_major().placeholder, feed_dict=make_feed(net, {"data": x}, {"data": [4, 2]}))
    np.testing.assert_allclose(y[0], x[0] + np.arange(3), rtol=1e-6)


def test_subnetwork_concat_sources_false(session):
    from tf_net_helpers import build_net
    net = build_net({
        "a": {"class": "linear", "from": "data", "n_out": 2, "activation": None},
        "b": {"class": "linear", "from": "data", "n_out": 5, "activation": None},
        "output": {"class": "subnetwork", "from": ["a", "b"], "concat_sources": False, "subnetwork": {
            "sum_a": {"class": "reduce", "mode": "sum", "from": "data:0", "axis": "F"},
            "output": {"class": "combine", "kind": "add", "from": ["data:1", "sum_a"]}}}})
    session.run(tf.compat.v1.global_variables_initializer())
    x = np.random.RandomState(3).randn(2, 3, 3).astype("float32")
    feed = make_feed(net, {"data": x}, {"data": [3, 2]})
    a, b, y = session.run([net.get_layer(n).output.placeholder for n in ("a", "b", "output")], feed_dict=feed)
    assert net.get_layer("output").output.dim == 5  # "data:1" is b on its own (not the concatenation)
    np.testing.assert_allclose(y, b + a.sum(axis=-1, keepdims=True), rtol=1e-5)

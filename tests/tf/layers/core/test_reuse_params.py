"""``reuse_params`` in its forms (a layer name, ``map`` with ``reuse_layer``/``layer_output``/``custom``/None,
``auto_create_missing``), layers that depend on the layer whose params they use, and ``name_scope``. Variable names,
``layer.params`` and the network's params as observed from the reference (RETURNN 1.20261022) on the same nets."""

import numpy as np
import pytest
import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import FeatureDim, SpatialDim, batch_dim
from returnn.tf.layers.base import ReuseParams
from tf_net_helpers import build_net, make_feed

X = np.random.RandomState(3).randn(2, 4, 2).astype("float32")


def _names(params):
    return {key: var.name for key, var in params.items()}


def _net_params(net):
    return [p.name for p in net.get_params_list()]


def test_plain_name_uses_the_other_layers_variables(session):
    net = build_net({"l1": {"class": "linear", "n_out": 3, "from": "data"},
                     "output": {"class": "linear", "n_out": 3, "from": "data", "reuse_params": "l1"}},
                    {"data": {"dim": 2}})
    assert _names(net.layers["l1"].params) == {"W": "l1/W:0", "b": "l1/b:0"}
    assert net.layers["output"].params == {}  # not its own
    assert _net_params(net) == ["l1/W:0", "l1/b:0"]
    assert [v.name for v in tf.compat.v1.global_variables()] == ["l1/W:0", "l1/b:0"]
    assert isinstance(net.layers["output"].reuse_params, ReuseParams)
    assert net.layers["output"].get_absolute_name_scope_prefix() == "output/"
    session.run(tf.compat.v1.global_variables_initializer())
    feed = make_feed(net, {"data": X}, {"data": [4, 2]})
    a, b = session.run([net.layers["l1"].output.placeholder, net.layers["output"].output.placeholder], feed)
    np.testing.assert_array_equal(a, b)


def test_plain_dict_form(session):
    net = build_net({"l1": {"class": "linear", "n_out": 3, "from": "data"},
                     "output": {"class": "linear", "n_out": 3, "from": "data", "reuse_params": {"reuse_layer": "l1"}}},
                    {"data": {"dim": 2}})
    assert net.layers["output"].params == {}
    assert _net_params(net) == ["l1/W:0", "l1/b:0"]


def test_map_reuse_layer_and_own_param(session):
    net = build_net({"l1": {"class": "linear", "n_out": 3, "from": "data"},
                     "output": {"class": "linear", "n_out": 3, "from": "data",
                                "reuse_params": {"map": {"W": {"reuse_layer": "l1"}, "b": None}}}},
                    {"data": {"dim": 2}})
    assert _names(net.layers["output"].params) == {"b": "output/b:0"}
    assert _net_params(net) == ["l1/W:0", "l1/b:0", "output/b:0"]


def test_map_without_a_param_is_an_error_unless_auto_create_missing(session):
    with pytest.raises(LayerArgError, match="'b'"):
        build_net({"l1": {"class": "linear", "n_out": 3, "from": "data"},
                   "output": {"class": "linear", "n_out": 3, "from": "data",
                              "reuse_params": {"map": {"W": {"reuse_layer": "l1"}}}}}, {"data": {"dim": 2}})


def test_map_auto_create_missing():
    with tf.Graph().as_default():
        net = build_net({"l1": {"class": "linear", "n_out": 3, "from": "data"},
                         "output": {"class": "linear", "n_out": 3, "from": "data", "reuse_params": {
                             "auto_create_missing": True, "map": {"W": {"reuse_layer": "l1"}}}}}, {"data": {"dim": 2}})
        assert _names(net.layers["output"].params) == {"b": "output/b:0"}


def test_map_custom_gets_the_reference_arguments(session):
    seen = {}

    def custom(**kwargs):
        seen.update(kwargs)
        return tf.transpose(kwargs["reuse_layer"].params["W"])

    net = build_net({"l1": {"class": "linear", "n_out": 5, "from": "data", "with_bias": False},
                     "output": {"class": "linear", "n_out": 2, "from": "l1",
                                "reuse_params": {"map": {"W": {"reuse_layer": "l1", "custom": custom}, "b": None}}}},
                    {"data": {"dim": 2}})
    assert seen["base_layer"] is net.layers["output"] and seen["reuse_layer"] is net.layers["l1"]
    assert (seen["full_name"], seen["name"], list(seen["shape"])) == ("output/W", "W", [5, 2])
    assert {"getter", "dtype", "initializer", "trainable", "reuse"} <= set(seen)
    assert _names(net.layers["output"].params) == {"b": "output/b:0"}
    assert _net_params(net) == ["l1/W:0", "output/b:0"]
    session.run(tf.compat.v1.global_variables_initializer())
    w, b = session.run([net.layers["l1"].params["W"], net.layers["output"].params["b"]])
    feed = make_feed(net, {"data": X}, {"data": [4, 2]})
    h, out = session.run([net.layers["l1"].output.placeholder, net.layers["output"].output.placeholder], feed)
    np.testing.assert_allclose(out, h @ w.T + b, rtol=1e-5)


def test_map_custom_of_a_layer_built_later_that_reads_this_one(session):
    # "l1" uses the transposed W of "output", which reads "l1": the function still gets "output" with its W
    net = build_net({"output": {"class": "linear", "activation": "tanh", "with_bias": False, "from": "l1", "n_out": 2},
                     "l1": {"class": "linear", "n_out": 5, "from": "data", "reuse_params": {"map": {
                         "W": {"reuse_layer": "output",
                               "custom": lambda reuse_layer, **_kwargs: tf.transpose(reuse_layer.params["W"])},
                         "b": None}}}},
                    {"data": {"dim": 2}})
    assert _names(net.layers["output"].params) == {"W": "output/W:0"}
    assert _names(net.layers["l1"].params) == {"b": "l1/b:0"}
    assert sorted(v.name for v in tf.compat.v1.global_variables()) == ["l1/b:0", "output/W:0"]
    session.run(tf.compat.v1.global_variables_initializer())
    w, b = session.run([net.layers["output"].params["W"], net.layers["l1"].params["b"]])
    feed = make_feed(net, {"data": X}, {"data": [4, 2]})
    h = session.run(net.layers["l1"].output.placeholder, feed)
    np.testing.assert_allclose(h, X @ w.T + b, rtol=1e-5)


def test_map_layer_output(session):
    time_dim, in_dim, out_dim = SpatialDim("time"), FeatureDim("in", 2), FeatureDim("out", 3)
    net = build_net({"weights": {"class": "variable", "shape": [in_dim, out_dim]},
                     "bias": {"class": "variable", "shape": [out_dim]},
                     "output": {"class": "linear", "from": "data", "out_dim": out_dim, "reuse_params": {
                         "map": {"W": {"layer_output": "weights"}, "b": {"layer_output": "bias"}}}}},
                    {"data": {"dim_tags": [batch_dim, time_dim, in_dim]}})
    assert net.layers["output"].params == {}
    assert _net_params(net) == ["bias/bias:0", "weights/weights:0"]
    session.run(tf.compat.v1.global_variables_initializer())
    w, b = session.run([net.layers["weights"].output.placeholder, net.layers["bias"].output.placeholder])
    out = session.run(net.layers["output"].output.placeholder, make_feed(net, {"data": X}, {"data": [4, 2]}))
    np.testing.assert_allclose(out, X @ w + b, rtol=1e-5)


def test_unknown_spec_key():
    with tf.Graph().as_default(), pytest.raises(LayerArgError, match="unknown key 'reuse'"):
        build_net({"l1": {"class": "linear", "n_out": 3, "from": "data"},
                   "output": {"class": "linear", "n_out": 3, "from": "data", "reuse_params": {"reuse": "l1"}}},
                  {"data": {"dim": 2}})


def test_rec_unit_layer_reusing_a_layer_after_the_rec_layer(session):
    # "sub" (in the loop) uses the params of "post", which reads the rec layer: the variables are "post"'s
    net = build_net({
        "rec": {"class": "rec", "from": "data", "unit": {
            "sub": {"class": "linear", "from": "prev:output", "n_out": 2, "activation": "tanh",
                    "reuse_params": "base:post"},
            "output": {"class": "copy", "from": "sub"}}},
        "post": {"class": "linear", "from": "rec", "n_out": 2},
        "output": {"class": "copy", "from": "post"}},
        {"data": {"dim": 2}})
    sub = net.layers["rec"].cell.net.layers["sub"]
    assert sub.params == {}
    assert _names(net.layers["post"].params) == {"W": "post/W:0", "b": "post/b:0"}
    assert sorted(v.name for v in tf.compat.v1.global_variables()) == ["post/W:0", "post/b:0"]
    session.run(tf.compat.v1.global_variables_initializer())
    session.run(net.layers["post"].params["b"].assign([0.5, -0.25]))
    w, b = session.run([net.layers["post"].params["W"], net.layers["post"].params["b"]])
    out = session.run(net.layers["rec"].output.copy_as_batch_major().placeholder,
                      make_feed(net, {"data": X}, {"data": [4, 4]}))
    state = np.zeros((2, 2), "float32")
    for t in range(4):
        state = np.tanh(state @ w + b)
        np.testing.assert_allclose(out[:, t], state, rtol=1e-5)

"""The layer arg ``name_scope``: the TF scope of a layer's params (relative, absolute ``/x``, ``""`` the network's
own scope), in subnetworks and rec units; layers of the same scope share their params. Names as observed from the
reference (RETURNN 1.20261022) on the same nets."""

import tensorflow as tf

from tf_net_helpers import build_net

DATA = {"data": {"dim": 2}}


def _names(params):
    return {key: var.name for key, var in params.items()}


def _linear(**opts):
    return {"class": "linear", "n_out": 3, "from": "data", **opts}


def test_relative_and_nested(session):
    net = build_net({"output": _linear(name_scope="a/b")}, DATA)
    layer = net.layers["output"]
    assert _names(layer.params) == {"W": "a/b/W:0", "b": "a/b/b:0"}
    assert layer.get_absolute_name_scope_prefix() == "a/b/"
    assert layer.output.placeholder.name.startswith("a/b/")


def test_empty_and_absolute_at_the_top(session):
    net = build_net({"l1": _linear(name_scope="", is_output_layer=True), "output": _linear(name_scope="/abs")}, DATA)
    assert _names(net.layers["l1"].params) == {"W": "W:0", "b": "b:0"}
    assert net.layers["l1"].get_absolute_name_scope_prefix() == ""
    assert _names(net.layers["output"].params) == {"W": "abs/W:0", "b": "abs/b:0"}


def test_in_subnetwork(session):
    net = build_net({"output": {"class": "subnetwork", "from": [], "subnetwork": {
        "layer1": _linear(**{"from": "base:data"}),
        "layer2": _linear(**{"from": "base:data", "name_scope": "/custom_name"}),
        "layer3": _linear(**{"from": "base:data", "name_scope": "rel"}),
        "output": {"class": "combine", "kind": "add", "from": ["layer1", "layer2", "layer3"]}}}}, DATA)
    assert net.get_layer("output/layer2").get_absolute_name_scope_prefix() == "custom_name/"
    assert _names(net.get_layer("output/layer3").params) == {"W": "output/rel/W:0", "b": "output/rel/b:0"}
    # the subnetwork's params: those in its scope, by their name there
    assert _names(net.layers["output"].params) == {
        "layer1/W": "output/layer1/W:0", "layer1/b": "output/layer1/b:0",
        "rel/W": "output/rel/W:0", "rel/b": "output/rel/b:0"}
    assert sorted(p.name for p in net.get_params_list()) == [
        "custom_name/W:0", "custom_name/b:0", "output/layer1/W:0", "output/layer1/b:0", "output/rel/W:0",
        "output/rel/b:0"]


def test_subnetwork_with_empty_scope_shares_by_name(session):
    net = build_net({"output": {"class": "subnetwork", "from": [], "name_scope": "", "subnetwork": {
        "layer1": _linear(**{"from": "base:data"}),
        "layer2": _linear(**{"from": "base:data", "name_scope": "layer1"}),
        "output": {"class": "combine", "kind": "add", "from": ["layer1", "layer2"]}}}}, DATA)
    l1, l2 = net.get_layer("output/layer1"), net.get_layer("output/layer2")
    assert _names(l1.params) == _names(l2.params) == {"W": "layer1/W:0", "b": "layer1/b:0"}
    assert l1.params["W"] is l2.params["W"]
    assert net.get_layer("output/output").get_absolute_name_scope_prefix() == "output/"
    assert _names(net.layers["output"].params) == {"layer1/W": "layer1/W:0", "layer1/b": "layer1/b:0"}
    assert [v.name for v in tf.compat.v1.global_variables()] == ["layer1/W:0", "layer1/b:0"]


def test_subnetwork_with_scope(session):
    net = build_net({"output": {"class": "subnetwork", "from": [], "name_scope": "xx", "subnetwork": {
        "layer1": _linear(**{"from": "base:data"}), "output": {"class": "copy", "from": "layer1"}}}}, DATA)
    assert _names(net.layers["output"].params) == {"layer1/W": "xx/layer1/W:0", "layer1/b": "xx/layer1/b:0"}


def test_rec_unit(session):
    unit = {"layer1": _linear(**{"from": "data:source", "is_output_layer": True}),
            "layer2": _linear(**{"from": "data:source", "is_output_layer": True, "name_scope": "layer1"}),
            "layer3": _linear(**{"from": ["data:source", "prev:output"], "name_scope": "l3"}),
            "output": {"class": "combine", "kind": "add", "from": ["layer1", "layer2", "layer3"]}}
    net = build_net({"output": {"class": "rec", "from": "data", "unit": unit}}, DATA)
    assert sorted(p.name for p in net.get_params_list()) == [
        "output/rec/l3/W:0", "output/rec/l3/b:0", "output/rec/layer1/W:0", "output/rec/layer1/b:0"]
    assert net.get_layer("output/layer2").params["W"] is net.get_layer("output/layer1").params["W"]


def test_rec_with_scope(session):
    unit = {"layer1": _linear(**{"from": "data:source", "is_output_layer": True}),
            "layer3": _linear(**{"from": ["data:source", "prev:output"]}),
            "output": {"class": "combine", "kind": "add", "from": ["layer1", "layer3"]}}
    net = build_net({"output": {"class": "rec", "from": "data", "unit": unit, "name_scope": "myrec"}}, DATA)
    assert _names(net.layers["output"].params) == {
        "layer1/W": "myrec/layer1/W:0", "layer1/b": "myrec/layer1/b:0",
        "layer3/W": "myrec/layer3/W:0", "layer3/b": "myrec/layer3/b:0"}


def test_rec_with_empty_scope_in_the_loop(session):
    unit = {"layer1": _linear(**{"from": "data:source", "is_output_layer": True}),
            "layer2": _linear(**{"from": "data:source", "is_output_layer": True, "name_scope": "layer1"}),
            "output": {"class": "combine", "kind": "add", "from": ["layer1", "layer2"]}}
    net = build_net({"output": {"class": "rec", "from": "data", "name_scope": "", "optimize_move_layers_out": False,
                                "unit": unit}}, DATA)
    # the accumulated layers ("output/layer1") have the params of the layer in the loop
    assert _names(net.get_layer("output/layer1").params) == {"W": "layer1/W:0", "b": "layer1/b:0"}
    assert net.get_layer("output/layer2").params["W"] is net.get_layer("output/layer1").params["W"]
    assert sorted(p.name for p in net.get_params_list()) == ["layer1/W:0", "layer1/b:0"]


def test_layers_of_one_scope_share_params(session):
    net = build_net({"layer1": _linear(), "output": {"class": "linear", "n_out": 3, "from": "layer1",
                                                     "name_scope": "layer1"}}, {"data": {"dim": 3}})
    l1, l2 = net.layers["layer1"], net.layers["output"]
    assert set(l2.params) == {"W", "b"} and l1.params["W"] is l2.params["W"] and l1.params["b"] is l2.params["b"]
    assert [p.name for p in net.get_trainable_params()] == ["layer1/W:0", "layer1/b:0"]

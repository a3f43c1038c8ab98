"""``cond``: one of two layer dicts by a scalar bool at run time, params named like the cond layer and shared by
the branches (as observed from the reference)."""

import numpy as np
import pytest
import tensorflow as tf

from tf_net_helpers import build_net, make_feed

from returnn.errors import LayerArgError, LayerShapeError

tf.compat.v1.disable_eager_execution()

COND = {"r": {"class": "reduce", "mode": "max", "axis": ["B", "T", "F"], "from": "data"},
        "c": {"class": "compare", "from": "r", "value": 1.0, "kind": "greater"}}


def _run(session, net, x):
    return session.run(net.get_layer("output").output.copy_as_batch_major().placeholder,
                       feed_dict=make_feed(net, {"data": x}, {"data": [x.shape[1]] * x.shape[0]}))


def test_branches_share_params_and_only_the_chosen_one_counts(session):
    net = build_net(dict(COND, output={"class": "cond", "condition": "c",
                                       "true_layer": {"class": "linear", "from": "data", "n_out": 2,
                                                      "activation": "tanh"},
                                       "false_layer": {"class": "linear", "from": "data", "n_out": 2,
                                                       "activation": None}}), train_flag=False)
    params = {p.name[:-2]: p for p in net.get_params_list()}
    assert sorted(params) == ["output/W", "output/b"]  # one W and b for both branches, as the reference
    session.run(tf.compat.v1.global_variables_initializer())
    w, b = session.run([params["output/W"], params["output/b"]])
    x = np.random.RandomState(1).randn(2, 4, 3).astype("float32") * 0.3  # max <= 1: false branch
    np.testing.assert_allclose(_run(session, net, x), x @ w + b, atol=1e-5)
    x[0, 0, 0] = 2.0  # max > 1: true branch
    np.testing.assert_allclose(_run(session, net, x), np.tanh(x @ w + b), atol=1e-5)


def test_subnetwork_branch_param_names(session):
    net = build_net(dict(COND, output={"class": "cond", "condition": "c",
                                       "true_layer": {"class": "subnetwork", "from": "data", "subnetwork": {
                                           "l": {"class": "linear", "from": "data", "n_out": 2},
                                           "output": {"class": "copy", "from": "l"}}},
                                       "false_layer": {"class": "linear", "from": "data", "n_out": 2,
                                                       "activation": None}}))
    assert sorted(p.name[:-2] for p in net.get_params_list()) == ["output/W", "output/b", "output/l/W",
                                                                  "output/l/b"]  # as the reference


def test_branches_of_other_shapes_are_an_error_as_in_reference(session):
    with pytest.raises(LayerShapeError, match="another shape"):
        build_net(dict(COND, output={"class": "cond", "condition": "c",
                                     "true_layer": {"class": "linear", "from": "data", "n_out": 2},
                                     "false_layer": {"class": "copy", "from": "data"}}))


def test_condition_must_be_a_scalar_bool(session):
    with pytest.raises(LayerArgError, match="scalar bool"):
        build_net({"output": {"class": "cond", "condition": "data", "true_layer": {"class": "copy", "from": "data"},
                              "false_layer": {"class": "copy", "from": "data"}}})


def test_subnetwork_branch_sees_the_cond_layers_network(session):
    """In a subnetwork branch, ``base:`` is the network of the cond layer (here a subnetwork), where layers not yet
    built (``two``) are built on use; values as observed from the reference: 0.5 -> 0.5, 1.5 -> 3.0."""
    net = build_net({"sub": {"class": "subnetwork", "from": "data", "subnetwork": dict(
        COND, output={"class": "cond", "condition": "c",
                      "true_layer": {"class": "subnetwork", "from": [], "subnetwork": {
                          "output": {"class": "combine", "kind": "mul", "from": ["base:data", "base:two"]}}},
                      "false_layer": {"class": "copy", "from": "data"}},
        two={"class": "constant", "value": 2.0})},
        "output": {"class": "copy", "from": "sub"}}, train_flag=False)
    for value, expected in [(0.5, 0.5), (1.5, 3.0)]:
        np.testing.assert_allclose(_run(session, net, np.full((1, 2, 3), value, "float32")), expected)


def _bool_data_net(net_dict):
    return build_net(net_dict, {"data": {"dim": 3}, "flag": {"dim_tags": (), "dtype": "bool",
                                                             "available_for_inference": True}})


def test_branch_layers_are_attributes_and_built_inside_the_cond(session):
    from returnn.tf.util.control_flow import has_control_flow_context

    net = _bool_data_net({"output": {"class": "cond", "from": [], "condition": "data:flag",
                                     "true_layer": {"class": "subnetwork", "from": "data", "subnetwork": {
                                         "l": {"class": "linear", "from": "data", "n_out": 3},
                                         "output": {"class": "combine", "kind": "add", "from": ["data", "l"]}}},
                                     "false_layer": {"class": "copy", "from": "data"}}})
    layer = net.layers["output"]
    assert layer.true_layer.layer_class == "subnetwork" and layer.false_layer.layer_class == "copy"
    assert layer.condition_layer is net.get_layer("data:flag")
    assert has_control_flow_context(layer.true_layer.output.placeholder)
    assert not has_control_flow_context(layer.output.placeholder)
    assert sorted(layer.params) == ["l/W", "l/b"]  # as the reference: the subnetwork's params, named relatively
    session.run(tf.compat.v1.global_variables_initializer())
    x = np.random.RandomState(3).randn(2, 4, 3).astype("float32")
    w, b = session.run([layer.params["l/W"], layer.params["l/b"]])
    feed = make_feed(net, {"data": x}, {"data": [4, 2]})
    for flag, expected in ((True, x + x @ w + b), (False, x)):
        feed[net.extern_data.data["flag"].placeholder] = flag
        np.testing.assert_allclose(session.run(layer.output.placeholder, feed), expected, rtol=1e-5, atol=1e-5)


def test_sub_layers_of_both_branch_subnetworks(session):
    def branch(a, b):
        return {"class": "subnetwork", "from": [], "subnetwork": {
            "a": {"class": "constant", "value": a, "is_output_layer": True},
            "b": {"class": "constant", "value": b, "is_output_layer": True},
            "output": {"class": "copy", "from": "a"}}}

    net = _bool_data_net({"cond": {"class": "cond", "from": [], "condition": "data:flag",
                                   "true_layer": branch(2, 3), "false_layer": branch(5, 7)},
                          "output": {"class": "combine", "kind": "mul", "from": ["cond/a", "cond/b"]}})
    out = net.layers["output"].output.placeholder
    flag = net.extern_data.data["flag"].placeholder
    assert session.run(out, {flag: True}) == 6 and session.run(out, {flag: False}) == 35  # as the reference


def test_branch_template_does_not_build_the_branch_and_sees_base_layers(session):
    calls = []

    def eval_fn(source, **_kwargs):
        calls.append(1)
        return source(0) * 2.0

    net = _bool_data_net({"pre": {"class": "linear", "from": "data", "n_out": 3},
                          "output": {"class": "cond", "from": [], "condition": "data:flag",
                                     "true_layer": {"class": "subnetwork", "from": [], "subnetwork": {
                                         "output": {"class": "eval", "from": "base:pre", "eval": eval_fn}}},
                                     "false_layer": {"class": "subnetwork", "from": [], "subnetwork": {
                                         "output": {"class": "copy", "from": "base:pre"}}}}})
    assert len(calls) == 1  # the eval function runs once, in the true branch (as the reference)
    session.run(tf.compat.v1.global_variables_initializer())
    x = np.ones((1, 2, 3), "float32")
    feed = make_feed(net, {"data": x}, {"data": [2]})
    pre = session.run(net.layers["pre"].output.placeholder, feed)
    for flag, factor in ((True, 2.0), (False, 1.0)):
        feed[net.extern_data.data["flag"].placeholder] = flag
        np.testing.assert_allclose(session.run(net.layers["output"].output.placeholder, feed), pre * factor)

"""subnetwork (names, params, losses as the reference lists them) and reuse_params."""

import numpy as np
import tensorflow as tf

from tf_net_helpers import build_net, forward_and_grad_step, make_feed

X = np.random.RandomState(9).randn(2, 3, 4).astype("float32")


def test_subnetwork_like_reference(session):
    net = build_net({"output": {"class": "subnetwork", "from": "data", "subnetwork": {
        "l": {"class": "linear", "n_out": 2, "from": "data"}, "output": {"class": "copy", "from": "l"}}}},
        {"data": {"dim": 4}})
    layer = net.layers["output"]
    assert {k: v.shape.as_list() for k, v in layer.params.items()} == {"l/W": [4, 2], "l/b": [2]}
    assert [p.name for p in net.get_params_list()] == ["output/l/W:0", "output/l/b:0"]
    assert "output/l" in net.layers and "output/output" in net.layers
    assert repr(layer.output.feature_dim) == "Dim{F'l:feature-dense'(2)}"
    out = forward_and_grad_step(session, net, make_feed(net, {"data": X}, {"data": [3, 1]}))
    session.run(tf.compat.v1.global_variables_initializer())
    w, b = session.run([layer.params["l/W"], layer.params["l/b"]])
    out = session.run(layer.output.placeholder, make_feed(net, {"data": X}, {"data": [3, 1]}))
    np.testing.assert_allclose(out, X @ w + b, rtol=1e-5)


def test_subnetwork_loss_and_base_access(session):
    net = build_net({"pre": {"class": "linear", "n_out": 3, "from": "data"},
                     "sub": {"class": "subnetwork", "from": "data", "is_output_layer": True, "subnetwork": {
                         "output": {"class": "softmax", "loss": "ce", "target": "classes",
                                    "from": ["data", "base:pre"]}}}})
    losses = net.get_losses_initialized()[0]
    assert list(losses) == ["sub/output"]
    assert net.layers["sub"].params["output/W"].shape.as_list() == [6, 4]


def test_reuse_params(session):
    net = build_net({"a": {"class": "linear", "n_out": 4, "from": "data"},
                     "output": {"class": "linear", "n_out": 4, "from": "a", "reuse_params": "a"}},
                    {"data": {"dim": 4}})
    assert net.layers["output"].params == {}  # as the reference: the params are a's, not its own
    assert [p.name for p in net.get_params_list()] == ["a/W:0", "a/b:0"]
    forward_and_grad_step(session, net, make_feed(net, {"data": X}, {"data": [3, 1]}))


def test_subnetwork_unused_inner_layer_built_on_request(session):
    # as the reference: "sub/x" of an inner layer the subnetwork's output does not need is built when asked for
    net = build_net({"sub": {"class": "subnetwork", "from": "data", "subnetwork": {
        "l": {"class": "linear", "n_out": 2, "from": "data"},
        "unused": {"class": "linear", "n_out": 1, "from": "l"},
        "output": {"class": "copy", "from": "l"}}},
        "output": {"class": "copy", "from": ["sub/l", "sub/unused"]}}, {"data": {"dim": 4}})
    assert net.layers["output"].output.dim == 3
    assert sorted(net.layers["sub"].params) == ["l/W", "l/b", "unused/W", "unused/b"]
    assert "sub/unused" in net.layers


def test_copy_of_one_source_and_subnetwork_pass_the_raw_tensor_through():
    # observed with the reference: no new op for a copy of one source (nor for a subnetwork around it)
    net = build_net({"sub": {"class": "subnetwork", "from": "data", "subnetwork": {
        "output": {"class": "copy", "from": "data"}}}, "output": {"class": "copy", "from": "sub"}}, {"data": {"dim": 4}})
    assert net.layers["output"].output.placeholder is net.extern_data.data["data"].placeholder


def test_subnetwork_load_on_init(session, tmp_path):
    saved = build_net({"l1": {"class": "linear", "n_out": 3, "from": "data"},
                       "output": {"class": "linear", "n_out": 2, "from": "l1"}}, {"data": {"dim": 4}})
    saved.initialize_params(session)
    values = saved.get_params_serialized(session).values_dict
    saved.save_params_to_file(str(tmp_path / "model"), session)
    with tf.Graph().as_default(), tf.compat.v1.Session() as session2:
        net = build_net({"sub": {"class": "subnetwork", "from": "data", "load_on_init": str(tmp_path / "model"),
                                 "subnetwork": {"l1": {"class": "linear", "n_out": 3, "from": "data"},
                                                "output": {"class": "linear", "n_out": 2, "from": "l1"}}},
                         "output": {"class": "copy", "from": "sub"}}, {"data": {"dim": 4}})
        net.initialize_params(session2)
        loaded = net.get_params_serialized(session2).values_dict["sub"]
        for layer in ("l1", "output"):
            for param in ("W", "b"):
                np.testing.assert_array_equal(loaded[f"{layer}/{param}"], values[layer][param])

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

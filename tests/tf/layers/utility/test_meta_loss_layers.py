"""synthetic_gradient and tikhonov_regularization: the meta losses the updater reports and the parameter updates of
one SGD step (learning rate 1, ``meta_loss_scale`` 0.5), as observed from the reference for the same inputs and
params; the backward signals against tf.gradients."""

import numpy as np
import pytest
import tensorflow as tf

from returnn.tf.updater import Updater
from returnn.tf.util.meta_losses import MetaLoss, MetaLossCollector, register_meta_loss
from tf_net_helpers import build_net, make_feed

_RS = np.random.RandomState(42)
X = _RS.normal(size=(2, 4, 3)).astype("float32")
Y = _RS.normal(size=(2, 4, 2)).astype("float32")
EXTERN = {"data": {"dim": 3}, "classes": {"dim": 2}}
OUT = {"class": "linear", "activation": "tanh", "n_out": 2, "from": "sg", "loss": "mse"}
NETS = {
    "synthetic_gradient": {
        "pred": {"class": "linear", "activation": None, "n_out": 3, "from": "data"},
        "sg": {"class": "synthetic_gradient", "gradient": "pred", "from": "data", "meta_loss_scale": 0.5},
        "output": OUT},
    "tikhonov_regularization": {
        "lin": {"class": "linear", "activation": "tanh", "n_out": 3, "from": "data"},
        "sg": {"class": "tikhonov_regularization", "from": "lin", "meta_loss_scale": 0.5},
        "output": OUT},
}
# observed from the reference: the reported meta loss and the change of each param in the step
OBSERVED = {
    "synthetic_gradient": ("sg/synthetic_grad", 0.94942874, {
        "output/W": [[-1.65915, 0.29112], [-0.43812, 0.37514], [1.13948, -0.24403]],
        "output/b": [-0.26546, -0.27185],
        "pred/W": [[-0.10627, 0.07926, -0.00515], [-0.06394, 0.02895, -0.3304], [0.31066, -0.10501, -0.00386]],
        "pred/b": [-0.02037, 0.13551, 0.32601]}),
    "tikhonov_regularization": ("sg/tikhonov_reg", 3.8285556, {
        "lin/W": [[4.29301, 2.2338, 0.2846], [2.79043, 1.65403, -0.07131], [-3.21286, -1.58039, -0.08994]],
        "lin/b": [-0.1225, -0.13139, 0.33346],
        "output/W": [[0.6276, -3.55649], [0.3297, -1.34464], [0.62578, -4.94126]],
        "output/b": [-0.22552, -0.90777]}),
}


@pytest.mark.parametrize("layer_class", sorted(NETS))
def test_meta_loss_and_update_like_reference(session, layer_class):
    net = build_net(NETS[layer_class], EXTERN)
    updater = Updater(config=net.get_config(), network=net, initial_learning_rate=1.0)
    update_op = updater.get_optim_op()
    session.run(tf.compat.v1.global_variables_initializer())
    rs = np.random.RandomState(1)  # as in the observation: uniform(-1, 1) in sorted name order, "dummy" left out
    params = {p.op.name: p for p in net.get_params_list() if not p.op.name.endswith("/dummy")}
    before = {}
    for name in sorted(params):
        before[name] = rs.uniform(-1, 1, size=params[name].shape.as_list()).astype("float32")
        params[name].load(before[name], session)
    name, cost, deltas = OBSERVED[layer_class]
    assert sorted(updater.optim_meta_losses_dict) == [f"cost:{name}", f"loss_norm_factor:{name}"]
    meta, _ = session.run((updater.optim_meta_losses_dict, update_op),
                          feed_dict=make_feed(net, {"data": X, "classes": Y}, {"data": [4, 3], "classes": [4, 3]}))
    assert meta[f"loss_norm_factor:{name}"] == 24  # all elements of the layer's output, padding included
    np.testing.assert_allclose(meta[f"cost:{name}"], cost, rtol=1e-5)
    for param_name, delta in deltas.items():
        np.testing.assert_allclose(session.run(params[param_name]) - before[param_name], delta, atol=2e-5)


def test_synthetic_gradient_backward(session):
    net = build_net(NETS["synthetic_gradient"], EXTERN)
    data = net.extern_data.data["data"].placeholder
    loss = net.get_total_loss()
    sg_out = net.get_layer("sg").output.placeholder
    grad_in, true_grad = tf.gradients(loss, [data, sg_out])
    with MetaLossCollector() as meta:
        tf.gradients(loss, data)
    assert [m.name for m in meta.losses] == ["sg/synthetic_grad"]
    session.run(tf.compat.v1.global_variables_initializer())
    feed = make_feed(net, {"data": X, "classes": Y}, {"data": [4, 3], "classes": [4, 3]})
    pred, got_in, g, out, cost = session.run(
        [net.get_layer("pred").output.placeholder, grad_in, true_grad, sg_out, meta.losses[0].value], feed_dict=feed)
    np.testing.assert_allclose(out, X)  # identity forward
    np.testing.assert_allclose(got_in, pred, rtol=1e-6)  # the source receives the prediction
    np.testing.assert_allclose(cost, np.mean((pred - g) ** 2), rtol=1e-5)


def test_tikhonov_regularization_backward(session):
    net = build_net(NETS["tikhonov_regularization"], EXTERN)
    assert sorted(net.get_layer("sg").params) == ["dummy"]
    lin_out = net.get_layer("lin").output.placeholder
    loss = net.get_total_loss()
    with MetaLossCollector() as meta:
        (g,) = tf.gradients(loss, lin_out)
    session.run(tf.compat.v1.global_variables_initializer())
    feed = make_feed(net, {"data": X, "classes": Y}, {"data": [4, 3], "classes": [4, 3]})
    got_g, cost = session.run([g, meta.losses[0].value], feed_dict=feed)
    np.testing.assert_allclose(cost, np.sum(got_g ** 2) / 2, rtol=1e-5)


def test_register_meta_loss_without_collector_drops_it():
    with tf.Graph().as_default():
        loss = MetaLoss(name="x", value=tf.constant(1.0), scale=2.0, norm_factor=tf.constant(1))
        assert not register_meta_loss(loss)
        with MetaLossCollector() as outer:
            with MetaLossCollector() as inner:
                assert register_meta_loss(loss)
        assert inner.losses == [loss] and not outer.losses
        assert outer.total() is None
        with tf.compat.v1.Session() as session:
            assert session.run(inner.total()) == 2.0


def test_synthetic_gradient_prediction_of_other_shape_is_an_error():
    from returnn.errors import LayerShapeError

    with tf.Graph().as_default():
        with pytest.raises(LayerShapeError, match="gradient prediction"):
            build_net({"pred": {"class": "linear", "activation": None, "n_out": 4, "from": "data"},
                       "output": {"class": "synthetic_gradient", "gradient": "pred", "from": "data"}}, EXTERN)

"""``param_dropout``, ``param_dropout_min_ndim`` and ``param_variational_noise``: in training a layer computes
with ``dropout(param + noise)``, outside training with the param; the network's params stay the variables.
Behaviour observed from the reference on the same network (a ``linear`` layer, params and input all ones)."""

import numpy as np
import pytest
import tensorflow as tf

from tf_net_helpers import build_net, make_feed

ONES = np.ones((1, 2, 8), "float32")


def _linear(session, train_flag, **opts):
    net = build_net({"output": {"class": "linear", "from": "data", "n_out": 6, "activation": None, **opts}},
                    {"data": {"dim": 8}}, train_flag=train_flag)
    layer = net.layers["output"]
    session.run(tf.compat.v1.global_variables_initializer())
    for var in layer.params.values():
        var.load(np.ones(var.shape.as_list(), "float32"), session)
    return net, layer


def _feed(net, train_flag, value=True):
    feed = make_feed(net, {"data": ONES}, {"data": [2]})
    if not isinstance(train_flag, bool):
        feed[train_flag] = value
    return feed


@pytest.mark.parametrize("flag_kind", ["python", "tensor"])
def test_param_dropout_in_training_like_reference(session, flag_kind):
    tf.compat.v1.set_random_seed(1)
    flag = True if flag_kind == "python" else tf.compat.v1.placeholder_with_default(False, ())
    net, layer = _linear(session, flag, param_dropout=0.5)
    assert sorted(layer.params) == ["W", "b"]
    assert all(isinstance(v, tf.Variable) for v in layer.params.values())
    assert set(layer.params.values()) == set(tf.compat.v1.trainable_variables())
    out = layer.output.placeholder
    y, grad_w = session.run([out, tf.compat.v1.gradients(tf.reduce_sum(out), layer.params["W"])[0]],
                            _feed(net, flag))
    # each element of W and b is 0 or 1 / (1 - 0.5) = 2: even sums (the bias too, as the reference); both frames
    # of the batch see the same mask; the gradient of W is 0 or 2 * 2 frames
    assert np.all(y % 2 == 0) and np.all(y[:, 0] == y[:, 1]) and y.min() >= 0 and y.max() <= 18
    assert set(np.unique(grad_w)) <= {0.0, 4.0} and 0.0 in grad_w and 4.0 in grad_w
    if flag_kind == "tensor":  # the same graph outside training: the params themselves
        np.testing.assert_array_equal(session.run(out, _feed(net, flag, False)), np.full((1, 2, 6), 9.0))


def test_param_dropout_min_ndim_keeps_the_bias(session):
    tf.compat.v1.set_random_seed(2)
    net, layer = _linear(session, True, param_dropout=0.5, param_dropout_min_ndim=2)
    y = session.run(layer.output.placeholder, _feed(net, True))
    assert np.all(y % 2 == 1)  # the bias (1) is not dropped, as observed


def test_param_dropout_off_outside_training(session):
    net, layer = _linear(session, False, param_dropout=0.5, param_variational_noise=0.5)
    np.testing.assert_array_equal(session.run(layer.output.placeholder, _feed(net, False)), np.full((1, 2, 6), 9.0))


def test_param_variational_noise_then_dropout_like_reference(session):
    """The input gradient of one output is that column of the used W: dropped entries exactly 0, the others
    2 * (1 + noise): the noise is added before the dropout (observed)."""
    tf.compat.v1.set_random_seed(3)
    net, layer = _linear(session, True, param_variational_noise=0.5, param_dropout=0.5, param_dropout_min_ndim=2)
    x = net.extern_data.data["data"].placeholder
    col = session.run(tf.compat.v1.gradients(layer.output.placeholder[0, 0, 0], x)[0], _feed(net, True))[0, 0]
    kept = col[col != 0]
    assert 0 < kept.size < 8
    assert not np.allclose(kept, 2.0) and np.all(np.abs(kept / 2 - 1) < 5 * 0.5)


def test_param_dropout_batch_norm_params_stay_variables(session):
    net = build_net({"output": {"class": "batch_norm", "from": "data", "param_dropout": 0.5}}, {"data": {"dim": 3}},
                    train_flag=True)
    params = net.layers["output"].params
    assert sorted(params) == ["batch_norm/output_output_output_beta", "batch_norm/output_output_output_gamma",
                              "batch_norm/output_output_output_mean", "batch_norm/output_output_output_variance"]
    assert all(isinstance(v, tf.Variable) for v in params.values())
    session.run(tf.compat.v1.global_variables_initializer())
    session.run(net.layers["output"].output.placeholder,
                make_feed(net, {"data": np.ones((2, 3, 3), "float32")}, {"data": [3, 2]}))


def _noise_and_dropout_scopes(graph):
    return sorted({op.name.split("/")[1] for op in graph.get_operations()
                   if op.name.startswith("output/") and ("_weight_dropout" in op.name or "_variational" in op.name)})


@pytest.mark.parametrize("config, layer_opts, scopes", [
    # observed from the reference: the config's keys are the defaults of every layer, the layer's own value wins
    ({"param_dropout": 0.1}, {}, ["W_weight_dropout", "b_weight_dropout"]),
    ({"param_dropout": 0.1, "param_dropout_min_ndim": 2}, {}, ["W_weight_dropout"]),
    ({"param_dropout": 0.1}, {"param_dropout_min_ndim": 2}, ["W_weight_dropout"]),
    ({"param_dropout": 0.1}, {"param_dropout": 0.0}, []),
    ({"param_variational_noise": 0.1}, {"param_variational_noise": 0.0}, []),
    ({"param_variational_noise": 0.1, "param_dropout": 0.1}, {},
     ["W_variational_noise", "W_weight_dropout", "b_variational_noise", "b_weight_dropout"]),
])
def test_param_dropout_config_defaults_and_op_names(session, config, layer_opts, scopes):
    net = build_net({"output": {"class": "linear", "n_out": 2, "from": "data", **layer_opts}}, {"data": {"dim": 3}},
                    **config)
    assert _noise_and_dropout_scopes(session.graph) == scopes
    if "W_weight_dropout" in scopes:  # the weights as the layer uses them, in its name scope (as the reference)
        assert net.layers["output"].weights.name.startswith("output/W_weight_dropout/")


def test_param_dropout_with_reuse_params_ops_in_own_scope(session):
    build_net({"a": {"class": "linear", "n_out": 2, "from": "data", "param_dropout": 0.1},
               "b": {"class": "linear", "n_out": 2, "from": "data", "reuse_params": "a", "param_dropout": 0.1,
                     "is_output_layer": True},
               "output": {"class": "linear", "n_out": 2, "from": "data", "reuse_params": "a"}},
              {"data": {"dim": 3}})
    w = [v for v in tf.compat.v1.global_variables() if v.op.name == "a/W"]
    assert len(w) == 1 and len(tf.compat.v1.global_variables()) == 2
    consumers = sorted(op.name for op in session.graph.get_operations()
                       if any(x.op.type == "ReadVariableOp" and x.op.inputs[0] is w[0].handle for x in op.inputs))
    # the layers' ops are in their own name scopes (as the reference), only the variables are a's
    assert any(n.startswith("a/W_weight_dropout/") for n in consumers)
    assert any(n.startswith("b/W_weight_dropout/") for n in consumers)
    assert any(n.startswith("output/") and "_weight_dropout" not in n for n in consumers)

"""Updater with a network: custom updates, decoupled constraints, check-numerics, per-parameter accumulation and
optimizers (values observed by running the reference)."""

import numpy as np
import pytest
import tensorflow as tf

from returnn.config import Config
from returnn.tf.layers.base import LayerBase, Loss
from returnn.tf.network import ExternData, TFNetwork
from returnn.tf.updater import Updater
from returnn.tf.util.basic import CustomUpdate, CustomUpdateExpAverage
from returnn.tensor import Tensor

TF = tf.compat.v1


class _ValueLoss(Loss):
    need_target = False

    def get_value(self):
        return self.layer.scale * self.layer.x

    def get_error(self):
        return None


class _ScalarParamLayer(LayerBase):
    """Output: one scalar param ``x``; its loss is ``scale * x`` (added in get_losses, as a config's layer may)."""

    def __init__(self, initial_value=0.0, scale=1.0, **kwargs):
        super().__init__(**kwargs)
        self.scale = scale
        self.x = self.add_param(tf.Variable(initial_value, name="x"))
        self.output.placeholder = tf.convert_to_tensor(self.x)

    @classmethod
    def get_losses(cls, name, network, output, loss=None, reduce_func=None, layer=None, **kwargs):
        return super().get_losses(name=name, network=network, output=output, loss=_ValueLoss(base_network=network),
                                  reduce_func=reduce_func, layer=layer, **kwargs)

    @classmethod
    def get_out_data_from_opts(cls, name, **kwargs):
        return Tensor(name=f"{name}_output", dims=(), dtype="float32")


def _scalar_net(session, initial_value, scale=1.0, config=None):
    net = TFNetwork(config=config or Config(), extern_data=ExternData(), train_flag=True)
    layer = net.add_layer(name="output", layer_class=_ScalarParamLayer, initial_value=initial_value, scale=scale)
    net.initialize_params(session=session)
    return net, layer


def _run_steps(session, updater, var, num_steps, feed_dict=None):
    updater.init_optimizer_vars(session=session)
    op = updater.get_optim_op()
    values = []
    for _ in range(num_steps):
        session.run(op, feed_dict=feed_dict)
        values.append(float(session.run(var)))
    return values


def test_sgd_step_on_loss_of_layer_get_losses():
    with tf.Graph().as_default(), TF.Session() as session:
        net, layer = _scalar_net(session, 5.0, scale=3.0)
        updater = Updater(config=Config(), network=net)
        updater.set_learning_rate(1.0, session=session)
        assert _run_steps(session, updater, layer.x, 2) == pytest.approx([2.0, -1.0])


def test_custom_update_replaces_gradient_step():
    class _Add13(CustomUpdate):
        def update_var(self, var):
            return TF.assign_add(var, 13.0)

    with tf.Graph().as_default(), TF.Session() as session:
        net, layer = _scalar_net(session, 4.0)
        _Add13().set_on_var(layer.x)
        updater = Updater(config=Config(), network=net)
        updater.set_learning_rate(1000.0, session=session)
        assert _run_steps(session, updater, layer.x, 2) == pytest.approx([17.0, 30.0])
        assert session.run(updater.global_train_step) == 2


def test_custom_update_exp_average():
    with tf.Graph().as_default(), TF.Session() as session:
        var = tf.Variable(10.0)
        update = CustomUpdateExpAverage(average=tf.constant(2.0), alpha=0.25)
        update.set_on_var(var)
        session.run(var.initializer)
        session.run(update.update_var(var))
        assert session.run(var) == pytest.approx(8.0)  # 10 + 0.25 * (2 - 10), as the reference
    with pytest.raises(NotImplementedError):
        CustomUpdate().update_var(var)


def _constraint_net(session, config, init):
    extern_data = ExternData({"data": {"shape": (), "dtype": "float32"}})
    net = TFNetwork(config=config, extern_data=extern_data, train_flag=True)
    net.construct_from_dict({
        "var": {"class": "variable", "shape": (), "init": init, "L2": 0.01},
        "loss": {"class": "eval", "from": ["data", "var"],
                 "eval": "source(0, auto_convert=False) * source(1, auto_convert=False)", "loss": "as_is"}})
    net.initialize_params(session=session)
    return net, extern_data.data["data"].placeholder


@pytest.mark.parametrize("opts, lr, data, init, expected", [
    # observed from the reference: var -= d(L2 * var^2)/d var at the value before the step, no learning rate,
    # decouple_constraints_factor without effect
    ({}, 0.5, [0.0, 0.0, 0.0], 1.0, [0.98, 0.9604]),
    ({"decouple_constraints_factor": 4.0}, 2.0, [0.0, 0.0, 0.0], 1.0, [0.98, 0.9604]),
    ({}, 0.5, [1.0, 1.0, 1.0], 10.0, [8.3, 6.634]),
    ({"optimizer": {"class": "adam"}}, 0.5, [1.0, 1.0, 1.0], 10.0, [9.3, 8.614002]),
    ({"accum_grad_multiple_step": 2}, 1.0, [0.0, 0.0, 0.0], 1.0, [1.0, 0.98, 0.98, 0.9604]),
])
def test_decouple_constraints(opts, lr, data, init, expected):
    config = Config(dict(decouple_constraints=True, **opts))
    with tf.Graph().as_default(), TF.Session() as session:
        net, data_ph = _constraint_net(session, config, init)
        updater = Updater(config=config, network=net, initial_learning_rate=lr)
        assert updater.decouple_constraints
        values = _run_steps(session, updater, net.get_layer("var").output.placeholder, len(expected),
                            feed_dict={data_ph: data})
    assert values == pytest.approx(expected, rel=1e-5)


def test_constraints_in_objective_without_decouple():
    with tf.Graph().as_default(), TF.Session() as session:
        net, data_ph = _constraint_net(session, Config(), 1.0)
        updater = Updater(config=Config(), network=net, initial_learning_rate=0.5)
        values = _run_steps(session, updater, net.get_layer("var").output.placeholder, 1,
                            feed_dict={data_ph: [0.0, 0.0, 0.0]})
    assert values == pytest.approx([1.0 - 0.5 * 0.02])  # the L2 gradient with the learning rate


def test_debug_add_check_numerics_ops_fails_before_update():
    class _LogLoss(_ValueLoss):
        def get_value(self):
            return TF.log(self.layer.x)

    class _LogLayer(_ScalarParamLayer):
        @classmethod
        def get_losses(cls, name, network, output, loss=None, reduce_func=None, layer=None, **kwargs):
            return LayerBase.get_losses.__func__(cls, name=name, network=network, output=output,
                                                 loss=_LogLoss(base_network=network), layer=layer, **kwargs)

    config = Config({"debug_add_check_numerics_ops": True})
    with tf.Graph().as_default(), TF.Session() as session:
        net = TFNetwork(config=config, extern_data=ExternData(), train_flag=True)
        layer = net.add_layer(name="output", layer_class=_LogLayer, initial_value=1.0)
        net.initialize_params(session=session)
        updater = Updater(config=config, network=net)
        assert _run_steps(session, updater, layer.x, 1) == pytest.approx([0.0])  # x - 1/x
        with pytest.raises(tf.errors.InvalidArgumentError):
            session.run(updater.get_optim_op())  # log(0)
        assert session.run(layer.x) == 0.0


def test_per_param_accum_steps_and_optimizers():
    with tf.Graph().as_default(), TF.Session() as session:
        extern_data = ExternData({"data": {"dim": 2}, "classes": {"dim": 2, "sparse": True}})
        net = TFNetwork(config=Config(), extern_data=extern_data, train_flag=True)
        net.construct_from_dict({
            "l1": {"class": "linear", "activation": None, "n_out": 2, "from": "data", "with_bias": False,
                   "updater_opts": {"accum_grad_multiple_step": 2}},
            "l2": {"class": "linear", "activation": None, "n_out": 2, "from": "l1", "with_bias": False,
                   "updater_opts": {"optimizer": {"class": "sgd", "learning_rate_multiplier": 0.0}}},
            "output": {"class": "softmax", "loss": "ce", "from": "l2", "target": "classes"}})
        net.initialize_params(session=session)
        updater = Updater(config=Config(), network=net, initial_learning_rate=0.1)
        updater.init_optimizer_vars(session=session)
        op = updater.get_optim_op()
        assert len(updater.optimizers) == 2  # the default (output, l1) and l2's own (as the reference)
        w1, w2, w_out = (net.get_layer(n).params["W"] for n in ("l1", "l2", "output"))
        feed = {extern_data.data["data"].placeholder: np.ones((1, 2, 2), np.float32),
                extern_data.data["data"].size_placeholder[0]: [2],
                extern_data.data["classes"].placeholder: np.zeros((1, 2), np.int32),
                extern_data.data["classes"].size_placeholder[0]: [2]}
        start = session.run([w1, w2, w_out])
        session.run(op, feed_dict=feed)
        after1 = session.run([w1, w2, w_out])
        session.run(op, feed_dict=feed)
        after2 = session.run([w1, w2, w_out])
    np.testing.assert_array_equal(after1[0], start[0])  # l1: only accumulated at step 1
    assert not np.allclose(after2[0], start[0])  # applied at step 2
    np.testing.assert_array_equal(after2[1], start[1])  # l2: learning rate * 0
    assert not np.allclose(after1[2], start[2])  # output: plain step each time


def test_init_optimizer_vars_keeps_learning_rate_set_before():
    with tf.Graph().as_default(), TF.Session() as session:
        net, layer = _scalar_net(session, 5.0)
        updater = Updater(config=Config(), network=net, initial_learning_rate=1.0)
        updater.set_learning_rate(0.5, session=session)
        assert _run_steps(session, updater, layer.x, 1) == pytest.approx([4.5])


def test_param_dropout_recomputed_for_the_gradient():
    """As the reference's updater: the gradient checkpoints (param_dropout) are prepared, so the backward pass reads
    a recomputed copy of the dropped-out weights (``.../mul_1``-like copies named ``<op>_1``); the step trains."""
    config = Config({"extern_data": {"data": {"dim": 3}, "classes": {"dim": 2, "sparse": True}},
                     "param_dropout": 0.5})
    with tf.Graph().as_default() as graph, TF.Session() as session:
        net = TFNetwork(config=config, train_flag=True)
        net.construct_from_dict({"output": {"class": "softmax", "n_out": 2, "from": "data", "loss": "ce"}})
        used_w = net.layers["output"].weights
        updater = Updater(config=config, network=net, initial_learning_rate=1.0)
        op = updater.get_optim_op()
        copy_name = used_w.op.name + "_1"
        assert copy_name in {o.name for o in graph.get_operations()}
        session.run(TF.global_variables_initializer())
        w = net.layers["output"].params["W"]
        before = session.run(w)
        data, classes = net.extern_data.data["data"], net.extern_data.data["classes"]
        session.run(op, feed_dict={data.placeholder: np.ones((1, 2, 3), "float32"), data.size_placeholder[0]: [2],
                                   classes.placeholder: [[0, 1]], classes.size_placeholder[0]: [2]})
        assert not np.allclose(session.run(w), before)

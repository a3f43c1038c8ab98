"""Each optimizer makes the same steps as a numpy implementation of its update rule."""

import numpy as np
import pytest

from returnn.errors import ConfigValueError, UnknownNameError
from returnn.tf.updater import (
    AdamOptimizer,
    GradientDescentOptimizer,
    MomentumOptimizer,
    NadamOptimizer,
    get_optimizer_class,
)

from updater_test_helpers import X0, quadratic_grad, train_quadratic

NUM_STEPS = 4
LR = 0.1


def numpy_steps(update, state=None, num_steps=NUM_STEPS):
    x = X0.astype(np.float64)
    state = dict(state or {})
    for t in range(1, num_steps + 1):
        x = update(x, quadratic_grad(x), state, t)
    return x


def adam_update(beta1=0.9, beta2=0.999, eps=1e-16, nesterov=False, weight_decay=0.0):
    def update(x, g, s, t):
        m = s["m"] = beta1 * s.get("m", 0.0) + (1 - beta1) * g
        v = s["v"] = beta2 * s.get("v", 0.0) + (1 - beta2) * g * g
        lr_t = LR * np.sqrt(1 - beta2 ** t) / (1 - beta1 ** t)
        x = x - LR * weight_decay * x
        direction = beta1 * m + (1 - beta1) * g if nesterov else m
        return x - lr_t * direction / (np.sqrt(v) + eps)
    return update


def momentum_update(momentum, nesterov=False):
    def update(x, g, s, t):
        accum = s["a"] = momentum * s.get("a", 0.0) + g
        return x - LR * (g + momentum * accum if nesterov else accum)
    return update


def adadelta_update(rho=0.95, eps=1e-16):
    def update(x, g, s, t):
        accum = s["a"] = rho * s.get("a", 0.0) + (1 - rho) * g * g
        step = np.sqrt(s.get("u", 0.0) + eps) / np.sqrt(accum + eps) * g
        s["u"] = rho * s.get("u", 0.0) + (1 - rho) * step * step
        return x - LR * step
    return update


def adagrad_update(initial=0.1):
    def update(x, g, s, t):
        accum = s["a"] = s.get("a", initial) + g * g
        return x - LR * g / np.sqrt(accum)
    return update


def rmsprop_update(decay=0.9, momentum=0.0, eps=1e-16, centered=False):
    def update(x, g, s, t):
        ms = s["ms"] = decay * s.get("ms", 1.0) + (1 - decay) * g * g
        denominator = ms
        if centered:
            mg = s["mg"] = decay * s.get("mg", 0.0) + (1 - decay) * g
            denominator = ms - mg * mg
        mom = s["mom"] = momentum * s.get("mom", 0.0) + LR * g / np.sqrt(denominator + eps)
        return x - mom
    return update


CASES = [
    ({"optimizer": {"class": "sgd"}}, lambda x, g, s, t: x - LR * g),
    ({"optimizer": {"class": "GradientDescent"}}, lambda x, g, s, t: x - LR * g),
    ({"optimizer": {"class": "momentum", "momentum": 0.9}}, momentum_update(0.9)),
    ({"optimizer": {"class": "momentum", "momentum": 0.5, "use_nesterov": True}}, momentum_update(0.5, True)),
    ({"optimizer": {"class": "adam"}}, adam_update()),
    ({"optimizer": {"class": "AdamOptimizer", "beta1": 0.8, "beta2": 0.99, "epsilon": 1e-3}},
     adam_update(0.8, 0.99, 1e-3)),
    ({"optimizer": {"class": "nadam"}}, adam_update(nesterov=True)),
    ({"optimizer": {"class": "adamw", "weight_decay": 0.1}}, adam_update(weight_decay=0.1)),
    ({"optimizer": {"class": "adadelta", "learning_rate_multiplier": 1.0}}, adadelta_update()),
    ({"optimizer": {"class": "adadelta", "rho": 0.5, "epsilon": 1e-2}}, adadelta_update(0.5, 1e-2)),
    ({"optimizer": {"class": "adagrad"}}, adagrad_update()),
    ({"optimizer": {"class": "rmsprop"}}, rmsprop_update()),
    ({"optimizer": {"class": "rmsprop", "momentum": 0.5, "centered": True, "epsilon": 1e-6}},
     rmsprop_update(momentum=0.5, centered=True, eps=1e-6)),
    ({"adam": True}, adam_update()),
    ({"nadam": True, "optimizer_epsilon": 1e-4}, adam_update(eps=1e-4, nesterov=True)),
    ({"momentum": 0.9}, momentum_update(0.9)),
    ({}, lambda x, g, s, t: x - LR * g),
]


@pytest.mark.parametrize("config_opts, update", CASES, ids=[repr(c[0]) for c in CASES])
def test_optimizer_step_matches_numpy(config_opts, update):
    got = train_quadratic(config_opts, NUM_STEPS, learning_rate=LR)
    expected = numpy_steps(update)
    assert not np.allclose(expected, X0, atol=1e-4) or "adadelta" in repr(config_opts)
    np.testing.assert_allclose(got, expected, rtol=2e-5, atol=2e-6)


def test_learning_rate_multiplier():
    got = train_quadratic({"optimizer": {"class": "sgd", "learning_rate_multiplier": 0.5}}, 1, learning_rate=LR)
    np.testing.assert_allclose(got, X0 - 0.5 * LR * quadratic_grad(X0), rtol=1e-6)


def test_get_optimizer_class_names():
    assert get_optimizer_class("adam") is AdamOptimizer
    assert get_optimizer_class("Adam") is AdamOptimizer
    assert get_optimizer_class("AdamOptimizer") is AdamOptimizer
    assert get_optimizer_class("nadam") is NadamOptimizer
    assert get_optimizer_class("sgd") is GradientDescentOptimizer
    assert get_optimizer_class("momentum") is MomentumOptimizer


def test_unknown_optimizer_suggests():
    with pytest.raises(UnknownNameError) as info:
        train_quadratic({"optimizer": {"class": "adamm"}}, 1)
    assert "did you mean: 'adam'" in str(info.value) and "optimizer" in str(info.value)


def test_unknown_option_suggests():
    with pytest.raises(ConfigValueError) as info:
        train_quadratic({"optimizer": {"class": "adam", "beta_1": 0.9}}, 1)
    text = str(info.value)
    assert "'optimizer'" in text and "beta_1" in text and "'beta1'" in text


def test_bad_optimizer_value():
    with pytest.raises(ConfigValueError, match="optimizer"):
        train_quadratic({"optimizer": {"beta1": 0.9}}, 1)


def test_optimizer_required_with_behavior_version():
    with pytest.raises(ConfigValueError, match="behavior_version"):
        train_quadratic({"behavior_version": 2}, 1)


def test_log_lines_as_reference(capsys):
    from returnn.log import log

    log.initialize(verbosity=[3])
    train_quadratic({"optimizer": {"class": "adam"}}, 1)
    lines = [line for line in capsys.readouterr().out.splitlines() if "ptimizer" in line]
    assert lines == [
        "Create optimizer <class 'returnn.tf.updater.optimizers.AdamOptimizer'> with options {'epsilon': 1e-16, "
        "'learning_rate': <tf.Variable 'learning_rate:0' shape=() dtype=float32>}.",
        "Initialize optimizer (default) with slots ['m', 'v'].",
        "These additional variable were created by the optimizer: [<tf.Variable 'optimize/beta1_power:0' shape=() "
        "dtype=float32>, <tf.Variable 'optimize/beta2_power:0' shape=() dtype=float32>].",
    ]


def test_normalized_sgd_class_object():
    """``{"class": NormalizedSGD}`` (the class itself, as the reference's test passes it): each step moves by ``lr``
    along the L2-normalized gradient (the reference's steps observed: the same numbers)."""
    from returnn.tf.updater import NormalizedSGD

    got = train_quadratic({"optimizer": {"class": NormalizedSGD}}, 3, learning_rate=LR)

    def update(x, g, s, t):
        return x - LR * g / np.linalg.norm(g)

    expected = numpy_steps(update, num_steps=3)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[0, 0], 1.0874459743499756, rtol=1e-6)  # observed from the reference
    assert get_optimizer_class("NormalizedSGD") is NormalizedSGD


@pytest.mark.parametrize("optimizer, tf_class", [  # observed: the reference's updater creates these TF v1 classes
    (None, "GradientDescentOptimizer"), ({"class": "adam"}, "AdamOptimizer"),
    ({"class": "momentum", "momentum": 0.9}, "MomentumOptimizer"), ({"class": "adadelta"}, "AdadeltaOptimizer"),
    ({"class": "adagrad"}, "AdagradOptimizer"), ({"class": "rmsprop"}, "RMSPropOptimizer")])
def test_default_optimizer_is_the_tf_v1_class(optimizer, tf_class):
    import tensorflow as tf

    from returnn.tf.updater import Updater
    from updater_test_helpers import make_config

    with tf.Graph().as_default():
        x = tf.compat.v1.get_variable("x", initializer=X0)
        updater = Updater(make_config(**({"optimizer": optimizer} if optimizer else {})),
                          loss=tf.reduce_sum(tf.square(x)), var_list=[x])
        assert updater.get_slot(x, "m") is None  # no training op yet
        default = updater.get_default_optimizer()
        assert isinstance(default, getattr(tf.compat.v1.train, tf_class))
        assert default.get_name() == "optimize"
        updater.get_optim_op()
        assert updater.get_default_optimizer() is default
        for name in default.get_slot_names():
            slot = updater.get_slot(var=x, name=name)
            assert isinstance(slot, tf.Variable) and slot.shape == x.shape and slot is default.get_slot(x, name)
        assert updater.get_slot(x, "no_such_slot") is None


def test_adam_slots_hold_the_moments():
    """Adam's slots "m"/"v" after one step: (1 - beta) g and (1 - beta2) g^2 (numpy), read through Updater.get_slot,
    and TF's minimize() on our AdamOptimizer makes the same step as the updater."""
    import tensorflow as tf

    from returnn.tf.updater import Updater
    from updater_test_helpers import SCALE, TARGET, make_config

    graph = tf.Graph()
    with graph.as_default():
        x = tf.compat.v1.get_variable("x", initializer=X0)
        loss = tf.reduce_sum(SCALE * tf.square(x - TARGET))
        updater = Updater(make_config(optimizer={"class": "adam"}), initial_learning_rate=LR, loss=loss, var_list=[x])
        optim_op = updater.get_optim_op()
        m, v = updater.get_slot(x, "m"), updater.get_slot(x, "v")
        y = tf.compat.v1.get_variable("y", initializer=X0)
        own = AdamOptimizer(LR, epsilon=1e-16, name="own")
        minimize_op = own.minimize(tf.reduce_sum(SCALE * tf.square(y - TARGET)))
        with tf.compat.v1.Session(graph=graph) as session:
            session.run(tf.compat.v1.global_variables_initializer())
            updater.init_optimizer_vars(session)
            session.run([optim_op, minimize_op])
            g = quadratic_grad(X0)
            np.testing.assert_allclose(session.run(m), 0.1 * g, rtol=1e-5)
            np.testing.assert_allclose(session.run(v), 0.001 * g * g, rtol=1e-4)
            np.testing.assert_allclose(session.run(y), session.run(x), rtol=1e-6)
            np.testing.assert_allclose(session.run(x), numpy_steps(adam_update(), num_steps=1), rtol=1e-5)

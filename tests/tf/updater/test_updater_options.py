"""The updater receives its parsed options group (UpdaterOptions): the same step as from a Config, and the optimizer
choice of the legacy keys decided in one place."""

import numpy as np
import pytest
import tensorflow as tf

from returnn.config import Config
from returnn.errors import ConfigValueError
from returnn.options import UpdaterOptions
from returnn.tf.updater import Updater, optimizer_dict_from_config

from updater_test_helpers import X0, quadratic_grad

TF = tf.compat.v1


@pytest.mark.parametrize("keys, expected", [
    ({"optimizer": "adam"}, {"class": "adam"}),
    ({"optimizer": {"class": "nadam", "epsilon": 0.1}}, {"class": "nadam", "epsilon": 0.1}),
    ({"adagrad": True, "momentum": 0.9}, {"class": "adagrad"}),
    ({"momentum": 0.9}, {"class": "momentum", "momentum": 0.9}),
    ({}, {"class": "sgd"}),
])
def test_optimizer_dict(keys, expected):
    assert UpdaterOptions.from_config(Config(keys)).optimizer_dict() == expected
    assert optimizer_dict_from_config(Config(keys)) == expected


def test_optimizer_required_with_behavior_version_2():
    with pytest.raises(ConfigValueError, match="config key 'optimizer': expected an optimizer"):
        UpdaterOptions.from_config(Config({"behavior_version": 2})).optimizer_dict()
    assert UpdaterOptions.from_config(Config({"behavior_version": 2, "adam": True})).optimizer_dict() == {
        "class": "adam"}


def test_accum_grad_multiple_step_checked_by_the_options():
    with pytest.raises(ConfigValueError, match="accum_grad_multiple_step': expected a number of steps >= 0, got -1"):
        Updater(Config({"accum_grad_multiple_step": -1}), loss=tf.constant(0.0), var_list=[])


def _one_sgd_step(first_arg) -> np.ndarray:
    graph = tf.Graph()
    with graph.as_default():
        x = TF.get_variable("x", initializer=X0)
        loss = tf.reduce_sum(tf.constant([[1.0, 2.0, 0.5], [3.0, 1.0, 0.25]]) * tf.square(x - tf.constant(
            [[3.0, 1.0, -1.0], [0.0, 0.5, 2.0]])))
        updater = Updater(first_arg, initial_learning_rate=0.1, loss=loss, var_list=[x])
        assert isinstance(updater.options, UpdaterOptions)
        with TF.Session(graph=graph) as session:
            session.run(TF.global_variables_initializer())
            updater.init_optimizer_vars(session)
            session.run(updater.get_optim_op())
            return session.run(x)


def test_updater_from_options_equals_updater_from_config():
    keys = {"optimizer": {"class": "sgd"}, "gradient_clip": 1.0}
    from_options = _one_sgd_step(UpdaterOptions.from_config(Config(keys)))
    from_config = _one_sgd_step(Config(keys))
    expected = X0 - 0.1 * np.clip(quadratic_grad(X0), -1.0, 1.0)
    np.testing.assert_allclose(from_options, expected, rtol=1e-6)
    np.testing.assert_allclose(from_config, expected, rtol=1e-6)

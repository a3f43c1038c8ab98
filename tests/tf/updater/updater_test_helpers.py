"""Shared helpers: a tiny quadratic problem trained with the Updater in a fresh graph."""

import numpy as np
import tensorflow as tf

from returnn.config import Config
from returnn.tf.updater import Updater

TF = tf.compat.v1

X0 = np.array([[1.0, -2.0, 0.5], [0.25, 3.0, -1.5]], dtype=np.float32)
TARGET = np.array([[3.0, 1.0, -1.0], [0.0, 0.5, 2.0]], dtype=np.float32)
SCALE = np.array([[1.0, 2.0, 0.5], [3.0, 1.0, 0.25]], dtype=np.float32)


def quadratic_grad(x: np.ndarray) -> np.ndarray:
    """Gradient of ``sum(SCALE * (x - TARGET)^2)`` (float64)."""
    return 2.0 * SCALE.astype(np.float64) * (x - TARGET.astype(np.float64))


def make_config(**opts) -> Config:
    config = Config()
    config.update(opts)
    return config


def train_quadratic(config_opts: dict, num_steps: int, *, learning_rate: float = 0.1, x0: np.ndarray = X0,
                    loss_fn=None, fetch_after_each_step: bool = False):
    """Trains x (init ``x0``) on the quadratic loss; returns x after each step (list) or after the last step."""
    graph = tf.Graph()
    with graph.as_default():
        x = TF.get_variable("x", initializer=x0)
        if loss_fn is None:
            loss = tf.reduce_sum(SCALE * tf.square(x - TARGET))
        else:
            loss = loss_fn(x)
        updater = Updater(make_config(**config_opts), initial_learning_rate=learning_rate, loss=loss, var_list=[x])
        optim_op = updater.get_optim_op()
        with TF.Session(graph=graph) as session:
            session.run(TF.global_variables_initializer())
            updater.init_optimizer_vars(session)
            values = []
            for _ in range(num_steps):
                session.run(optim_op)
                values.append(session.run(x))
            step = session.run(updater.global_train_step)
    assert step == num_steps
    return values if fetch_after_each_step else values[-1]

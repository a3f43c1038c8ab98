"""debug_grad_summaries: the summaries of each parameter and gradient, with the reference's tags (observed)."""

import numpy as np
import tensorflow as tf
from tensorflow.core.framework import summary_pb2

from returnn.config import Config
from returnn.tf.updater import Updater

from updater_test_helpers import SCALE, TARGET, X0, quadratic_grad

TF = tf.compat.v1


def _stats(x):
    x = np.asarray(x, np.float64)
    return {"mean": x.mean(), "stddev": x.std(), "rms": np.sqrt((x * x).mean()), "l2": np.sqrt((x * x).sum()) / 2,
            "max": x.max(), "min": x.min()}


def test_grad_summaries_tags_and_values():
    graph = tf.Graph()
    with graph.as_default():
        with TF.variable_scope("layer"):
            x = TF.get_variable("W", initializer=X0)
        loss = tf.reduce_sum(SCALE * tf.square(x - TARGET))
        config = Config({"debug_grad_summaries": True, "optimizer": {"class": "sgd"}})
        updater = Updater(config, initial_learning_rate=0.1, loss=loss, var_list=[x])
        optim_op = updater.get_optim_op()
        merged = TF.summary.merge_all()
        with TF.Session(graph=graph) as session:
            session.run(TF.global_variables_initializer())
            proto = session.run(merged)  # before the step: the values of X0
            session.run(optim_op)
    values = {v.tag: v.simple_value for v in summary_pb2.Summary.FromString(proto).value}
    for stat, expected in _stats(X0).items():
        np.testing.assert_allclose(values["vars/layer/summaries_W/W_%s" % stat], expected, rtol=1e-5)
    grad_tags = [t for t in values if t.startswith("grads/") and t.endswith("/grad_of_W_rms")]
    assert len(grad_tags) == 1 and "/summaries_grad_of_W/" in grad_tags[0]
    grad = quadratic_grad(X0)
    np.testing.assert_allclose(values[grad_tags[0]], _stats(grad)["rms"], rtol=1e-5)
    np.testing.assert_allclose(values["optimize/global_grad_norm"], np.sqrt((grad * grad).sum()), rtol=1e-5)


def test_no_summaries_by_default():
    graph = tf.Graph()
    with graph.as_default():
        x = TF.get_variable("x", initializer=X0)
        Updater(Config({}), initial_learning_rate=0.1, loss=tf.reduce_sum(x * x), var_list=[x]).get_optim_op()
        assert TF.summary.merge_all() is None

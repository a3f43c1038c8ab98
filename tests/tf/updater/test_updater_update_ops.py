"""The training step runs the graph's UPDATE_OPS (batch_norm moving statistics)."""

import numpy as np
import tensorflow as tf

from returnn.config import Config
from returnn.tf.network import ExternData, TFNetwork
from returnn.tf.updater import Updater


def test_batch_norm_moving_mean_updated_by_training_step():
    with tf.Graph().as_default() as graph:
        config = Config({"optimizer": {"class": "sgd"}})
        extern_data = ExternData({"data": {"dim": 3}, "classes": {"dim": 2, "sparse": True}})
        net = TFNetwork(config=config, extern_data=extern_data, train_flag=True)
        net.construct_from_dict({
            "bn": {"class": "batch_norm", "from": "data"},
            "output": {"class": "softmax", "loss": "ce", "from": "bn", "target": "classes"},
        })
        updater = Updater(config=config, network=net, initial_learning_rate=0.1)
        optim_op = updater.get_optim_op()
        moving_mean = [v for v in graph.get_collection(tf.compat.v1.GraphKeys.GLOBAL_VARIABLES)
                       if v.op.name.endswith("_mean")]
        assert len(moving_mean) == 1
        data, classes = net.extern_data.data["data"], net.extern_data.data["classes"]
        x = np.full((2, 4, 3), 5.0, np.float32)
        feed = {data.placeholder: x, data.size_placeholder[0]: [4, 4],
                classes.placeholder: np.zeros((2, 4), np.int32), classes.size_placeholder[0]: [4, 4]}
        with tf.compat.v1.Session(graph=graph) as session:
            session.run(tf.compat.v1.global_variables_initializer())
            before = session.run(moving_mean[0])
            session.run(optim_op, feed_dict=feed)
            after = session.run(moving_mean[0])
    assert np.all(before == 0.0)
    assert np.all(after > 0.0) and np.all(after < 5.0)  # moved towards the batch mean 5


def test_global_step_read_in_the_same_run_sees_the_step_before_its_increment():
    # a value of the graph that reads the global train step (a step-dependent schedule, an RF step function's
    # rf.get_run_ctx().step) is fetched in the same Session.run as the optimizer op: it must see the step's own
    # number, never the incremented one (without an order between the read and the increment it did, at random)
    with tf.Graph().as_default() as graph:
        config = Config({"optimizer": {"class": "sgd"}})
        extern_data = ExternData({"data": {"dim": 3}, "classes": {"dim": 2, "sparse": True}})
        net = TFNetwork(config=config, extern_data=extern_data, train_flag=True)
        net.construct_from_dict({
            "output": {"class": "softmax", "loss": "ce", "from": "data", "target": "classes"}})
        # the read waits for a slow computation outside the gradient path, so that without the order the increment
        # (after the small update) would run first
        slow = tf.ones((300, 300))
        for _ in range(6):
            slow = tf.linalg.matmul(slow, slow) / 300.0
        with tf.control_dependencies([slow]):
            step_read = tf.identity(net.global_train_step.read_value())
        optim_op = Updater(config=config, network=net, initial_learning_rate=0.1).get_optim_op()
        data, classes = net.extern_data.data["data"], net.extern_data.data["classes"]
        feed = {data.placeholder: np.ones((2, 4, 3), np.float32), data.size_placeholder[0]: [4, 4],
                classes.placeholder: np.zeros((2, 4), np.int32), classes.size_placeholder[0]: [4, 4]}
        with tf.compat.v1.Session(graph=graph) as session:
            session.run(tf.compat.v1.global_variables_initializer())
            seen = [session.run([step_read, optim_op], feed_dict=feed)[0] for _ in range(40)]
            final = session.run(net.global_train_step)
    assert seen == list(range(40)) and final == 40

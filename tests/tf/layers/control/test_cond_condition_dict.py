"""cond with ``condition`` given as a layer dict (built first), as the reference's tests use it."""

import numpy
import tensorflow as tf

from returnn.config import Config
from returnn.tf.network import TFNetwork


def test_cond_condition_layer_dict():
    with tf.Graph().as_default(), tf.compat.v1.Session() as session:
        net = TFNetwork(config=Config({"extern_data": {"data": {"dim": 3}}}), train_flag=True)
        net.construct_from_dict({
            "cond": {"class": "cond", "from": [],
                     "condition": {"class": "eval", "from": [], "eval": "tf.equal(self.network.global_train_step % 2, 0)",
                                   "out_type": {"batch_dim_axis": None, "shape": (), "dtype": "bool"}},
                     "true_layer": {"class": "copy", "from": "data"},
                     "false_layer": {"class": "eval", "from": "data", "eval": "source(0) * 2."}},
            "output": {"class": "copy", "from": "cond"}})
        net.initialize_params(session)
        data = net.extern_data.get_data("data")
        feed = {data.placeholder: numpy.ones((1, 2, 3), "float32"), data.get_sequence_lengths(): [2]}
        out = net.get_default_output_layer().output.placeholder
        assert session.run(out, feed).sum() == 6.0  # step 0: true_layer
        net.set_global_train_step(1, session)
        assert session.run(out, feed).sum() == 12.0

"""A loss on an output without batch axis (a variable in a subnetwork): value and frame count work, the loss is
named "sub/loss" (as the reference, observed: total 0 for a zero-initialized variable)."""

import numpy
import tensorflow as tf

from returnn.config import Config
from returnn.tf.network import TFNetwork


def test_as_is_loss_on_variable_in_subnetwork():
    with tf.Graph().as_default(), tf.compat.v1.Session() as session:
        net = TFNetwork(config=Config({"extern_data": {"data": {"dim": 1}}}), train_flag=True)
        net.construct_from_dict({
            "sub": {"class": "subnetwork", "from": [], "subnetwork": {
                "var": {"class": "variable", "shape": [2], "init": 1.5},
                "loss": {"class": "copy", "from": "var", "loss": "as_is"},
                "output": {"class": "copy", "from": "var"}}},
            "output": {"class": "copy", "from": "sub"}})
        losses, total, _ = net.get_losses_initialized(with_total=True)
        assert set(losses) == {"sub/loss"}
        net.initialize_params(session)
        value, frames = session.run([total, losses["sub/loss"].get_num_frames()])
        numpy.testing.assert_allclose(value, 3.0)
        assert frames == 1.0

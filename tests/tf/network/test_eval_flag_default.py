"""TFNetwork's default ``eval_flag`` (observed from the reference: True for a training network, whether
``train_flag`` is True or a flag tensor; False otherwise; an explicit value wins; subnetworks inherit it)."""

import pytest
import tensorflow as tf

from returnn.config import Config
from returnn.tf.network import TFNetwork


@pytest.mark.parametrize("train_flag, search_flag, expected", [
    (False, False, False), (None, False, False), (True, False, True), (True, True, True), ("tensor", False, True),
    ("tensor", True, True)])
def test_eval_flag_default(train_flag, search_flag, expected):
    with tf.Graph().as_default():
        if train_flag == "tensor":
            train_flag = tf.compat.v1.placeholder(tf.bool, (), name="train_flag")
        net = TFNetwork(config=Config({"extern_data": {"data": {"dim": 3}}}), train_flag=train_flag,
                        search_flag=search_flag)
        assert net.eval_flag is expected
        assert TFNetwork(config=Config({"extern_data": {"data": {"dim": 3}}}), train_flag=True,
                         eval_flag=False).eval_flag is False
        assert TFNetwork(parent_net=net, name="sub").eval_flag is expected


@pytest.mark.parametrize("kwargs, has_losses", [
    ({"train_flag": False, "search_flag": True}, False),
    ({"train_flag": False, "eval_flag": True, "search_flag": True}, True), ({"train_flag": True}, True)])
def test_losses_only_in_an_evaluating_search_network_as_reference(kwargs, has_losses):
    import tensorflow as tf
    from returnn.config import Config
    from returnn.tf.network import TFNetwork

    with tf.Graph().as_default():
        net = TFNetwork(config=Config({"extern_data": {"data": {"dim": 5}, "classes": {"dim": 4, "sparse": True}}}),
                        **kwargs)
        net.construct_from_dict({"output": {"class": "softmax", "from": "data", "loss": "ce", "target": "classes"}})
        # observed from the reference: without eval_flag no loss is built
        assert (net.layers["output"].loss is not None) == has_losses
        assert sorted(net.get_losses_initialized()[0]) == (["output"] if has_losses else [])
        assert net.layers["output"].output.dim == 4  # the output dim still comes from the target

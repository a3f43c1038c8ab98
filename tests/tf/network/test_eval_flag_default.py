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

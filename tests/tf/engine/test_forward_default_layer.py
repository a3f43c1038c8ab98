"""Task forward without ``forward_output_layer``: which layer it writes, and the one error when the network has no
``output`` layer (the reference, observed: it forwards ``output`` or the one layer with ``is_output_layer``; a layer
with only a loss does not count in the forward network; else it stops with "output layer not defined. set
forward_output_layer in config")."""

import pytest
import tensorflow as tf

from returnn.config import Config
from returnn.errors import ConfigValueError
from returnn.tf.engine.forward import _default_forward_layer
from returnn.tf.network import TFNetwork

EXTERN = {"data": {"dim": 3}, "classes": {"dim": 4, "sparse": True}}


def _net(net_dict):
    with tf.Graph().as_default():
        net = TFNetwork(config=Config({"extern_data": EXTERN}), train_flag=False)
        net.construct_from_dict(net_dict)
        return net


def test_output_layer_or_the_one_marked():
    net = _net({"output": {"class": "copy", "from": "data"}, "x": {"class": "copy", "from": "data",
                                                                      "is_output_layer": True}})
    assert _default_forward_layer(net).name == "output"
    net = _net({"x": {"class": "copy", "from": "data", "is_output_layer": True},
                "y": {"class": "softmax", "from": "data", "loss": "ce", "target": "classes"}})
    assert _default_forward_layer(net).name == "x"


@pytest.mark.parametrize("net_dict", [
    {"out": {"class": "softmax", "from": "data", "loss": "ce", "target": "classes"}},
    {"a": {"class": "copy", "from": "data", "is_output_layer": True},
     "b": {"class": "copy", "from": "data", "is_output_layer": True}}])
def test_no_output_layer_is_one_config_error(net_dict):
    with pytest.raises(ConfigValueError, match=r"'forward_output_layer'.*no 'output' layer") as exc:
        _default_forward_layer(_net(net_dict))
    assert "set forward_output_layer" in str(exc.value)

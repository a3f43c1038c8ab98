"""LayerBase._base_get_out_data_from_opts (the reference's name of the default template): without sources the
template is the target's, made dense (as the reference, observed)."""

import tensorflow as tf

from returnn.config import Config
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.network import TFNetwork


def test_base_get_out_data_from_opts_from_target():
    with tf.Graph().as_default():
        network = TFNetwork(config=Config({"num_inputs": 4, "num_outputs": 3}))
        target_data = network.extern_data.get_data("classes")
        out = LayerBase._base_get_out_data_from_opts(network=network, name="output", target="classes")
        assert out.dim == 3 and not out.sparse and out.dtype == "float32"
        assert out.shape == target_data.shape_dense == (None, 3)
        assert out.dims[1] == target_data.dims[1]

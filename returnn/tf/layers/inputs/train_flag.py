"""``{"class": "train_flag"}``: whether the network runs in training (scalar bool, ``{}``), as the reference."""

from __future__ import annotations

import tensorflow as tf

from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.inputs.scalar_network_value import ScalarNetworkValueLayer


@register_layer
class TrainFlagLayer(ScalarNetworkValueLayer):
    """The network's train flag (a Python bool becomes a constant)."""

    layer_class = "train_flag"
    value_dtype = "bool"

    def network_value(self) -> tf.Tensor:
        """:return: the train flag, scalar bool"""
        return tf.convert_to_tensor(self.network.train_flag, dtype=tf.bool)

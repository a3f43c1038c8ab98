"""``{"class": "global_train_step"}``: the global train step (scalar int64 ``{}``, the ``global_step`` variable)."""

from __future__ import annotations

import tensorflow as tf

from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.inputs.scalar_network_value import ScalarNetworkValueLayer


@register_layer
class GlobalTrainStepLayer(ScalarNetworkValueLayer):
    """Reads the network's global train step."""

    layer_class = "global_train_step"
    value_dtype = "int64"

    def network_value(self) -> tf.Tensor:
        """:return: the global train step, scalar int64"""
        root_scope = tf.compat.v1.VariableScope(reuse=tf.compat.v1.AUTO_REUSE, name="")
        with tf.compat.v1.variable_scope(root_scope, auxiliary_name_scope=False), tf.compat.v1.name_scope(None):
            step = self.network.global_train_step  # created at the root (global_step), not in this layer's scope
        return tf.cast(step.read_value() if hasattr(step, "read_value") else step, tf.int64)

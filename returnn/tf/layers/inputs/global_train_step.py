"""``{"class": "global_train_step"}``: the global train step (scalar int64 ``{}``, the ``global_step`` variable)."""

from __future__ import annotations

from typing import Any, Dict

import tensorflow as tf

from returnn.tensor import Tensor
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer


@register_layer
class GlobalTrainStepLayer(LayerBase):
    """Reads the network's global train step."""

    layer_class = "global_train_step"

    def __init__(self, **kwargs: Any):
        super().__init__(**kwargs)
        root_scope = tf.compat.v1.VariableScope(reuse=tf.compat.v1.AUTO_REUSE, name="")
        with tf.compat.v1.variable_scope(root_scope, auxiliary_name_scope=False), tf.compat.v1.name_scope(None):
            step = self.network.global_train_step  # created at the root (global_step), not in this layer's scope
        self.output.placeholder = tf.cast(step.read_value() if hasattr(step, "read_value") else step, tf.int64)

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        d.setdefault("from", [])
        super().transform_config_dict(d, network=network, get_layer=get_layer)

    @classmethod
    def get_out_data_from_opts(cls, name: str, **kwargs: Any) -> Tensor:
        return Tensor(name=f"{name.split('/')[-1]}_output", dims=[], dtype="int64", time_dim_axis=None,
                      feature_dim_axis=None)

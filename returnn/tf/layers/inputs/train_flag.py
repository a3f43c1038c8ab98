"""``{"class": "train_flag"}``: whether the network runs in training (scalar bool, ``{}``), as the reference."""

from __future__ import annotations

from typing import Any, Dict

import tensorflow as tf

from returnn.tensor import Tensor
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer


@register_layer
class TrainFlagLayer(LayerBase):
    """The network's train flag (a Python bool becomes a constant)."""

    layer_class = "train_flag"

    def __init__(self, **kwargs: Any):
        super().__init__(**kwargs)
        self.output.placeholder = tf.convert_to_tensor(self.network.train_flag, dtype=tf.bool)

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        d.setdefault("from", [])
        super().transform_config_dict(d, network=network, get_layer=get_layer)

    @classmethod
    def get_out_data_from_opts(cls, name: str, **kwargs: Any) -> Tensor:
        return Tensor(name=f"{name.split('/')[-1]}_output", dims=[], dtype="bool", time_dim_axis=None,
                      feature_dim_axis=None)

"""Base of the layers that output a scalar value of the network itself (no ``from``): ``train_flag``,
``global_train_step``. Not registered as a layer class."""

from __future__ import annotations

from typing import Any, Dict

import tensorflow as tf

from returnn.tensor import Tensor
from returnn.tf.layers.core.layer_base import LayerBase


class ScalarNetworkValueLayer(LayerBase):
    """Outputs :meth:`network_value` as a scalar (shape ``{}``) of dtype :attr:`value_dtype`; ``from`` defaults to
    no sources."""

    value_dtype = "float32"

    def __init__(self, **kwargs: Any):
        super().__init__(**kwargs)
        self.output.placeholder = self.network_value()

    def network_value(self) -> tf.Tensor:
        """:return: the scalar of :attr:`value_dtype`"""
        raise NotImplementedError

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        d.setdefault("from", [])
        super().transform_config_dict(d, network=network, get_layer=get_layer)

    @classmethod
    def get_out_data_from_opts(cls, name: str, **kwargs: Any) -> Tensor:
        return Tensor(name=f"{name.split('/')[-1]}_output", dims=[], dtype=cls.value_dtype, time_dim_axis=None,
                      feature_dim_axis=None)

"""``{"class": "source", "data_key": KEY}``: extern data ``KEY`` as a layer (what ``"data:KEY"`` creates)."""

from __future__ import annotations

from typing import Any, Optional

from returnn.tensor import Tensor
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer


@register_layer
class SourceLayer(LayerBase):
    """Output: the extern data tensor ``data_key`` (same dims, same placeholder). Default key: the default input."""

    layer_class = "source"

    def __init__(self, data_key: Optional[str] = None, **kwargs: Any):
        """
        :param data_key: the extern data key (default: the default input)
        """
        super().__init__(**kwargs)
        key = data_key or self.network.extern_data.default_input
        self.output.placeholder = self.network.get_extern_data(key).placeholder

    @classmethod
    def get_out_data_from_opts(cls, name: str, network: Any, data_key: Optional[str] = None, **kwargs: Any) -> Tensor:
        key = data_key or network.extern_data.default_input
        return network.get_extern_data(key).copy_template(name=key)

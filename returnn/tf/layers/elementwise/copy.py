"""``{"class": "copy", "from": [...]}``: identity; several sources are concatenated on the feature axis.

With one source (and no dropout), the output's raw tensor is the source's own (no new op), as the reference."""

from __future__ import annotations

from typing import Any

from returnn.tensor import Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template


@register_layer
class CopyLayer(ConcatInputLayer):
    """Shape: ``{B, T, F1} + {B, T, F2} -> {B, T, F1+F2}``; one source: unchanged (sparse stays sparse)."""

    layer_class = "copy"

    def __init__(self, **kwargs: Any):
        super().__init__(**kwargs)
        self.output.placeholder = self.input_data.placeholder
        if self.sources and len(self.sources) == 1:
            self.output_before_activation = self.sources[0].output_before_activation

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), **kwargs: Any) -> Tensor:
        return concat_sources_template(sources, name=name, layer_class=cls.layer_class,
                                       allow_broadcast_all_sources=kwargs.get("out_shape") is not None)

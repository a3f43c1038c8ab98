"""``{"class": "cast", "dtype": "float32"}``: dtype cast; shape unchanged (a float result is no longer sparse)."""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from returnn.tensor import Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template


@register_layer
class CastLayer(ConcatInputLayer):
    """``tf.cast(x, dtype)``."""

    layer_class = "cast"

    def __init__(self, dtype: str, output_logits: bool = False, **kwargs: Any):
        """
        :param dtype: the output dtype, e.g. ``"float32"``, ``"int32"``
        :param output_logits: accepted for compatibility with the reference; no effect here
        """
        super().__init__(**kwargs)
        self.output.placeholder = tf.cast(self.input_data.placeholder, dtype)

    @classmethod
    def get_out_data_from_opts(cls, name: str, dtype: str, sources: Any = (), **kwargs: Any) -> Tensor:
        out = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        return out.copy_with_dtype(dtype)

"""``{"class": "split_batch_time", "base": "win"}``: splits a merged (padded) batch axis back into batch and time.

Shape: input ``{B*T, rest..}`` (batch and time of ``base`` merged batch-major with padding, e.g. by
``merge_dims`` over ``["b", "t"]``) -> ``{B, T, rest..}`` with ``B`` and ``T`` (and its lengths) from ``base``.
"""

from __future__ import annotations

from typing import Any, Dict, List

import tensorflow as tf

from returnn.errors import LayerShapeError
from returnn.tensor import Tensor, batch_dim
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template


@register_layer
class SplitBatchTimeLayer(ConcatInputLayer):
    """Reshapes the merged batch axis to ``{B, T}`` of ``base``."""

    layer_class = "split_batch_time"

    def __init__(self, base: LayerBase, **kwargs: Any):
        """
        :param base: layer whose batch and time axes (with lengths) were merged
        """
        super().__init__(**kwargs)
        self.base = base
        x = self.input_data.copy_as_batch_major().placeholder
        base_out = base.output.copy_as_batch_major()
        raw = base_out.placeholder
        lead = tf.stack([tf.shape(raw)[0], tf.shape(raw)[base_out.time_dim_axis]])
        self.output.placeholder = tf.reshape(x, tf.concat([lead, tf.shape(x)[1:]], axis=0))

    def get_dep_layers(self) -> List[LayerBase]:
        return super().get_dep_layers() + [self.base]

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        super().transform_config_dict(d, network=network, get_layer=get_layer)
        if isinstance(d.get("base"), str):
            d["base"] = get_layer(d["base"])

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), base: Any = None, **kwargs: Any) -> Tensor:
        """:raises LayerShapeError: input without batch axis, ``base`` without batch or time axis"""
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        base_out = getattr(base, "output", None)
        if base_out is None or base_out.batch_dim_axis is None or base_out.time_dim_axis is None \
                or inp.batch_dim_axis is None:
            raise LayerShapeError(layer=name, layer_class=cls.layer_class,
                                  problem="needs an input with a (merged) batch axis and a base with batch and time",
                                  got=f"input {inp!r}, base {base_out!r}")
        inp = inp.copy_as_batch_major()
        # a dim that merge_dims made a batch variant of (lengths per merged entry) is again the one over the batch
        rest = [d.batch_variant_of or d for d in inp.dims[1:]]
        dims = [batch_dim, base_out.dims[base_out.time_dim_axis]] + rest
        feature_axis = 1 + inp.feature_dim_axis if inp.feature_dim_axis is not None else None
        return Tensor(name=f"{name}_output", dims=dims, dtype=inp.dtype, sparse_dim=inp.sparse_dim,
                      time_dim_axis=1, feature_dim_axis=feature_axis,
                      available_for_inference=inp.available_for_inference)

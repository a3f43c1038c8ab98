"""``{"class": "dot_attention", "from": "query", "base": "base:encoder", "energy_factor": f}``: dot-product
attention of a query over a base sequence.

Shapes: query ``{B, F}`` (the sources, concatenated), ``base`` ``{B, T, F}``; output ``{B, F_base}``:
``w = softmax_t(f * <base[b, t], query[b]>)`` (padded frames excluded), ``out = sum_t w[b, t] base[b, t]``.
``base_ctx`` (optional): keys ``{B, T, F}`` for the energies, ``base`` then only gives the values.
"""

from __future__ import annotations

from typing import Any, Dict, Optional

import tensorflow as tf

from returnn.errors import LayerShapeError
from returnn.tensor import Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template


def _btf(data: Tensor) -> Tensor:
    out = data.copy_as_batch_major()
    return out.copy_move_axis(out.time_dim_axis, 1).copy_with_feature_dim_axis(-1)


@register_layer
class DotAttentionLayer(ConcatInputLayer):
    """See the module docstring.

    :param base: values (and keys) layer
    :param base_ctx: optional keys layer
    :param energy_factor: scale of the energies (default 1)
    :raises LayerShapeError: query and key dims differ
    """

    layer_class = "dot_attention"

    def __init__(self, base: LayerBase, base_ctx: Optional[LayerBase] = None, energy_factor: Optional[float] = None,
                 **kwargs: Any):
        super().__init__(**kwargs)
        values = _btf(base.output)
        keys = _btf((base_ctx or base).output)
        query = self.input_data.copy_as_batch_major().placeholder  # [B, F]
        energy = tf.squeeze(tf.matmul(keys.placeholder, query[:, :, None]), axis=2)  # [B, T]
        if energy_factor is not None:
            energy = energy * energy_factor
        mask = tf.sequence_mask(keys.get_sequence_lengths(), maxlen=tf.shape(energy)[1])
        energy = tf.where(mask, energy, tf.fill(tf.shape(energy), -1e30))
        weights = tf.nn.softmax(energy, axis=1)
        self.output.placeholder = tf.squeeze(tf.matmul(weights[:, None, :], values.placeholder), axis=1)

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        """Resolves ``base``/``base_ctx``."""
        super().transform_config_dict(d, network=network, get_layer=get_layer)
        d["base"] = get_layer(d["base"])
        if d.get("base_ctx"):
            d["base_ctx"] = get_layer(d["base_ctx"])

    @classmethod
    def get_out_data_from_opts(cls, name: str, network: Any, sources: Any = (), base: Any = None,
                               base_ctx: Any = None, **kwargs: Any) -> Tensor:
        """:return: ``{B, F_base}``"""
        query = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        keys = (base_ctx or base).output
        if query.dim != keys.dim:
            raise LayerShapeError(layer=name, layer_class=cls.layer_class,
                                  problem="query and key feature dims differ", expected=f"query dim {keys.dim}",
                                  got=query.get_dims_repr())
        return base.output.copy_as_batch_major().copy_template_excluding_time_dim().copy_template(
            name=f"{name}_output")

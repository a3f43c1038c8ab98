"""``{"class": "gauss_window_attention", "from": "pos", "base": "base:encoder", "window_size": W}``: a Gaussian
window over the base sequence around a position.

Shapes: the source is the position ``{B}`` or ``{B, 1}`` (float, in frames); ``base`` ``{B, T, F}``; output
``{B, F}``: ``sum_t g[b, t] base[b, t]`` with ``g[b, t] = exp(-(t - pos[b])**2 / (2 std**2))`` for
``|t - round(pos)| <= W // 2`` inside the sequence, else 0 (not renormalised, as the reference's window).
"""

from __future__ import annotations

from typing import Any, Dict

import tensorflow as tf

from returnn.tensor import Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer


@register_layer
class GaussWindowAttentionLayer(ConcatInputLayer):
    """See the module docstring.

    :param window_size: W (frames)
    :param std: standard deviation (frames, default 1)
    :param inner_size: accepted for compatibility (must be None)
    :param inner_size_step: accepted for compatibility
    """

    layer_class = "gauss_window_attention"

    def __init__(self, base: LayerBase, window_size: int, std: float = 1.0, inner_size: Any = None,
                 inner_size_step: float = 0.5, **kwargs: Any):
        """
        :param base: the layer attended to (``{B, T, F}``)
        """
        super().__init__(**kwargs)
        from returnn.tf.layers.attention.dot_attention import _btf
        values = _btf(base.output)
        pos = tf.reshape(tf.cast(self.input_data.copy_as_batch_major().placeholder, tf.float32), [-1])  # [B]
        length = tf.shape(values.placeholder)[1]
        t = tf.cast(tf.range(length), tf.float32)[None, :]
        g = tf.exp(-tf.square(t - pos[:, None]) / (2.0 * std * std))
        inside = tf.abs(t - tf.round(pos[:, None])) <= float(window_size // 2)
        inside = tf.logical_and(inside, tf.sequence_mask(values.get_sequence_lengths(), maxlen=length))
        g = tf.where(inside, g, tf.zeros_like(g))
        self.output.placeholder = tf.squeeze(tf.matmul(g[:, None, :], values.placeholder), axis=1)

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        """Resolves ``base``."""
        super().transform_config_dict(d, network=network, get_layer=get_layer)
        d["base"] = get_layer(d["base"])

    @classmethod
    def get_out_data_from_opts(cls, name: str, network: Any, base: Any = None, **kwargs: Any) -> Tensor:
        """:return: ``{B, F_base}``"""
        return base.output.copy_as_batch_major().copy_template_excluding_time_dim().copy_template(
            name=f"{name}_output")

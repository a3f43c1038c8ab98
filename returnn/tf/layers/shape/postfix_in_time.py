"""``{"class": "postfix_in_time", "postfix": 0.0, "repeat": 1}``: append frames after each sequence's end.

Shape: ``{B, T, F} -> {B, T+repeat, F}``; for sequence ``b`` frames ``len_b .. len_b+repeat-1`` hold the postfix
(a constant, or a layer ``{B, F}``/``{F}`` broadcast over time); new lengths ``len + repeat``. The padding after
them holds the postfix too (as the reference, observed: ``[[1, 1, 1], [1, 0, 0]]`` with lengths 3, 1 and postfix
2 gives ``[[1, 1, 1, 2], [1, 2, 2, 2]]``).
"""

from __future__ import annotations

from typing import Any, Dict

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import SpatialDim, Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template


@register_layer
class PostfixInTimeLayer(ConcatInputLayer):
    """Appends ``repeat`` postfix frames to every sequence (at its own end, not the padded end)."""

    layer_class = "postfix_in_time"
    recurrent = True  # depends on other frames (as the reference's class)

    def __init__(self, postfix: Any = 0.0, repeat: int = 1, **kwargs: Any):
        """
        :param postfix: the value of the appended frames: a constant, or a layer ``{B, F}`` or ``{F}``
        :param repeat: number of frames appended (default 1)
        """
        super().__init__(**kwargs)
        inp = self.input_data.copy_as_batch_major()
        inp = inp.copy_with_time_dim_axis(1)
        x = inp.placeholder
        lens = inp.get_sequence_lengths()
        x = tf.pad(x, [[0, 0], [0, repeat]] + [[0, 0]] * (inp.batch_ndim - 2))
        new_lens = lens + repeat
        t = tf.range(tf.shape(x)[1])[None, :]
        is_post = t >= lens[:, None]  # [B, T']: the postfix frames and the padding after them
        if isinstance(postfix, LayerBase):
            if postfix.output.batch_dim_axis is not None:
                p = tf.expand_dims(tf.cast(postfix.output.copy_as_batch_major().placeholder, x.dtype), 1)
            else:  # {F} (or a scalar): the same postfix for every sequence
                p = tf.cast(postfix.output.placeholder, x.dtype)[None, None]
        else:
            p = tf.constant(postfix, dtype=x.dtype)
        mask = tf.reshape(is_post, tf.concat([tf.shape(is_post), tf.ones([inp.batch_ndim - 2], tf.int32)], 0))
        y = tf.where(tf.broadcast_to(mask, tf.shape(x)), tf.broadcast_to(p, tf.shape(x)), x)
        out_tmpl = self.output
        tmp = inp.copy_template_replace_dim(1, out_tmpl.time_dim)
        tmp.placeholder = y
        out_tmpl.time_dim.dyn_size = new_lens
        self.output.placeholder = tmp.copy_move_axis(1, out_tmpl.time_dim_axis).placeholder \
            if out_tmpl.batch_dim_axis == 0 else tmp.copy_as_time_major().placeholder

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        super().transform_config_dict(d, network=network, get_layer=get_layer)
        if isinstance(d.get("postfix"), str):
            d["postfix"] = get_layer(d["postfix"])

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), postfix: Any = 0.0, repeat: int = 1,
                               **kwargs: Any) -> Tensor:
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        if inp.time_dim_axis is None:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="from", problem="needs a time axis:",
                                got=repr(inp))
        new = SpatialDim(f"{inp.time_dim.description}+{repeat}", None)
        return inp.copy_template_replace_dim(inp.time_dim_axis, new)

"""``{"class": "prefix_in_time", "prefix": 0.0, "repeat": 1}``: prepend ``repeat`` frames of ``prefix``.

Shape: ``{B, T, F} -> {B, repeat+T, F}``; lengths ``len + repeat``. ``repeat`` may also be a layer with int32
``{B}`` per-sequence repeat counts (then each sequence is shifted by its own count).
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
class PrefixInTimeLayer(ConcatInputLayer):
    """``out[b, t] = prefix if t < repeat_b else x[b, t - repeat_b]``."""

    layer_class = "prefix_in_time"
    recurrent = True  # depends on other frames (as the reference's class)

    def __init__(self, prefix: float = 0.0, repeat: Any = 1, size_base: Any = None, **kwargs: Any):
        """
        :param prefix: the value of the prepended frames (default 0)
        :param repeat: number of frames prepended: an int (default 1) or a layer with int ``{B}`` counts
        :param size_base: accepted for compatibility with the reference; no effect here
        """
        super().__init__(**kwargs)
        inp = self.input_data.copy_as_batch_major().copy_with_time_dim_axis(1)
        x = inp.placeholder
        lens = inp.get_sequence_lengths()
        rest = [[0, 0]] * (inp.batch_ndim - 2)
        if isinstance(repeat, LayerBase):
            reps = tf.cast(repeat.output.placeholder, tf.int32)  # [B]
            max_rep = tf.reduce_max(reps)
            x = tf.pad(x, [[0, 0], [0, max_rep]] + rest, constant_values=prefix)
            size = tf.shape(x)[1]
            src_t = tf.range(size)[None, :] - reps[:, None]  # [B, T']
            valid = src_t >= 0
            gathered = tf.gather(x, tf.maximum(src_t, 0), axis=1, batch_dims=1)
            mask = tf.reshape(valid, tf.concat([tf.shape(valid), tf.ones([inp.batch_ndim - 2], tf.int32)], 0))
            y = tf.where(tf.broadcast_to(mask, tf.shape(gathered)), gathered,
                         tf.cast(tf.fill(tf.shape(gathered), prefix), x.dtype))
            new_lens = lens + reps
        else:
            y = tf.pad(x, [[0, 0], [repeat, 0]] + rest, constant_values=prefix)
            new_lens = lens + repeat
        out_tmpl = self.output
        out_tmpl.time_dim.dyn_size = new_lens
        tmp = inp.copy_template_replace_dim(1, out_tmpl.time_dim)
        tmp.placeholder = y
        self.output.placeholder = tmp.copy_as_batch_major().placeholder if out_tmpl.batch_dim_axis == 0 \
            else tmp.copy_as_time_major().placeholder

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        super().transform_config_dict(d, network=network, get_layer=get_layer)
        if isinstance(d.get("repeat"), str):
            d["repeat"] = get_layer(d["repeat"])

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), repeat: Any = 1, **kwargs: Any) -> Tensor:
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        if inp.time_dim_axis is None:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="from", problem="needs a time axis:",
                                got=repr(inp))
        rep = repeat if isinstance(repeat, int) else "repeat"
        return inp.copy_template_replace_dim(inp.time_dim_axis, SpatialDim(f"{rep}+{inp.time_dim.description}", None))

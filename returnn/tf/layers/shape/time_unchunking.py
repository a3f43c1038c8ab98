"""``{"class": "time_unchunking", "chunking_layer": "<time_chunking layer>"}``: undo ``time_chunking``.

Frames covered by several chunks are averaged (as the reference). Output: time-major ``{T, B, ...}`` with the
original time dim and lengths of the chunking layer's input.
"""

from __future__ import annotations

from typing import Any, Dict

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template
from returnn.tf.layers.shape.time_chunking import TimeChunkingLayer


@register_layer
class TimeUnChunkingLayer(ConcatInputLayer):
    """Inverse of ``time_chunking``."""

    layer_class = "time_unchunking"
    recurrent = True  # depends on other frames (as the reference's class)

    def __init__(self, chunking_layer: TimeChunkingLayer, **kwargs: Any):
        """
        :param chunking_layer: the ``time_chunking`` layer to undo
        """
        super().__init__(**kwargs)
        inp = self.input_data.copy_as_time_major()
        if inp.batch_dim_axis != 1:
            inp = inp.copy_with_batch_dim_axis(1)
        size, step, num = chunking_layer.chunk_size, chunking_layer.chunk_step, chunking_layer.num_chunks
        orig = chunking_layer.chunked_input
        x = inp.placeholder  # [N, B*C, ...]
        chunk_lens = inp.get_sequence_lengths()  # [B*C]
        shape = tf.shape(x)
        n_batch = shape[1] // num
        x = tf.reshape(x, tf.concat([[size, n_batch, num], shape[2:]], 0))  # [N, B, C, ...]
        valid = tf.sequence_mask(tf.reshape(chunk_lens, [n_batch, num]), maxlen=size, dtype=x.dtype)  # [B, C, N]
        valid = tf.transpose(valid, [2, 0, 1])  # [N, B, C]
        extra = inp.batch_ndim - 2
        valid_b = tf.reshape(valid, tf.concat([tf.shape(valid), tf.ones([extra], tf.int32)], 0))
        x = x * valid_b
        rest = list(range(3, inp.batch_ndim + 1))
        x = tf.transpose(x, [2, 0, 1] + rest)  # [C, N, B, ...]
        pos = tf.range(num)[:, None] * step + tf.range(size)[None, :]  # [C, N]
        total = num * step + size
        out_shape = tf.concat([[total], tf.shape(x)[2:]], 0)
        summed = tf.scatter_nd(pos[:, :, None], x, out_shape)
        counts = tf.scatter_nd(pos[:, :, None], tf.transpose(valid, [2, 0, 1]), [total, n_batch])  # [T', B]
        counts = tf.reshape(counts, tf.concat([tf.shape(counts), tf.ones([extra], tf.int32)], 0))
        y = summed / tf.maximum(counts, 1.0)
        t = tf.shape(orig.placeholder)[0]
        self.output.placeholder = y[:t]

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        super().transform_config_dict(d, network=network, get_layer=get_layer)
        if isinstance(d.get("chunking_layer"), str):
            d["chunking_layer"] = get_layer(d["chunking_layer"])

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), chunking_layer: Any = None,
                               **kwargs: Any) -> Tensor:
        if not isinstance(chunking_layer, TimeChunkingLayer):
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="chunking_layer", problem="invalid value",
                                got=chunking_layer, expected="the name of a time_chunking layer")
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class).copy_as_time_major()
        if inp.batch_dim_axis != 1:
            inp = inp.copy_with_batch_dim_axis(1)
        orig_time = chunking_layer.sources[0].output.time_dim if len(chunking_layer.sources) == 1 \
            else chunking_layer.chunked_input.time_dim
        out = inp.copy_template_replace_dim(0, orig_time)
        out.name = f"{name}_output"
        return out

"""``{"class": "time_chunking", "chunk_size": N, "chunk_step": S}``: cut each sequence into overlapping chunks
that become separate batch entries (e.g. to train recurrent layers on chunks).

As the reference (observed): chunk ``c`` of sequence ``b`` starts at ``c * S``; a sequence of length ``L`` has
``1`` chunk if ``L <= N`` else ``ceil((L - N) / S) + 1``; the new batch has ``B * C`` entries (``C`` the max
number of chunks), ordered ``b * C + c``; chunk lengths are ``clip(L - c*S, 0, N)`` (0 for missing chunks).
Output is time-major ``{T':chunk (dyn), B', F}``. ``time_unchunking`` with ``chunking_layer`` undoes it.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import SpatialDim, Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template
from returnn.tf.ops.dims import mask_padded


@register_layer
class TimeChunkingLayer(ConcatInputLayer):
    """Chunks the time axis into the batch axis."""

    layer_class = "time_chunking"
    recurrent = True  # depends on other frames (as the reference's class)

    def __init__(self, chunk_size: int, chunk_step: int, **kwargs: Any):
        """
        :param chunk_size: frames per chunk
        :param chunk_step: frames between the starts of consecutive chunks
        """
        super().__init__(**kwargs)
        inp = self.input_data.copy_as_time_major()
        if inp.batch_dim_axis != 1:
            inp = inp.copy_with_batch_dim_axis(1)
        lens = inp.get_sequence_lengths()
        x = mask_padded(inp, 0, 0)  # [T, B, ...]
        n_chunks = tf.where(lens > chunk_size, (lens - chunk_size + chunk_step - 1) // chunk_step + 1,
                            tf.ones_like(lens))
        num = tf.reduce_max(n_chunks)
        starts = tf.range(num) * chunk_step  # [C]
        total = num * chunk_step + chunk_size
        x = tf.pad(x, [[0, tf.maximum(total - tf.shape(x)[0], 0)]] + [[0, 0]] * (inp.batch_ndim - 1))
        pos = starts[:, None] + tf.range(chunk_size)[None, :]  # [C, N]
        chunks = tf.gather(x, pos)  # [C, N, B, ...]
        rest = list(range(3, inp.batch_ndim + 1))
        chunks = tf.transpose(chunks, [1, 2, 0] + rest)  # [N, B, C, ...]
        shape = tf.shape(chunks)
        chunks = tf.reshape(chunks, tf.concat([[chunk_size, shape[1] * shape[2]], shape[3:]], 0))
        chunk_lens = tf.clip_by_value(lens[:, None] - starts[None, :], 0, chunk_size)  # [B, C]
        chunk_lens = tf.where(tf.range(num)[None, :] < n_chunks[:, None], chunk_lens, tf.zeros_like(chunk_lens))
        self.output.dims[0].dyn_size = tf.reshape(chunk_lens, [-1])
        tmp = self.output.copy()
        tmp.placeholder = chunks
        self.output.placeholder = mask_padded(tmp, 0, 0)
        self.chunk_size, self.chunk_step, self.num_chunks = chunk_size, chunk_step, num
        self.chunked_input = inp  # time-major input template (with raw), used by time_unchunking

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), chunk_size: int = 0, chunk_step: int = 0,
                               **kwargs: Any) -> Tensor:
        if chunk_size <= 0 or chunk_step <= 0:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="chunk_size",
                                problem="needs positive chunk_size and chunk_step:", got=(chunk_size, chunk_step))
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        if inp.time_dim_axis is None or inp.batch_dim_axis is None:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="from",
                                problem="needs an input with batch and time axes:", got=repr(inp))
        tm = inp.copy_as_time_major()
        if tm.batch_dim_axis != 1:
            tm = tm.copy_with_batch_dim_axis(1)
        out = tm.copy_template_replace_dim(0, SpatialDim(f"{name}:chunking", None))
        out.name = f"{name}_output"
        return out

"""``{"class": "relative_positional_encoding", "from": "data", "n_out": D, "clipping": 16}``: learned encodings of
relative positions, for ``self_attention``'s ``key_shift`` (Shaw et al., 2018).

Shape: input ``{B, T, F}`` -> ``{T, T', n_out}`` (no batch axis; ``T'`` is the same length as the key axis):
``out[i, j] = encoding_matrix[clip(j - i, -clipping, clipping) + clipping]``.
Param ``encoding_matrix`` ``[2 * clipping + 1, n_out]`` (default init ``glorot_uniform``; ``fixed``: no param,
row ``k`` is the sinusoidal signal of position ``k``, ``[sin(k w_0), .., sin(k w_{m-1}), cos(k w_0), ..,
cos(k w_{m-1})]`` (and a zero channel for odd ``n_out``), ``m = n_out // 2``, ``w_l = 10000 ** (-l / (m - 1))``).

With ``query_spatial_dim`` and ``key_value_spatial_dim`` (Dims; the input's key axis), the output is
``{query_spatial_dim, key_value_spatial_dim, n_out}`` and query ``i`` is at key position ``i + query_offset``:
``out[i, j] = encoding_matrix[clip(j - i - query_offset, ...) + clipping]`` (e.g. queries of a chunk after ``W`` frames
of left context: ``query_offset=W``).

Inside a rec unit (input one frame ``{B, F}``, step ``i``): ``{1, T', n_out}`` (as the reference, observed) with
``out[0, j] = encoding_matrix[clip(j - i, ...) + clipping]`` for the ``T' = i + 1`` positions so far (the keys of a
step-wise ``self_attention``); the row of step ``i`` of the whole-sequence output, up to ``i``.
"""

from __future__ import annotations

from typing import Any, Optional

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import Dim, FeatureDim, NotSpecified, SpatialDim, Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template
from returnn.tf.ops.init import get_initializer


@register_layer
class RelativePositionalEncodingLayer(ConcatInputLayer):
    """See the module docstring.

    :param clipping: maximal relative distance (default 16)
    :param forward_weights_init: initializer of ``encoding_matrix``
    :param fixed: sinusoidal fixed encodings instead of a trainable matrix
    """

    layer_class = "relative_positional_encoding"
    recurrent = True  # depends on other frames (as the reference's class)

    def __init__(self, clipping: int = 16, forward_weights_init: Any = "glorot_uniform", fixed: bool = False,
                 query_spatial_dim: Optional[Dim] = None, key_value_spatial_dim: Optional[Dim] = None,
                 query_offset: int = 0, rec_step: Any = None, rec_max_len: Any = None, **kwargs: Any):
        """
        :param query_spatial_dim: the query axis of the output (default: the input's time axis)
        :param key_value_spatial_dim: the input's key axis, the key axis of the output (default: the time axis)
        :param query_offset: the key position of query 0 (default 0)
        :param rec_step: set by the rec loop, not in a config: the current step
        :param rec_max_len: set by the rec loop, not in a config: the loop's maximal length (unused)
        """
        super().__init__(**kwargs)
        n_out = self.output.dim
        inp = self.input_data
        if fixed:
            from returnn.tf.layers.attention.positional_encoding import timing_signal
            # row k is the sinusoid of position k (0 .. 2 * clipping), as the reference (observed)
            table = timing_signal(tf.range(2 * clipping + 1, dtype=tf.float32), n_out)
        else:
            init = get_initializer(forward_weights_init, seed=self.network.random.randint(2 ** 31),
                                   key=f"{self.name}/forward_weights_init")
            table = self.create_param("encoding_matrix", (2 * clipping + 1, n_out), init)
        if inp.time_dim_axis is None:  # one step inside a rec loop: the row of query position rec_step
            rel = tf.clip_by_value(tf.range(rec_step + 1) - rec_step, -clipping, clipping) + clipping  # [T' = i + 1]
            self.output.placeholder = tf.gather(table, rel)[None]  # [1, T', n_out]
            return
        if key_value_spatial_dim is not None or query_spatial_dim is not None:
            n_keys = _dim_length(inp, key_value_spatial_dim or inp.time_dim)
            n_queries = _dim_length(inp, query_spatial_dim or inp.time_dim)
        else:
            n_keys = n_queries = tf.shape(inp.placeholder)[inp.time_dim_axis]
        rel = tf.range(n_keys)[None, :] - (tf.range(n_queries)[:, None] + query_offset)  # [T_q, T_k]
        self.output.placeholder = tf.gather(table, tf.clip_by_value(rel, -clipping, clipping) + clipping)

    @classmethod
    def get_out_data_from_opts(cls, name: str, network: Any, sources: Any = (), n_out: Any = NotSpecified,
                               out_dim: Any = None, query_spatial_dim: Optional[Dim] = None,
                               key_value_spatial_dim: Optional[Dim] = None, **kwargs: Any) -> Tensor:
        """:return: ``{T, T', n_out}`` without batch axis (``{query_spatial_dim, key_value_spatial_dim, n_out}``)
        :raises LayerArgError: missing ``n_out``; input without time axis"""
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        if out_dim is not None:
            n_out = out_dim.dimension
        if n_out in (NotSpecified, None):
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="n_out", problem="missing required argument")
        feat = out_dim or FeatureDim(f"{name}:feature", n_out)
        if inp.time_dim_axis is None and network.is_inside_rec_layer():  # as the reference (observed): {1, T', F}
            return Tensor(name=f"{name}_output", dims=[SpatialDim(f"{name}:query", 1), SpatialDim(f"{name}:key-time"),
                                                       feat],
                          dtype="float32", time_dim_axis=1, feature_dim_axis=2, batch_dim_axis=None)
        if inp.time_dim_axis is None:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="from",
                                problem="input needs a time axis (or the layer inside a rec unit)",
                                got=inp.get_dims_repr())
        if key_value_spatial_dim is not None or query_spatial_dim is not None:
            return Tensor(name=f"{name}_output", dims=[query_spatial_dim or inp.time_dim,
                                                       key_value_spatial_dim or inp.time_dim, feat],
                          dtype="float32", time_dim_axis=None, feature_dim_axis=2)  # no time axis: as the reference
        time_dim = inp.time_dim
        key_dim = SpatialDim(f"{name}:key-time")
        key_dim.dyn_size_fn = lambda: time_dim.dyn_size
        return Tensor(name=f"{name}_output", dims=[time_dim, key_dim, feat],
                      dtype="float32", time_dim_axis=0, feature_dim_axis=2)


def _dim_length(inp: Tensor, dim: Dim) -> Any:
    """:return: the (padded) length of ``dim``: of its axis in ``inp``, else its static size or its longest length"""
    if dim in inp.dims:
        return tf.shape(inp.placeholder)[inp.dims.index(dim)]
    if dim.dimension is not None:
        return dim.dimension
    return tf.reduce_max(dim.dyn_size)

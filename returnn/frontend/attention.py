"""Attention: ``rf.dot_attention``, ``rf.SelfAttention``, ``rf.CausalSelfAttention``, ``rf.RelPosSelfAttention``,
``rf.CrossAttention``, and the positional encodings ``rf.sinusoidal_positional_encoding``,
``rf.relative_positional_encoding``. Parameter names as the reference (observed): ``qkv`` (``[in, 2*kt+vt]``),
``proj``, ``pos_bias_u``/``pos_bias_v`` (``[heads, kt/heads]``), ``linear_pos`` (no bias), ``kv``/``q``."""

from __future__ import annotations

import math
from typing import Any, Optional, Tuple, Union

from returnn.errors import FrontendError
from returnn.frontend import _utils
from returnn.frontend import init as _init
from returnn.frontend.linear import Linear
from returnn.frontend.module import Module
from returnn.frontend.parameter import Parameter
from returnn.frontend.state import State
from returnn.tensor import Dim, Tensor

__all__ = ["dot_attention", "SelfAttentionBase", "SelfAttention", "CausalSelfAttention", "CausalSelfAttentionState",
           "RelPosSelfAttention", "CrossAttention", "sinusoidal_positional_encoding",
           "relative_positional_encoding"]


def dot_attention(query: Tensor, keys: Tensor, values: Tensor, *, key_dim: Dim, axis: Dim, att_dropout: float = 0.0,
                  att_dropout_broadcast: Optional[bool] = None, causal_query_spatial_dim: Optional[Dim] = None,
                  scale: Optional[float] = None) -> Tensor:
    """``softmax_axis(query · keys * key_dim**-0.5) · values``; with ``causal_query_spatial_dim``, key frames after
    the query frame are masked. :return: query's dims without ``key_dim``, plus values' other dims"""
    from returnn.frontend.array_ import where
    from returnn.frontend.dropout import dropout
    from returnn.frontend.math_ import compare_bc, softmax
    from returnn.frontend.matmul import matmul
    from returnn.frontend.dims import range_over_dim
    scale = key_dim.dimension ** -0.5 if scale is None else scale
    energy = matmul(query * scale, keys, reduce=key_dim)
    if causal_query_spatial_dim is not None:
        future = compare_bc(range_over_dim(axis), "greater", range_over_dim(causal_query_spatial_dim))
        energy = where(future, float("-inf"), energy, allow_broadcast_all_sources=True, dim_order=energy.dims)
    weights = softmax(energy, axis=axis)
    if att_dropout:
        weights = dropout(weights, att_dropout, axis=None if not att_dropout_broadcast else [axis])
    return matmul(weights, values, reduce=axis)


class SelfAttentionBase(Module):
    """Shared parts: ``qkv`` projection, heads, output ``proj``."""

    def __init__(self, in_dim: Dim, proj_dim: Optional[Dim], *, key_dim_total: Dim, value_dim_total: Dim,
                 num_heads: Union[int, Dim], with_bias: bool = True, att_dropout: float = 0.1,
                 att_dropout_broadcast: Optional[bool] = None):
        super().__init__()
        self.in_dim, self.out_dim = in_dim, proj_dim if proj_dim else value_dim_total
        self.num_heads = num_heads if isinstance(num_heads, Dim) else Dim(num_heads, name="num_heads")
        h = self.num_heads.dimension
        if key_dim_total.dimension % h or value_dim_total.dimension % h:
            raise FrontendError(type(self).__name__, f"key/value dims {key_dim_total!r}, {value_dim_total!r} must be "
                                                     f"multiples of num_heads={h}")
        self.key_dim_total, self.value_dim_total = key_dim_total, value_dim_total
        self.key_dim_per_head = key_dim_total.div_left(self.num_heads)
        self.value_dim_per_head = value_dim_total.div_left(self.num_heads)
        self.qkv_dim_total = 2 * key_dim_total + value_dim_total
        self.qkv_dim_per_head = 2 * self.key_dim_per_head + self.value_dim_per_head
        self.qkv = Linear(in_dim, self.qkv_dim_total, with_bias=with_bias)
        self.proj = Linear(value_dim_total, proj_dim, with_bias=with_bias) if proj_dim else None
        self.att_dropout, self.att_dropout_broadcast = att_dropout, bool(att_dropout_broadcast)

    def forward_qkv(self, source: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
        """:return: q, k, v, each with the dims ``num_heads`` and the per-head key/value dim"""
        from returnn.frontend.array_ import split, split_dims
        qkv = self.qkv(source)
        qkv = split_dims(qkv, axis=self.qkv_dim_total, dims=(self.num_heads, self.qkv_dim_per_head))
        q, k, v = split(qkv, axis=self.qkv_dim_per_head,
                        out_dims=(self.key_dim_per_head, self.key_dim_per_head, self.value_dim_per_head))
        return q, k, v

    def attention(self, q: Tensor, k: Tensor, v: Tensor, *, kv_axis: Dim,
                  causal_query_spatial_dim: Optional[Dim] = None) -> Tensor:
        """:return: the attention output with the heads merged into ``value_dim_total``, projected"""
        from returnn.frontend.array_ import merge_dims
        att = dot_attention(q, k, v, key_dim=self.key_dim_per_head, axis=kv_axis, att_dropout=self.att_dropout,
                            att_dropout_broadcast=self.att_dropout_broadcast,
                            causal_query_spatial_dim=causal_query_spatial_dim)
        return self._output(merge_dims(att, dims=(self.num_heads, self.value_dim_per_head),
                                       out_dim=self.value_dim_total)[0])

    def _output(self, x: Tensor) -> Tensor:
        return self.proj(x) if self.proj is not None else x


def _kv_copy(axis: Dim, *tensors: Tensor) -> Tuple[Dim, Tuple[Tensor, ...]]:
    """The keys/values get their own spatial dim (same lengths as ``axis``)."""
    from returnn.frontend.dims import replace_dim
    kv_axis = axis.copy(same_as_self=False, description=f"{axis.name}:kv")
    if axis.dimension is None and axis.dyn_size_ext is not None:
        kv_axis.dyn_size_ext = axis.dyn_size_ext
    return kv_axis, tuple(replace_dim(t, in_dim=axis, out_dim=kv_axis)[0] for t in tensors)


class SelfAttention(SelfAttentionBase):
    """Multi-head self attention over ``axis``. ``__call__(source, *, axis) -> out``."""

    def __call__(self, source: Tensor, *, axis: Dim) -> Tensor:
        q, k, v = self.forward_qkv(source)
        kv_axis, (k, v) = _kv_copy(axis, k, v)
        return self.attention(q, k, v, kv_axis=kv_axis)


class CausalSelfAttentionState(State):
    """The state of :class:`CausalSelfAttention` for step-wise decoding: ``k_accum``, ``v_accum``, ``accum_axis``."""


class CausalSelfAttention(SelfAttentionBase):
    """Self attention where each frame attends to itself and earlier frames.
    ``__call__(source, axis, *, state=None) -> (out, new_state)`` (full sequences)."""

    def __call__(self, source: Tensor, axis: Dim, *, state: Optional[CausalSelfAttentionState] = None
                 ) -> Tuple[Tensor, CausalSelfAttentionState]:
        q, k, v = self.forward_qkv(source)
        kv_axis, (k, v) = _kv_copy(axis, k, v)
        out = self.attention(q, k, v, kv_axis=kv_axis, causal_query_spatial_dim=axis)
        return out, CausalSelfAttentionState(k_accum=k, v_accum=v, accum_axis=kv_axis)

    def default_initial_state(self, *, batch_dims: Any, capacity: Optional[int] = None) -> CausalSelfAttentionState:
        """:return: an empty state"""
        return CausalSelfAttentionState()


def sinusoidal_positional_encoding(*, spatial_dim: Dim, feat_dim: Dim, offset: Any = None,
                                   base: Union[int, float] = 1e4, dtype: Optional[str] = None,
                                   device: Optional[str] = None) -> Tensor:
    """:return: ``[spatial_dim, feat_dim]``: ``sin(pos * f_i)`` in the first half, ``cos(pos * f_i)`` in the
    second, ``f_i = base ** (-i / (half - 1))`` (observed in the reference)"""
    from returnn.frontend.array_ import concat
    from returnn.frontend.dims import range_over_dim
    from returnn.frontend.math_ import cast, combine_bc, cos, sin
    half = feat_dim.dimension // 2
    if half * 2 != feat_dim.dimension:
        raise FrontendError("sinusoidal_positional_encoding", f"needs an even feat_dim, got {feat_dim!r}")
    pos = cast(range_over_dim(spatial_dim), dtype or "float32")
    if offset is not None:
        pos = pos + offset
    return _sin_cos(pos, feat_dim, [base ** (-i / max(half - 1, 1)) for i in range(half)], dtype)


def _sin_cos(pos: Tensor, feat_dim: Dim, freqs: list, dtype: Optional[str]) -> Tensor:
    from returnn.frontend.array_ import concat
    from returnn.frontend.const import convert_to_tensor
    from returnn.frontend.math_ import combine_bc, cos, sin
    import numpy as np
    half_dim = Dim(len(freqs), name=f"{feat_dim.name}:half")
    f = convert_to_tensor(np.asarray(freqs, dtype=dtype or "float32"), dims=[half_dim])
    arg = combine_bc(pos, "mul", f)
    out, _ = concat((sin(arg), half_dim), (cos(arg), half_dim), out_dim=feat_dim)
    return out


def relative_positional_encoding(*, query_spatial_dim: Dim, key_value_spatial_dim: Dim, feat_dim: Dim,
                                 query_offset: int = 0, dtype: Optional[str] = None, device: Optional[str] = None
                                 ) -> Tuple[Tensor, Dim]:
    """:return: (``[pos_dim, feat_dim]``, pos_dim of size ``T_q + T_kv - 1``): row ``r`` encodes the relative
    position ``r - (T_kv - 1)`` (``sin`` half, ``cos`` half, ``f_i = 1e4 ** (-2i / feat)``), as observed"""
    from returnn.frontend.dims import range_over_dim
    from returnn.frontend.math_ import cast
    pos_dim = query_spatial_dim + key_value_spatial_dim - 1
    half = feat_dim.dimension // 2
    kv_len = _utils.dim_value(key_value_spatial_dim)
    pos = cast(range_over_dim(pos_dim), "int32") - (kv_len - 1 - query_offset if isinstance(kv_len, int) else
                                                     _utils.make_tensor("off", [], "int32", kv_len - 1 - query_offset))
    pos = cast(pos, dtype or "float32")
    return _sin_cos(pos, feat_dim, [1e4 ** (-2 * i / feat_dim.dimension) for i in range(half)], dtype), pos_dim


class RelPosSelfAttention(SelfAttentionBase):
    """Self attention with relative positional encodings (Transformer-XL style: ``pos_bias_u``/``pos_bias_v``,
    ``linear_pos``). ``__call__(source, *, axis) -> out``."""

    def __init__(self, in_dim: Dim, proj_dim: Optional[Dim], *, key_dim_total: Dim, value_dim_total: Dim,
                 num_heads: Union[int, Dim], with_bias: bool = True, with_linear_pos: bool = True,
                 with_pos_bias: bool = True, learnable_pos_emb: bool = False, learnable_pos_emb_clipping: int = 16,
                 separate_pos_emb_per_head: bool = True, pos_emb_dropout: float = 0.0, att_dropout: float = 0.1):
        if learnable_pos_emb:
            raise FrontendError("RelPosSelfAttention", "learnable_pos_emb=True is not supported here")
        super().__init__(in_dim, proj_dim, key_dim_total=key_dim_total, value_dim_total=value_dim_total,
                         num_heads=num_heads, with_bias=with_bias, att_dropout=att_dropout)
        self.pos_emb_dropout = pos_emb_dropout
        self.linear_pos = Linear(in_dim, key_dim_total, with_bias=False) if with_linear_pos else None
        self.pos_bias_u = self.pos_bias_v = None
        if with_pos_bias:
            self.pos_bias_u = Parameter((self.num_heads, self.key_dim_per_head))
            self.pos_bias_v = Parameter((self.num_heads, self.key_dim_per_head))
            self.pos_bias_u.initial = _init.Glorot()
            self.pos_bias_v.initial = _init.Glorot()

    def __call__(self, source: Tensor, *, axis: Dim, **_kwargs: Any) -> Tensor:
        from returnn.frontend.array_ import gather, merge_dims, split_dims
        from returnn.frontend.dims import range_over_dim, set_sparse_dim
        from returnn.frontend.dropout import dropout
        from returnn.frontend.math_ import combine_bc, softmax
        from returnn.frontend.matmul import matmul
        q, k, v = self.forward_qkv(source)
        kv_axis, (k, v) = _kv_copy(axis, k, v)
        pos_emb, pos_dim = relative_positional_encoding(query_spatial_dim=axis, key_value_spatial_dim=kv_axis,
                                                        feat_dim=self.in_dim)
        if self.pos_emb_dropout:
            pos_emb = dropout(pos_emb, self.pos_emb_dropout)
        if self.linear_pos is not None:
            pos_emb = self.linear_pos(pos_emb)
        p = split_dims(pos_emb, axis=pos_emb.feature_dim, dims=(self.num_heads, self.key_dim_per_head))
        q_u = q + self.pos_bias_u if self.pos_bias_u is not None else q
        q_v = q + self.pos_bias_v if self.pos_bias_v is not None else q
        ac = matmul(q_u, k, reduce=self.key_dim_per_head)
        bd = matmul(q_v, p, reduce=self.key_dim_per_head)
        kv_len = _utils.dim_value(kv_axis)
        idx = combine_bc(range_over_dim(kv_axis), "sub", range_over_dim(axis))  # j - i
        idx = set_sparse_dim(idx + (kv_len - 1 if isinstance(kv_len, int) else
                                    _utils.make_tensor("off", [], "int32", kv_len - 1)), pos_dim)
        bd = gather(bd, indices=idx, axis=pos_dim)
        scores = combine_bc(ac, "add", bd, dim_order=ac.dims) * (self.key_dim_per_head.dimension ** -0.5)
        weights = softmax(scores, axis=kv_axis)
        if self.att_dropout:
            weights = dropout(weights, self.att_dropout)
        att = matmul(weights, v, reduce=kv_axis)
        return self._output(merge_dims(att, dims=(self.num_heads, self.value_dim_per_head),
                                       out_dim=self.value_dim_total)[0])


class CrossAttention(SelfAttentionBase):
    """Attention of queries (``query_in_dim``) to an encoder (``encoder_dim``): ``kv`` on the encoder, ``q`` on the
    query. ``transform_encoder(encoder, axis=) -> State``, then ``__call__(q, encoder_state) -> out``."""

    def __init__(self, encoder_dim: Dim, query_in_dim: Dim, proj_dim: Optional[Dim], *, key_dim_total: Dim,
                 value_dim_total: Dim, num_heads: Union[int, Dim], with_bias: bool = True, att_dropout: float = 0.1,
                 att_dropout_broadcast: Optional[bool] = None):
        super().__init__(encoder_dim, proj_dim, key_dim_total=key_dim_total, value_dim_total=value_dim_total,
                         num_heads=num_heads, with_bias=with_bias, att_dropout=att_dropout,
                         att_dropout_broadcast=att_dropout_broadcast)
        proj = self.proj
        del self.qkv
        del self.proj
        self.kv_dim_total = key_dim_total + value_dim_total
        self.kv_dim_per_head = self.key_dim_per_head + self.value_dim_per_head
        self.kv = Linear(encoder_dim, self.kv_dim_total, with_bias=with_bias)
        self.q = Linear(query_in_dim, key_dim_total, with_bias=with_bias)
        self.proj = proj

    def transform_encoder(self, encoder: Tensor, *, axis: Dim) -> State:
        """:return: ``State(k=, v=, kv_axis=)`` of the encoder"""
        from returnn.frontend.array_ import split, split_dims
        kv = split_dims(self.kv(encoder), axis=self.kv_dim_total, dims=(self.num_heads, self.kv_dim_per_head))
        k, v = split(kv, axis=self.kv_dim_per_head, out_dims=(self.key_dim_per_head, self.value_dim_per_head))
        return State(k=k, v=v, kv_axis=axis)

    def __call__(self, q: Tensor, encoder: State) -> Tensor:
        from returnn.frontend.array_ import split_dims
        q = split_dims(self.q(q), axis=self.key_dim_total, dims=(self.num_heads, self.key_dim_per_head))
        return self.attention(q, encoder.k, encoder.v, kv_axis=encoder.kv_axis)


del math

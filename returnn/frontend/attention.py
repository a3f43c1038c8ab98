"""Attention: ``rf.dot_attention`` and the multi-head attention modules.

Multi-head self-attention (``SelfAttentionBase``): ``qkv`` (``rf.Linear`` ``in_dim → qkv_dim_total``) gives per head
(heads major: ``qkv_dim_total`` splits into ``[num_heads, 2*key_dim_per_head + value_dim_per_head]``) the query,
key and value; each head attends with :func:`dot_attention` (energies scaled by ``key_dim_per_head ** -0.5``); the
heads' values are merged (heads major) into ``value_dim_total`` and projected by ``proj`` (``value_dim_total →
proj_dim``; no projection if ``proj_dim`` is None). Parameter names as the reference: ``qkv.weight``, ``qkv.bias``,
``proj.weight``, ``proj.bias`` (``RelPos*``: first ``pos_bias_u``, ``pos_bias_v`` ``[num_heads, key_dim_per_head]``,
then ``linear_pos.weight``; ``CrossAttention``: ``kv``, ``q``, ``proj``).
"""

from __future__ import annotations

from typing import Any, Optional, Sequence, Tuple, Union

from returnn.errors import FrontendError
from returnn.frontend import _utils
from returnn.frontend.linear import Linear
from returnn.frontend.module import Module
from returnn.frontend.positional_encoding import (
    LearnedRelativePositionalEncoding, relative_positional_encoding, rel_pos_dim, sinusoidal_positional_encoding)
from returnn.frontend.state import State
from returnn.tensor import Dim, Tensor, single_step_dim

__all__ = [
    "dot_attention", "SelfAttentionBase", "SelfAttention", "CausalSelfAttention", "CausalSelfAttentionState",
    "RelPosSelfAttention", "RelPosCausalSelfAttention", "CrossAttention", "RotaryPosSelfAttention",
    "RotaryPosCausalSelfAttention", "sinusoidal_positional_encoding", "relative_positional_encoding",
    "LearnedRelativePositionalEncoding", "causal_mask",
]


def _dropout(att_weights: Tensor, drop: float, broadcast: Optional[bool], axis: Dim) -> Tensor:
    """Dropout on the attention weights in training; ``broadcast`` (the reference's old default): one mask over
    ``axis`` shared by the other dims, else a mask per entry."""
    if not drop:
        return att_weights
    from returnn.frontend.dropout import dropout
    return dropout(att_weights, drop, axis=[axis] if broadcast else None)


def dot_attention(query: Tensor, keys: Tensor, values: Tensor, *, key_dim: Dim, axis: Dim,
                  att_dropout: float = 0.0, att_dropout_broadcast: Optional[bool] = None,
                  causal_query_spatial_dim: Optional[Dim] = None, scale: Optional[float] = None,
                  bias: Optional[Tensor] = None) -> Tensor:
    """``softmax_axis(query · keys / sqrt(key_dim)) · values``.

    :param query: has ``key_dim``; other dims (batch, heads, query positions) are kept
    :param keys: has ``key_dim`` and ``axis``
    :param values: has ``axis``
    :param axis: the key/value positions (padded frames of a dynamic ``axis`` get weight 0)
    :param causal_query_spatial_dim: the query positions; keys after a query's position are masked
    :param scale: the energy scale (default ``key_dim ** -0.5``)
    :param bias: added to the energies (dims among them), e.g. ``-inf`` for masked positions
    :return: query's dims without ``key_dim``, then values' other dims (e.g. ``[batch, time, value]``)
    :raises FrontendError: a dim missing in an input; ``axis`` in the query
    """
    from returnn.frontend.math_ import softmax
    from returnn.frontend.matmul import matmul
    _utils.check_dims("dot_attention", query, [key_dim])
    _utils.check_dims("dot_attention", keys, [key_dim, axis])
    _utils.check_dims("dot_attention", values, [axis])
    if axis in query.dims:
        raise FrontendError("dot_attention", f"the query must not have the key/value axis {axis!r}",
                            got=query.dims, hint="replace the keys' and values' spatial dim first (rf.replace_dim)")
    energy = matmul(query, keys, reduce=key_dim) * (key_dim.dimension ** -0.5 if scale is None else scale)
    if bias is not None:
        energy = energy + bias
    if causal_query_spatial_dim is not None:
        energy = energy + _where_scalar(causal_mask(causal_query_spatial_dim, axis), energy.dtype)
    att_weights = softmax(energy, axis=axis)
    att_weights = _dropout(att_weights, att_dropout, att_dropout_broadcast, axis)
    return matmul(att_weights, values, reduce=axis)


def causal_mask(query_dim: Dim, kv_dim: Dim, *, query_offset: Any = 0) -> Tensor:
    """:return: bool ``[query_dim, kv_dim]``, true where the key position ``<=`` the query position
    (``+ query_offset``)"""
    from returnn.frontend.dims import range_over_dim
    q = range_over_dim(query_dim)
    if not (isinstance(query_offset, int) and query_offset == 0):
        q = q + query_offset
    from returnn.frontend.math_ import compare_bc
    return compare_bc(range_over_dim(kv_dim), "less_equal", q)


class SelfAttentionBase(Module):
    """The parameters and the head handling of self-attention (see the module docstring).

    :param in_dim: the input feature dim
    :param proj_dim: the output dim (after ``proj``); None: no projection, the output is ``value_dim_total``
    :param key_dim_total: all heads' key dims (divisible by ``num_heads``)
    :param value_dim_total: all heads' value dims (divisible by ``num_heads``)
    :param num_heads: an int or a Dim
    :param with_bias: biases in ``qkv`` and ``proj``
    :param att_dropout: dropout on the attention weights in training (default 0.1)
    :param att_dropout_broadcast: share the dropout mask over the batch dims (the reference's old default True)
    """

    def __init__(self, in_dim: Dim, proj_dim: Optional[Dim], *, key_dim_total: Dim, value_dim_total: Dim,
                 num_heads: Union[int, Dim], with_bias: bool = True, att_dropout: float = 0.1,
                 att_dropout_broadcast: Optional[bool] = None):
        super().__init__()
        call = type(self).__name__
        nh = num_heads.dimension if isinstance(num_heads, Dim) else num_heads
        for name, d in (("in_dim", in_dim), ("key_dim_total", key_dim_total), ("value_dim_total", value_dim_total)):
            if not isinstance(d, Dim) or d.dimension is None:
                raise FrontendError(call, f"{name} must be a static Dim", got=d)
        if not isinstance(nh, int) or nh <= 0 or key_dim_total.dimension % nh or value_dim_total.dimension % nh:
            raise FrontendError(call, f"key_dim_total ({key_dim_total.dimension}) and value_dim_total "
                                      f"({value_dim_total.dimension}) must be divisible by num_heads ({nh})")
        self.in_dim = in_dim
        self.out_dim = proj_dim if proj_dim is not None else value_dim_total
        self.key_dim_total = key_dim_total
        self.key_dim_per_head = Dim(key_dim_total.dimension // nh, name=f"{key_dim_total.name} /l num_heads")
        self.value_dim_total = value_dim_total
        self.value_dim_per_head = Dim(value_dim_total.dimension // nh, name=f"{value_dim_total.name} /l num_heads")
        self.num_heads = num_heads if isinstance(num_heads, Dim) else Dim(nh, name="num_heads")
        self.qkv_dim_total = Dim(2 * key_dim_total.dimension + value_dim_total.dimension,
                                 name=f"2*{key_dim_total.name}+{value_dim_total.name}")
        self.qkv_dim_per_head = Dim(2 * self.key_dim_per_head.dimension + self.value_dim_per_head.dimension,
                                    name="qkv_per_head")
        self.qkv = Linear(in_dim, self.qkv_dim_total, with_bias=with_bias)
        self.proj = Linear(value_dim_total, proj_dim, with_bias=with_bias) if proj_dim is not None else None
        self.att_dropout = att_dropout
        self.att_dropout_broadcast = True if att_dropout_broadcast is None else att_dropout_broadcast

    def forward_qkv(self, source: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
        """:return: q, k, v: ``source``'s dims without ``in_dim``, plus ``num_heads`` and the per-head dim"""
        from returnn.frontend.array_ import split, split_dims
        _utils.check_dims(type(self).__name__, source, [self.in_dim])
        qkv = self.qkv(source)
        qkv = split_dims(qkv, axis=self.qkv_dim_total, dims=(self.num_heads, self.qkv_dim_per_head))
        q, k, v = split(qkv, axis=self.qkv_dim_per_head,
                        out_dims=(self.key_dim_per_head, self.key_dim_per_head, self.value_dim_per_head))
        return q, k, v

    def attention(self, q: Tensor, k: Tensor, v: Tensor, *, kv_axis: Dim, bias: Optional[Tensor] = None) -> Tensor:
        """:return: the merged heads' output (``value_dim_total``), before ``proj``"""
        from returnn.frontend.array_ import merge_dims
        out = dot_attention(q, k, v, key_dim=self.key_dim_per_head, axis=kv_axis, att_dropout=self.att_dropout,
                            att_dropout_broadcast=self.att_dropout_broadcast, bias=bias)
        out, _ = merge_dims(out, dims=(self.num_heads, self.value_dim_per_head), out_dim=self.value_dim_total)
        return out

    def _project(self, out: Tensor) -> Tensor:
        return self.proj(out) if self.proj is not None else out


def _kv_dim_like(axis: Dim) -> Dim:
    """:return: a new dim of ``axis``' size (its lengths too), for the keys/values"""
    out = Dim(axis.dimension, name=f"{axis.name}:kv")
    if axis.dimension is None:
        out.dyn_size_ext = axis.dyn_size_ext
    return out


class SelfAttention(SelfAttentionBase):
    """Multi-head self-attention over ``axis``."""

    def __call__(self, source: Tensor, *, axis: Dim) -> Tensor:
        """:return: ``source``'s dims with ``in_dim`` replaced by ``out_dim``"""
        from returnn.frontend.dims import replace_dim
        _utils.check_dims(type(self).__name__, source, [axis])
        q, k, v = self.forward_qkv(source)
        kv_axis = _kv_dim_like(axis)
        k, _ = replace_dim(k, in_dim=axis, out_dim=kv_axis)
        v, _ = replace_dim(v, in_dim=axis, out_dim=kv_axis)
        return self._project(self.attention(q, k, v, kv_axis=kv_axis))


class CausalSelfAttentionState(State):
    """The keys and values seen so far: ``k_accum``, ``v_accum`` ``[batch..., accum_axis, num_heads, per-head]``
    and ``accum_axis``."""

    def __init__(self, *_args: Any, k_accum: Optional[Tensor] = None, v_accum: Optional[Tensor] = None,
                 accum_axis: Optional[Dim] = None):
        if _args:
            super().__init__(*_args)
        else:
            super().__init__(k_accum=k_accum, v_accum=v_accum, accum_axis=accum_axis)


class CausalSelfAttention(SelfAttentionBase):
    """Self-attention where each position attends to itself and the earlier ones; with a state for step-wise
    decoding (``axis=single_step_dim``)."""

    def default_initial_state(self, *, batch_dims: Sequence[Dim], capacity: Optional[int] = None
                              ) -> CausalSelfAttentionState:
        """:return: empty accumulators: an ``accum_axis`` of size 0 that grows by one per step; with ``capacity``
        (for steps inside ``rf.while_loop``/``rf.scan``, whose state keeps its dims): buffers over a static
        ``accum_axis`` of that size and the next write position ``pos`` (int32 scalar); positions at or beyond
        ``capacity`` are not stored"""
        from returnn.frontend.const import zeros
        if capacity is not None:
            accum = Dim(int(capacity), name="self_att_hist")
            state = CausalSelfAttentionState(
                k_accum=zeros(list(batch_dims) + [accum, self.num_heads, self.key_dim_per_head]),
                v_accum=zeros(list(batch_dims) + [accum, self.num_heads, self.value_dim_per_head]),
                accum_axis=accum)
            state["pos"] = zeros([], dtype="int32")
            return state
        accum = Dim(0, name="self_att_expand_dim_init")
        return CausalSelfAttentionState(
            k_accum=zeros(list(batch_dims) + [accum, self.num_heads, self.key_dim_per_head]),
            v_accum=zeros(list(batch_dims) + [accum, self.num_heads, self.value_dim_per_head]),
            accum_axis=accum)

    def __call__(self, source: Tensor, axis: Dim, *, state: Optional[CausalSelfAttentionState] = None
                 ) -> Tuple[Tensor, CausalSelfAttentionState]:
        """:return: (output with ``in_dim`` replaced by ``out_dim``, the new state)"""
        q, k, v = self.forward_qkv(source)
        k, v, hist_dim, new_state, q_offset = _accumulate(k, v, axis, state)
        q, k = self._transform_qk(q, k, axis=axis, hist_dim=hist_dim, q_offset=q_offset)
        bias = _causal_bias(axis, hist_dim, q_offset, source.dtype, new_state)
        out = self.attention(q, k, v, kv_axis=hist_dim, bias=bias)
        return self._project(out), new_state

    def _transform_qk(self, q: Tensor, k: Tensor, *, axis: Dim, hist_dim: Dim, q_offset: Any) -> Tuple[Tensor, Tensor]:
        return q, k


def _causal_bias(axis: Dim, hist_dim: Dim, q_offset: Any, dtype: str, state: State) -> Optional[Tensor]:
    """:return: -inf for the keys after the query (a single step: the unwritten buffer positions, else none)"""
    from returnn.frontend.dims import range_over_dim
    from returnn.frontend.math_ import compare_bc
    if axis == single_step_dim:
        if "pos" not in state:
            return None
        return _where_scalar(compare_bc(range_over_dim(hist_dim), "less_equal", q_offset), dtype)
    mask = causal_mask(axis, hist_dim, query_offset=q_offset)
    return _where_scalar(mask, dtype)


def _where_scalar(mask: Tensor, dtype: str) -> Tensor:
    from returnn.frontend.array_ import where
    from returnn.frontend.const import full
    zeros = full(dims=list(mask.dims), fill_value=0.0, dtype=dtype)
    return where(mask, zeros, float("-inf"))


def _accumulate(k: Tensor, v: Tensor, axis: Dim, state: Optional[CausalSelfAttentionState]
                ) -> Tuple[Tensor, Tensor, Dim, CausalSelfAttentionState, Any]:
    """:return: (keys, values over the history dim, the history dim, the new state, the query offset)"""
    from returnn.frontend.array_ import concat, expand_dim
    from returnn.frontend.dims import replace_dim
    if axis == single_step_dim:
        if state is None:
            raise FrontendError("CausalSelfAttention", "a single step (axis=single_step_dim) needs state")
        if "pos" in state:
            return _write_at(k, v, state)
        step_dim = Dim(1, name="single_step")
        k, v = expand_dim(k, step_dim), expand_dim(v, step_dim)
        prev = state.accum_axis
        hist_dim = _hist_dim(prev, step_dim)
        k, _ = concat((state.k_accum, prev), (k, step_dim), out_dim=hist_dim)
        v, _ = concat((state.v_accum, prev), (v, step_dim), out_dim=hist_dim)
        new_state = CausalSelfAttentionState(k_accum=k, v_accum=v, accum_axis=hist_dim)
        return k, v, hist_dim, new_state, _scalar_tensor(_utils.dim_value(prev)) if prev.dimension is None else \
            prev.dimension
    if state is not None and "pos" in state:
        raise FrontendError("CausalSelfAttention", "a state with a capacity is for single steps "
                                                   "(axis=single_step_dim)", got=axis)
    prev = state.accum_axis if state is not None else None
    if prev is None or prev.dimension == 0:
        hist_dim = _kv_dim_like(axis)
        k, _ = replace_dim(k, in_dim=axis, out_dim=hist_dim)
        v, _ = replace_dim(v, in_dim=axis, out_dim=hist_dim)
        new_state = CausalSelfAttentionState(k_accum=k, v_accum=v, accum_axis=hist_dim)
        return k, v, hist_dim, new_state, 0
    hist_dim = _hist_dim(prev, axis)
    k, _ = concat((state.k_accum, prev), (k, axis), out_dim=hist_dim)
    v, _ = concat((state.v_accum, prev), (v, axis), out_dim=hist_dim)
    new_state = CausalSelfAttentionState(k_accum=k, v_accum=v, accum_axis=hist_dim)
    return k, v, hist_dim, new_state, _scalar_tensor(_utils.dim_value(prev))


def _write_at(k: Tensor, v: Tensor, state: State) -> Tuple[Tensor, Tensor, Dim, CausalSelfAttentionState, Any]:
    """A single step into the fixed buffers: writes ``k``, ``v`` at ``state.pos``."""
    from returnn.frontend.array_ import where
    from returnn.frontend.dims import range_over_dim
    from returnn.frontend.math_ import compare_bc
    cap, pos = state.accum_axis, state.pos
    at = compare_bc(range_over_dim(cap), "equal", pos)
    k_new = where(at, k, state.k_accum, allow_broadcast_all_sources=True, dim_order=state.k_accum.dims)
    v_new = where(at, v, state.v_accum, allow_broadcast_all_sources=True, dim_order=state.v_accum.dims)
    new_state = CausalSelfAttentionState(k_accum=k_new, v_accum=v_new, accum_axis=cap)
    new_state["pos"] = pos + 1
    return k_new, v_new, cap, new_state, pos


def _scalar_tensor(value: Any) -> Any:
    if isinstance(value, int):
        return value
    return Tensor("offset", dims=(), dtype="int32", raw_tensor=value)


def _hist_dim(prev: Dim, new: Dim) -> Dim:
    if prev.dimension is not None and new.dimension is not None:
        return Dim(prev.dimension + new.dimension, name=f"{prev.name}+{new.dimension}")
    from returnn.frontend._backend import get_selected_backend
    backend = get_selected_backend()
    a, b = _utils.dim_value(prev, backend), _utils.dim_value(new, backend)
    out = Dim(None, name=f"{prev.name}+{new.name}")
    if new.dimension is None and new.dyn_size_ext is not None and new.dyn_size_ext.dims:
        out.dyn_size_ext = new.dyn_size_ext + (a if isinstance(a, int) else _scalar_tensor(a))
    else:
        total = backend.combine(backend.convert(a, "int32"), "add", backend.convert(b, "int32"))
        out.dyn_size_ext = Tensor("accum_size", dims=(), dtype="int32", raw_tensor=total)
    return out


class RotaryPosSelfAttention(SelfAttentionBase):
    """Self-attention with rotary position embeddings (RoPE, Su et al.) applied to queries and keys per head
    (frequencies ``1e4 ** (-2j / key_dim_per_head)``)."""

    def __call__(self, source: Tensor, *, axis: Dim) -> Tensor:
        """:return: ``source``'s dims with ``in_dim`` replaced by ``out_dim``"""
        from returnn.frontend.dims import range_over_dim, replace_dim
        _utils.check_dims(type(self).__name__, source, [axis])
        q, k, v = self.forward_qkv(source)
        pe = _rope_encoding(range_over_dim(axis), self.key_dim_per_head, q.dtype)
        q, k = _apply_rope(q, pe, self.key_dim_per_head), _apply_rope(k, pe, self.key_dim_per_head)
        kv_axis = _kv_dim_like(axis)
        k, _ = replace_dim(k, in_dim=axis, out_dim=kv_axis)
        v, _ = replace_dim(v, in_dim=axis, out_dim=kv_axis)
        return self._project(self.attention(q, k, v, kv_axis=kv_axis))


def _rope_encoding(positions: Tensor, feat_dim: Dim, dtype: str) -> Tensor:
    """:return: ``[positions.dims..., feat_dim]``: ``sin`` then ``cos`` of ``position * 1e4 ** (-2j / n)``"""
    from returnn.frontend.positional_encoding import _check_even_feat, _rel_inv_freq, _sin_cos
    n = _check_even_feat("RotaryPosSelfAttention", feat_dim)
    return _sin_cos(positions, feat_dim, _rel_inv_freq(n), dtype)


class RotaryPosCausalSelfAttention(CausalSelfAttention):
    """:class:`CausalSelfAttention` with rotary position embeddings on queries and keys; the state holds the keys
    before rotation (rotated by their positions at each call)."""

    def _transform_qk(self, q: Tensor, k: Tensor, *, axis: Dim, hist_dim: Dim, q_offset: Any) -> Tuple[Tensor, Tensor]:
        from returnn.frontend.dims import range_over_dim
        if axis == single_step_dim:
            q_pos = q_offset
            if isinstance(q_pos, int):
                q_pos = _utils.to_tensor("RotaryPosCausalSelfAttention", q_pos, dtype="int32")
        else:
            q_pos = range_over_dim(axis)
            if not (isinstance(q_offset, int) and q_offset == 0):
                q_pos = q_pos + q_offset
        q = _apply_rope(q, _rope_encoding(q_pos, self.key_dim_per_head, q.dtype), self.key_dim_per_head)
        k = _apply_rope(k, _rope_encoding(range_over_dim(hist_dim), self.key_dim_per_head, k.dtype),
                        self.key_dim_per_head)
        return q, k


def _apply_rope(x: Tensor, pos_enc: Tensor, feat_dim: Dim) -> Tensor:
    """Rotary embedding: the pairs of channels ``(2j, 2j+1)`` of ``feat_dim`` are rotated by the angle of
    frequency ``j`` of ``pos_enc`` (a sinusoidal encoding ``[..., feat_dim]``: ``sin`` first half, ``cos`` second).

    :return: ``x`` rotated, dims: ``feat_dim`` first, then ``x``'s others (as the reference)
    """
    from returnn.frontend.array_ import concat, split, split_dims
    from returnn.frontend.array_ import merge_dims
    n = feat_dim.dimension
    half = Dim(n // 2, name=f"{feat_dim.name}:rope-half")
    pair = Dim(2, name="rope-pair")
    sin_, cos_ = split(pos_enc, axis=feat_dim, out_dims=[half, half])
    x_pairs = split_dims(x, axis=feat_dim, dims=(half, pair))
    one = Dim(1, name="rope-one")
    x0, x1 = split(x_pairs, axis=pair, out_dims=[one, one])
    y0 = x0 * cos_ - x1 * sin_
    y1 = x0 * sin_ + x1 * cos_
    y, _ = concat((y0, one), (y1, one), out_dim=pair)
    y, _ = merge_dims(y, dims=(half, pair), out_dim=feat_dim)
    dims = [feat_dim] + [d for d in y.dims if d != feat_dim]
    return _utils.make_tensor("rope", dims, y.dtype, _utils.aligned_raw(y, dims))


class RelPosSelfAttention(SelfAttentionBase):
    """Self-attention with relative positional encodings as in Transformer-XL / Conformer: the energy of query
    ``i`` and key ``j`` is ``((q_i + pos_bias_u) · k_j + (q_i + pos_bias_v) · p_{j-i}) / sqrt(key_dim_per_head)``
    where ``p`` is ``linear_pos`` (no bias) of the relative positional encoding
    (:func:`relative_positional_encoding` or a :class:`LearnedRelativePositionalEncoding`).

    :param with_linear_pos: apply ``linear_pos`` (``in_dim → key_dim_total``, or ``key_dim_per_head`` if
        not ``separate_pos_emb_per_head``); without it the encodings' feature dim (``pos_emb_feat_dim``) is
        ``key_dim_total``, or ``key_dim_per_head`` if not ``separate_pos_emb_per_head``
    :param with_pos_bias: the parameters ``pos_bias_u``, ``pos_bias_v``
    :param learnable_pos_emb: learned (clipped at ``learnable_pos_emb_clipping``) instead of sinusoidal encodings
    :param pos_emb_dropout: dropout on the encodings in training
    """

    _causal = False

    def __init__(self, in_dim: Dim, proj_dim: Optional[Dim], *, key_dim_total: Dim, value_dim_total: Dim,
                 num_heads: Union[int, Dim], with_bias: bool = True, with_linear_pos: bool = True,
                 with_pos_bias: bool = True, learnable_pos_emb: bool = False, learnable_pos_emb_clipping: int = 16,
                 separate_pos_emb_per_head: bool = True, pos_emb_dropout: float = 0.0, att_dropout: float = 0.1,
                 att_dropout_broadcast: Optional[bool] = None):
        from returnn.frontend import init as _init
        from returnn.frontend.parameter import Parameter
        super().__init__(in_dim, proj_dim, key_dim_total=key_dim_total, value_dim_total=value_dim_total,
                         num_heads=num_heads, with_bias=with_bias, att_dropout=att_dropout,
                         att_dropout_broadcast=att_dropout_broadcast)
        self.separate_pos_emb_per_head = separate_pos_emb_per_head
        # the encodings' feature dim (the reference's, observed): in_dim when linear_pos projects them, else already
        # the keys' dim (key_dim_total, or key_dim_per_head when shared by the heads)
        if with_linear_pos:
            self.pos_emb_feat_dim = in_dim
        else:
            self.pos_emb_feat_dim = key_dim_total if separate_pos_emb_per_head else self.key_dim_per_head
        if with_linear_pos:
            self.linear_pos = Linear(in_dim, key_dim_total if separate_pos_emb_per_head else self.key_dim_per_head,
                                     with_bias=False)
        else:
            self.linear_pos = None
        self.learned_pos_emb = LearnedRelativePositionalEncoding(
            self.pos_emb_feat_dim, clipping=learnable_pos_emb_clipping,
            causal=self._causal) if learnable_pos_emb else None
        self.pos_emb_dropout = pos_emb_dropout
        if with_pos_bias:
            self.pos_bias_u = Parameter((self.num_heads, self.key_dim_per_head), initial=_init.Glorot())
            self.pos_bias_v = Parameter((self.num_heads, self.key_dim_per_head), initial=_init.Glorot())
        else:
            self.pos_bias_u = self.pos_bias_v = None

    def _pos_emb(self, hist_dim: Dim, query_dim: Dim) -> Tuple[Tensor, Dim, Any]:
        """:return: (``[rel_dim, num_heads?, key_dim_per_head]`` encodings, rel_dim, first relative position)"""
        from returnn.frontend.array_ import split_dims
        from returnn.frontend.dropout import dropout
        if self.learned_pos_emb is not None:
            pe, rel_dim = self.learned_pos_emb(query_spatial_dim=query_dim, key_value_spatial_dim=hist_dim)
        else:
            pe, rel_dim = relative_positional_encoding(key_value_spatial_dim=hist_dim, query_spatial_dim=query_dim,
                                                       feat_dim=self.pos_emb_feat_dim)
        _, first = rel_pos_dim(hist_dim, query_dim)
        if self.pos_emb_dropout:
            pe = dropout(pe, self.pos_emb_dropout)
        if self.linear_pos is not None:
            pe = self.linear_pos(pe)
        if self.separate_pos_emb_per_head:
            pe = split_dims(pe, axis=self.key_dim_total, dims=(self.num_heads, self.key_dim_per_head))
        return pe, rel_dim, first

    def _rel_energy(self, q: Tensor, k: Tensor, *, query_dim: Dim, hist_dim: Dim, q_offset: Any) -> Tensor:
        """:return: the scaled energies ``[..., query, hist]`` (query_dim: ``single_step_dim`` for one query at the
        last history position; else the queries are at ``q_offset + 0, 1, ...``)"""
        from returnn.frontend.array_ import gather
        from returnn.frontend.dims import range_over_dim
        from returnn.frontend.matmul import matmul
        q_u = q + self.pos_bias_u if self.pos_bias_u is not None else q
        q_v = q + self.pos_bias_v if self.pos_bias_v is not None else q
        ac = matmul(q_u, k, reduce=self.key_dim_per_head)
        no_offset = isinstance(q_offset, int) and q_offset == 0
        # with an offset, the relative positions -(Tk-1) .. Tq-1 (Tq <= Tk) are within those of (hist, hist)
        pe, rel_dim, first = self._pos_emb(hist_dim, query_dim if no_offset else hist_dim)
        bd_full = matmul(q_v, pe, reduce=self.key_dim_per_head)  # [..., query?, rel_dim]
        k_pos = range_over_dim(hist_dim)
        if query_dim == single_step_dim:
            idx = k_pos - q_offset - first
        else:
            q_pos = range_over_dim(query_dim)
            if not no_offset:
                q_pos = q_pos + q_offset
            from returnn.frontend.math_ import combine_bc
            idx = combine_bc(k_pos, "sub", q_pos, dim_order=[query_dim, hist_dim]) - first
        bd = gather(bd_full, indices=_as_sparse(idx, rel_dim), axis=rel_dim)
        return (ac + bd) * (self.key_dim_per_head.dimension ** -0.5)

    def __call__(self, source: Tensor, *, axis: Dim) -> Tensor:
        """:return: ``source``'s dims with ``in_dim`` replaced by ``out_dim``"""
        from returnn.frontend.dims import replace_dim
        _utils.check_dims(type(self).__name__, source, [axis])
        if self.learned_pos_emb is None and _utils.backend_of(source).name != "numpy":
            return self._project(self._heads_first_attention(source, axis))
        q, k, v = self.forward_qkv(source)
        kv_axis = _kv_dim_like(axis)
        k, _ = replace_dim(k, in_dim=axis, out_dim=kv_axis)
        v, _ = replace_dim(v, in_dim=axis, out_dim=kv_axis)
        energy = self._rel_energy(q, k, query_dim=axis, hist_dim=kv_axis, q_offset=0)
        return self._project(self._attend(energy, v, kv_axis))

    @staticmethod
    def _rel_shift(x: Tensor, axis: Dim, pos_emb_spatial_dim: Dim, hist_dim: Dim) -> Tensor:
        """:return: ``x`` (with the query dim ``axis`` and the relative positions ``pos_emb_spatial_dim``) shifted
        to ``[..., axis, hist_dim]``: entry ``(i, j)`` is ``x[i, j + (Tq - 1) - i]``, as the reference's (observed;
        zeyer's chunked self-attention calls it with a longer ``hist_dim``)"""
        from returnn.frontend._att_layout import rel_shift
        return rel_shift(x, query_dim=axis, rel_dim=pos_emb_spatial_dim, key_dim=hist_dim)

    def _heads_first_attention(self, source: Tensor, axis: Dim) -> Tensor:
        """The same as the general path (``forward_qkv``, ``_rel_energy``, ``_attend``), computed with the heads
        before the positions (``[..., heads, query, key]``: batched products without transposes) and the
        relative-position term shifted into place by reshapes (:func:`~returnn.frontend._att_layout.rel_shift`)
        instead of a gather. :return: the merged heads, in the general path's dims order"""
        from returnn.frontend._att_layout import permuted, rel_shift
        from returnn.frontend.array_ import merge_dims, split, split_dims
        from returnn.frontend.dims import replace_dim
        from returnn.frontend.matmul import matmul
        _utils.check_dims(type(self).__name__, source, [self.in_dim])
        qkv = split_dims(self.qkv(source), axis=self.qkv_dim_total, dims=(self.num_heads, self.qkv_dim_per_head))
        out_order = [self.value_dim_per_head if d == self.qkv_dim_per_head else d for d in qkv.dims]
        lead = [d for d in qkv.dims if d not in (self.num_heads, axis, self.qkv_dim_per_head)]
        qkv = permuted(qkv, lead + [self.num_heads, axis, self.qkv_dim_per_head])
        q, k, v = split(qkv, axis=self.qkv_dim_per_head,
                        out_dims=(self.key_dim_per_head, self.key_dim_per_head, self.value_dim_per_head))
        kv_axis = _kv_dim_like(axis)
        k, _ = replace_dim(k, in_dim=axis, out_dim=kv_axis)
        v, _ = replace_dim(v, in_dim=axis, out_dim=kv_axis)
        q_u = q + self.pos_bias_u if self.pos_bias_u is not None else q
        q_v = q + self.pos_bias_v if self.pos_bias_v is not None else q
        ac = matmul(q_u, k, reduce=self.key_dim_per_head)  # [..., heads, query, key]
        pe, rel_dim, _ = self._pos_emb(kv_axis, axis)  # [rel_dim, heads?, key_dim_per_head]
        bd = rel_shift(matmul(q_v, pe, reduce=self.key_dim_per_head), query_dim=axis, rel_dim=rel_dim,
                       key_dim=kv_axis)
        energy = (ac + permuted(bd, ac.dims)) * (self.key_dim_per_head.dimension ** -0.5)
        if kv_axis.need_masking():  # -inf added at the padded keys: the gradient passes unchanged (a select, as
            # rf.softmax masks, needs a zeros tensor and a select in the gradient); the energies here are finite
            from returnn.frontend.dims import sequence_mask
            from returnn.frontend.math_ import combine_bc
            energy = combine_bc(energy, "add", _where_scalar(sequence_mask([kv_axis]), energy.dtype),
                                dim_order=energy.dims)
        out = self._attend_heads(energy, v, kv_axis, use_mask=False)  # [..., heads, query, value_dim_per_head]
        out, _ = merge_dims(permuted(out, out_order), dims=(self.num_heads, self.value_dim_per_head),
                            out_dim=self.value_dim_total)
        return out

    def _attend_heads(self, energy: Tensor, v: Tensor, kv_axis: Dim, *, use_mask: bool = True) -> Tensor:
        from returnn.frontend.math_ import softmax
        from returnn.frontend.matmul import matmul
        w = softmax(energy, axis=kv_axis, use_mask=use_mask)
        w = _dropout(w, self.att_dropout, self.att_dropout_broadcast, kv_axis)
        return matmul(w, v, reduce=kv_axis)

    def _attend(self, energy: Tensor, v: Tensor, kv_axis: Dim, bias: Optional[Tensor] = None) -> Tensor:
        from returnn.frontend.array_ import merge_dims
        if bias is not None:
            energy = energy + bias
        out = self._attend_heads(energy, v, kv_axis)
        out, _ = merge_dims(out, dims=(self.num_heads, self.value_dim_per_head), out_dim=self.value_dim_total)
        return out


def _as_sparse(idx: Tensor, dim: Dim) -> Tensor:
    from returnn.frontend.dims import set_sparse_dim
    return set_sparse_dim(idx, dim)


class RelPosCausalSelfAttention(RelPosSelfAttention):
    """:class:`RelPosSelfAttention` restricted to the current and earlier positions, with a state as
    :class:`CausalSelfAttention`."""

    _causal = True
    default_initial_state = CausalSelfAttention.default_initial_state

    def __call__(self, source: Tensor, axis: Dim, *, state: Optional[CausalSelfAttentionState] = None
                 ) -> Tuple[Tensor, CausalSelfAttentionState]:
        """:return: (output, new state)"""
        q, k, v = self.forward_qkv(source)
        k, v, hist_dim, new_state, q_offset = _accumulate(k, v, axis, state)
        energy = self._rel_energy(q, k, query_dim=axis, hist_dim=hist_dim, q_offset=q_offset)
        bias = _causal_bias(axis, hist_dim, q_offset, source.dtype, new_state)
        return self._project(self._attend(energy, v, hist_dim, bias=bias)), new_state


class CrossAttention(Module):
    """Multi-head attention of queries (``query_in_dim``) on an encoder output (``encoder_dim``): ``kv``
    (``encoder_dim → key_dim_total + value_dim_total``, heads major), ``q`` (``query_in_dim → key_dim_total``),
    ``proj`` (``value_dim_total → proj_dim``)."""

    def __init__(self, encoder_dim: Dim, query_in_dim: Dim, proj_dim: Optional[Dim], *, key_dim_total: Dim,
                 value_dim_total: Dim, num_heads: Union[int, Dim], with_bias: bool = True, att_dropout: float = 0.1,
                 att_dropout_broadcast: Optional[bool] = None):
        super().__init__()
        nh = num_heads.dimension if isinstance(num_heads, Dim) else num_heads
        if not isinstance(nh, int) or nh <= 0 or key_dim_total.dimension % nh or value_dim_total.dimension % nh:
            raise FrontendError("CrossAttention", f"key_dim_total ({key_dim_total.dimension}) and value_dim_total "
                                                  f"({value_dim_total.dimension}) must be divisible by num_heads "
                                                  f"({nh})")
        self.encoder_dim = encoder_dim
        self.query_in_dim = query_in_dim
        self.out_dim = proj_dim if proj_dim is not None else value_dim_total
        self.key_dim_total = key_dim_total
        self.key_dim_per_head = Dim(key_dim_total.dimension // nh, name=f"{key_dim_total.name} /l num_heads")
        self.value_dim_total = value_dim_total
        self.value_dim_per_head = Dim(value_dim_total.dimension // nh, name=f"{value_dim_total.name} /l num_heads")
        self.num_heads = num_heads if isinstance(num_heads, Dim) else Dim(nh, name="num_heads")
        self.kv_dim_total = Dim(key_dim_total.dimension + value_dim_total.dimension,
                                name=f"{key_dim_total.name}+{value_dim_total.name}")
        self.kv_dim_per_head = Dim(self.key_dim_per_head.dimension + self.value_dim_per_head.dimension,
                                   name="kv_per_head")
        self.kv = Linear(encoder_dim, self.kv_dim_total, with_bias=with_bias)
        self.q = Linear(query_in_dim, key_dim_total, with_bias=with_bias)
        self.proj = Linear(value_dim_total, proj_dim, with_bias=with_bias) if proj_dim is not None else None
        self.att_dropout = att_dropout
        self.att_dropout_broadcast = True if att_dropout_broadcast is None else att_dropout_broadcast

    def transform_encoder(self, encoder: Tensor, *, axis: Dim) -> State:
        """:return: ``State(k=..., v=..., kv_axis=axis)`` (per head), to pass to ``__call__`` (once per sequence)"""
        from returnn.frontend.array_ import split, split_dims
        _utils.check_dims("CrossAttention", encoder, [self.encoder_dim, axis])
        kv = self.kv(encoder)
        kv = split_dims(kv, axis=self.kv_dim_total, dims=(self.num_heads, self.kv_dim_per_head))
        k, v = split(kv, axis=self.kv_dim_per_head, out_dims=(self.key_dim_per_head, self.value_dim_per_head))
        return State(k=k, v=v, kv_axis=axis)

    def __call__(self, q: Tensor, encoder: State) -> Tensor:
        """:return: ``q``'s dims with ``query_in_dim`` replaced by ``out_dim``"""
        from returnn.frontend.array_ import merge_dims, split_dims
        _utils.check_dims("CrossAttention", q, [self.query_in_dim])
        q = self.q(q)
        q = split_dims(q, axis=self.key_dim_total, dims=(self.num_heads, self.key_dim_per_head))
        out = dot_attention(q, encoder.k, encoder.v, key_dim=self.key_dim_per_head, axis=encoder.kv_axis,
                            att_dropout=self.att_dropout, att_dropout_broadcast=self.att_dropout_broadcast)
        out, _ = merge_dims(out, dims=(self.num_heads, self.value_dim_per_head), out_dim=self.value_dim_total)
        return self.proj(out) if self.proj is not None else out

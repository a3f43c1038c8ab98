"""Positional encodings: ``rf.sinusoidal_positional_encoding``, ``rf.relative_positional_encoding``,
``rf.LearnedRelativePositionalEncoding``, and the rotary embedding ``_apply_rope`` (re-exported by
``returnn.frontend.attention``).

Sinusoidal (absolute): for position ``p`` and ``n = feat_dim``, the first ``n/2`` channels are ``sin(p * w_i)``, the
last ``n/2`` ``cos(p * w_i)`` with ``w_i = base ** (-i / (n/2 - 1))`` (as the reference's TF helper).
Relative: for the positions ``-(Tq-1) .. Tk-1`` (key position minus query position), ``sin``/``cos`` halves with
``w_i = base ** (-2i / n)``.
"""

from __future__ import annotations

import math
from typing import Any, Optional, Tuple, Union

from returnn.errors import FrontendError
from returnn.frontend import _utils
from returnn.frontend.module import Module
from returnn.frontend.parameter import Parameter
from returnn.tensor import Dim, Tensor

__all__ = ["sinusoidal_positional_encoding", "relative_positional_encoding", "LearnedRelativePositionalEncoding"]


def _check_even_feat(call: str, feat_dim: Dim) -> int:
    if not isinstance(feat_dim, Dim) or feat_dim.dimension is None or feat_dim.dimension % 2:
        raise FrontendError(call, f"feat_dim must be a static Dim of even size, got {feat_dim!r}")
    return feat_dim.dimension


def _sin_cos(positions: Tensor, feat_dim: Dim, inv_freq: list, dtype: str) -> Tensor:
    """:return: ``[positions.dims..., feat_dim]``: ``sin(p * w)`` then ``cos(p * w)``"""
    from returnn.frontend.array_ import concat
    from returnn.frontend.const import convert_to_tensor
    from returnn.frontend.math_ import cast, combine_bc, cos, sin
    import numpy
    half = Dim(len(inv_freq), name=f"{feat_dim.name}:half")
    freq = convert_to_tensor(numpy.asarray(inv_freq, dtype=dtype), dims=[half], dtype=dtype)
    angles = combine_bc(cast(positions, dtype), "mul", freq)
    out, _ = concat((sin(angles), half), (cos(angles), half), out_dim=feat_dim)
    return out


def sinusoidal_positional_encoding(*, spatial_dim: Dim, feat_dim: Dim, offset: Optional[Union[int, Tensor]] = None,
                                   base: Union[int, float] = 1e4, dtype: Optional[str] = None,
                                   device: Optional[str] = None) -> Tensor:
    """Absolute sinusoidal encoding (Vaswani et al.).

    :param spatial_dim: the positions ``0 .. size-1`` (plus ``offset``); ``single_step_dim``: the single position
        ``offset`` (result without a spatial dim)
    :param feat_dim: even static size ``n``
    :param offset: added to the positions (an int or an int Tensor, e.g. ``[batch]``)
    :param base: the maximal timescale (default 1e4)
    :return: ``[spatial_dim, feat_dim]`` (plus the dims of ``offset``), float32 by default
    """
    from returnn.frontend.dims import range_over_dim
    from returnn.frontend.dtype import get_default_float_dtype
    from returnn.tensor import single_step_dim
    n = _check_even_feat("sinusoidal_positional_encoding", feat_dim)
    dtype = dtype or get_default_float_dtype()
    half = n // 2
    inc = math.log(float(base)) / max(half - 1, 1)
    inv_freq = [math.exp(-i * inc) for i in range(half)]
    if spatial_dim == single_step_dim:
        positions = _utils.to_tensor("sinusoidal_positional_encoding", 0 if offset is None else offset,
                                     dtype="int32") if not isinstance(offset, Tensor) else offset
    else:
        positions = range_over_dim(spatial_dim)
        if offset is not None:
            positions = positions + offset
    return _sin_cos(positions, feat_dim, inv_freq, dtype)


def _rel_inv_freq(n: int, base: float = 1e4) -> list:
    return [math.exp(-(2 * i) * math.log(base) / n) for i in range(n // 2)]


def relative_positional_encoding(*, key_value_spatial_dim: Dim, query_spatial_dim: Optional[Dim] = None,
                                 feat_dim: Dim, query_offset: Optional[Union[int, Tensor]] = None,
                                 dtype: Optional[str] = None, device: Optional[str] = None
                                 ) -> Tuple[Tensor, Dim]:
    """Sinusoidal encodings of the relative positions ``key - query``, from ``-(Tq-1)`` (plus ``query_offset``
    negated) to ``Tk-1``, as in Transformer-XL/Conformer (Dai et al., 2019).

    :param query_spatial_dim: default: ``key_value_spatial_dim``; ``single_step_dim``: one query at ``Tk - 1``
    :param query_offset: the position of the first query (the relative positions are ``key - (query +
        query_offset)``; observed in the reference)
    :return: (``[rel_dim, feat_dim]``, ``rel_dim``) where ``rel_dim`` has size ``Tq + Tk - 1``; entry ``r`` is
        relative position ``r - (Tq - 1) - query_offset``
    """
    from returnn.frontend.dims import range_over_dim
    from returnn.frontend.dtype import get_default_float_dtype
    n = _check_even_feat("relative_positional_encoding", feat_dim)
    dtype = dtype or get_default_float_dtype()
    rel_dim, first = rel_pos_dim(key_value_spatial_dim, query_spatial_dim)
    positions = range_over_dim(rel_dim) + first
    if query_offset is not None and not (isinstance(query_offset, int) and query_offset == 0):
        positions = positions - query_offset
    return _sin_cos(positions, feat_dim, _rel_inv_freq(n), dtype), rel_dim


def rel_pos_dim(kv_dim: Dim, query_dim: Optional[Dim]) -> Tuple[Dim, Any]:
    """:return: (a dim of size ``Tq + Tk - 1`` (single step: ``Tk``), the first relative position (an int or raw
    scalar: ``-(Tq-1)``))"""
    from returnn.frontend._backend import get_selected_backend
    from returnn.tensor import single_step_dim
    backend = get_selected_backend()
    tk = _utils.dim_value(kv_dim, backend)
    if query_dim is None:
        query_dim = kv_dim
    if query_dim == single_step_dim:
        tq = 1
        first = -(tk - 1) if isinstance(tk, int) else _scalar(backend.combine(backend.convert(1, "int32"), "sub",
                                                                              backend.cast(tk, "int32")))
        size = tk
    else:
        tq = _utils.dim_value(query_dim, backend)
        first = -(tq - 1) if isinstance(tq, int) else _scalar(backend.combine(backend.convert(1, "int32"), "sub",
                                                                              backend.cast(tq, "int32")))
        size = tq + tk - 1 if isinstance(tq, int) and isinstance(tk, int) else None
        if size is None:
            size = backend.combine(backend.combine(backend.cast(backend.convert(tq, "int32"), "int32"), "add",
                                                   backend.cast(backend.convert(tk, "int32"), "int32")), "sub",
                                   backend.convert(1, "int32"))
    if isinstance(size, int):
        name = f"2*{kv_dim.name}-1" if query_dim == kv_dim else f"{query_dim.name}+{kv_dim.name}-1"
        return Dim(size, name=name), first
    out = Dim(None, name=f"{query_dim.name}+{kv_dim.name}-1" if query_dim != kv_dim else f"2*{kv_dim.name}-1")
    out.dyn_size_ext = Tensor("rel_pos_size", dims=(), dtype="int32", raw_tensor=size)
    return out, first


def _scalar(raw: Any) -> Tensor:
    return Tensor("scalar", dims=(), dtype="int32", raw_tensor=raw)


class LearnedRelativePositionalEncoding(Module):
    """Learned embeddings of the relative positions ``key - query``, clipped to ``[-clipping, clipping]``
    (``causal``: ``[-clipping, 0]``); parameter ``pos_emb`` ``[2*clipping+1 (causal: clipping+1), feat_dim]``
    (Glorot)."""

    def __init__(self, feat_dim: Dim, *, clipping: int = 16, dtype: Optional[str] = None, causal: bool = False):
        super().__init__()
        from returnn.frontend import init as _init
        from returnn.frontend.dtype import get_default_float_dtype
        self.feat_dim = feat_dim
        self.clipping = clipping
        self.clipped_spatial_dim = Dim((clipping + 1) if causal else (2 * clipping + 1), name="learned-rel-pos")
        self.causal = causal
        self.pos_emb = Parameter((self.clipped_spatial_dim, feat_dim), dtype=dtype or get_default_float_dtype(),
                                 initial=_init.Glorot())

    def __call__(self, spatial_dim: Optional[Dim] = None, *, query_spatial_dim: Optional[Dim] = None,
                 key_value_spatial_dim: Optional[Dim] = None, query_offset: Any = None) -> Tuple[Tensor, Dim]:
        """:return: (``[rel_dim, feat_dim]``, ``rel_dim``) for the relative positions ``-(Tq-1) .. Tk-1`` (minus
        ``query_offset``) as :func:`relative_positional_encoding`, each clipped to the learned range (observed)"""
        from returnn.frontend.array_ import gather
        from returnn.frontend.dims import range_over_dim
        from returnn.frontend.math_ import clip_by_value
        kv = key_value_spatial_dim or spatial_dim
        if kv is None:
            raise FrontendError("LearnedRelativePositionalEncoding", "needs key_value_spatial_dim (or spatial_dim)")
        rel_dim, first = rel_pos_dim(kv, query_spatial_dim or kv)
        positions = range_over_dim(rel_dim) + first
        if query_offset is not None and not (isinstance(query_offset, int) and query_offset == 0):
            positions = positions - query_offset
        positions = clip_by_value(positions, -self.clipping, 0 if self.causal else self.clipping) + self.clipping
        out = gather(self.pos_emb, indices=positions, axis=self.clipped_spatial_dim)
        return out, rel_dim

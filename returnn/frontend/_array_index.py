"""Indexing and masking ops (public under :mod:`returnn.frontend.array_`): ``rf.where``, ``rf.gather``,
``rf.scatter``, ``rf.pack_padded``/``rf.pad_packed``, ``rf.masked_select``/``rf.masked_scatter``,
``rf.sparse_to_dense``, ``rf.one_hot``."""

from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple, Union

from returnn.errors import FrontendError
from returnn.frontend import _utils
from returnn.tensor import Dim, Tensor


def where(cond: Union[Tensor, bool], true_: Any, false_: Any, *, allow_broadcast_all_sources: bool = False,
          dim_order: Optional[Sequence[Dim]] = None) -> Tensor:
    """:return: ``true_`` where ``cond`` else ``false_`` (scalars take the other branch's dtype); dims: the union
    (``true_``'s, ``false_``'s, ``cond``'s order unless ``dim_order``)"""
    if isinstance(cond, bool):
        if isinstance(true_, Tensor) or isinstance(false_, Tensor):
            return true_ if cond else false_
        raise FrontendError("where", "needs a Tensor among cond, true_, false_")
    if cond.dtype != "bool":
        raise FrontendError("where", f"cond must be bool, {cond.name!r} is {cond.dtype}")
    like = true_ if isinstance(true_, Tensor) else false_ if isinstance(false_, Tensor) else None
    dtype = like.dtype if like is not None else None
    if like is None:
        dtype = _utils.to_tensor("where", true_, like=None, backend=_utils.backend_of(cond)).dtype
    t = true_ if isinstance(true_, Tensor) else _utils.to_tensor("where", true_, dtype=dtype,
                                                                 backend=_utils.backend_of(cond))
    f = false_ if isinstance(false_, Tensor) else _utils.to_tensor("where", false_, dtype=dtype,
                                                                   backend=_utils.backend_of(cond))
    if t.dtype != f.dtype:
        raise FrontendError("where", f"both branches need the same dtype: {t.dtype} vs {f.dtype}")
    sources = [x for x in (t, f, cond) if x.dims]
    dims = _utils.out_dims_of("where", sources or [t], allow_broadcast_all_sources=True, dim_order=dim_order)
    if not allow_broadcast_all_sources and sources and not any(len(x.dims) == len(dims) for x in sources):
        raise FrontendError("where", "every source lacks some dim of the result; pass "
                                     "allow_broadcast_all_sources=True if that is intended",
                            got=", ".join(f"{x.name!r} {_utils.dims_repr(x.dims)}" for x in (cond, t, f)))
    backend = _utils.backend_of(cond, t, f)
    raws = [_utils.aligned_raw(x, dims, backend=backend) for x in (cond, t, f)]
    return _utils.make_tensor("where", dims, t.dtype, backend.where(*raws), sparse_dim=t.sparse_dim or f.sparse_dim,
                              feature_dim=t.feature_dim or f.feature_dim)


def gather(source: Tensor, *, indices: Union[Tensor, int], axis: Optional[Dim] = None,
           clip_to_valid: bool = False) -> Tensor:
    """Picks entries of ``axis`` (default: ``indices.sparse_dim``) by ``indices``.

    :return: dims: the dims shared by ``source`` and ``indices``, then ``indices``' other dims, then ``source``'s
        remaining dims (e.g. weights ``[vocab, F]`` by ``[B, T]`` → ``[B, T, F]``; ``[B, T, F]`` by ``[B]`` along T
        → ``[B, F]``)
    :raises FrontendError: ``axis`` not in ``source``, indices not int
    """
    if axis is None:
        if not isinstance(indices, Tensor) or indices.sparse_dim is None:
            raise FrontendError("gather", "needs axis= (the indices have no sparse dim)")
        axis = indices.sparse_dim
    _utils.check_dims("gather", source, [axis])
    backend = _utils.backend_of(source, indices if isinstance(indices, Tensor) else None)
    if not isinstance(indices, Tensor):
        indices = _utils.to_tensor("gather", indices, dtype="int32", backend=backend)
    if not indices.dtype.startswith(("int", "uint")):
        raise FrontendError("gather", f"indices must be int, {indices.name!r} is {indices.dtype}")
    if clip_to_valid:
        from returnn.frontend.math_ import clip_by_value
        indices = clip_by_value(indices, 0, _utils.dim_value(axis, backend) - 1)
    common = [d for d in source.dims if d in indices.dims and d != axis]
    idx_only = [d for d in indices.dims if d not in common]
    rest = [d for d in source.dims if d not in common and d != axis]
    raw = _utils.aligned_raw(source, common + [axis] + rest, backend=backend)
    idx = _utils.aligned_raw(indices, common + idx_only, backend=backend)
    out = backend.gather(raw, idx, len(common), len(common))
    return _utils.make_tensor("gather", common + idx_only + rest, source.dtype, out, sparse_dim=source.sparse_dim,
                              feature_dim=source.feature_dim if source.feature_dim != axis else None)


def scatter(source: Tensor, *, indices: Tensor, indices_dim: Union[Dim, Sequence[Dim]],
            mode: str = "sum", fill_value: Any = None, out_dim: Optional[Dim] = None) -> Tensor:
    """The inverse of :func:`gather`: ``source`` entries (over ``indices_dim``) go to position ``indices`` of
    ``out_dim`` (default ``indices.sparse_dim``); several to the same position combine by ``mode`` (sum, max, min);
    positions without entry get ``fill_value`` (default 0 for sum, else the mode's neutral value).

    :return: dims: ``source``'s with ``indices_dim`` replaced by ``out_dim`` (first among them)
    """
    idx_dims = _utils.as_dims(indices_dim)
    out_dim = out_dim or indices.sparse_dim
    if out_dim is None:
        raise FrontendError("scatter", "needs out_dim= (the indices have no sparse dim)")
    _utils.check_dims("scatter", source, idx_dims)
    _utils.check_dims("scatter", indices, idx_dims)
    if mode not in ("sum", "max", "min"):
        raise FrontendError("scatter", f"unknown mode {mode!r}", expected="sum, max, min")
    other_idx = [d for d in indices.dims if d not in idx_dims]
    rest = [d for d in source.dims if d not in idx_dims and d not in other_idx]
    backend = _utils.backend_of(source, indices)
    from returnn.frontend import array_ as _array
    flat_src, flat_dim = (source, idx_dims[0]) if len(idx_dims) == 1 else _array.merge_dims(source, dims=idx_dims)
    flat_idx, _ = (indices, None) if len(idx_dims) == 1 else _array.merge_dims(indices, dims=idx_dims, out_dim=flat_dim)
    if other_idx:
        return _scatter_batched(flat_src, flat_idx, flat_dim, other_idx, rest, out_dim, mode, fill_value)
    raw_src = _utils.aligned_raw(flat_src, [flat_dim] + rest, backend=backend)
    raw_idx = backend.expand_dims(_utils.aligned_raw(flat_idx, [flat_dim], backend=backend), 1)
    shape = [_utils.dim_value(out_dim, backend)] + [_utils.dim_value(d, backend) for d in rest]
    raw = backend.scatter_nd(raw_idx, raw_src, shape, mode)
    out = _utils.make_tensor("scatter", [out_dim] + rest, source.dtype, raw)
    return _scatter_fill(out, raw_idx, flat_dim, out_dim, mode, fill_value, backend)


def _scatter_batched(src: Tensor, idx: Tensor, flat_dim: Dim, batch: List[Dim], rest: List[Dim], out_dim: Dim,
                     mode: str, fill_value: Any) -> Tensor:
    """Scatter where the indices have dims besides the scattered ones (e.g. ``[B]``): merged into one index."""
    from returnn.frontend import array_ as _array
    from returnn.frontend.dims import range_over_merged_dims
    from returnn.frontend.math_ import combine_bc
    size = _utils.dim_value(out_dim)
    b_idx = range_over_merged_dims(batch)
    full_idx = combine_bc(combine_bc(b_idx, "mul", size), "add", idx)
    merged_out = Dim(None, name="scatter_merged") if not isinstance(size, int) or any(
        d.dimension is None for d in batch) else Dim(size * _prod(batch), name="scatter_merged")
    if merged_out.dimension is None:
        n = size
        for d in batch:
            n = n * _utils.dim_value(d)
        merged_out.dyn_size_ext = Tensor("n", dims=(), dtype="int32", raw_tensor=n)
    from returnn.frontend.dims import set_sparse_dim
    full_idx = set_sparse_dim(full_idx, merged_out)
    src_m, m_dim = _array.merge_dims(src, dims=batch + [flat_dim])
    idx_m, _ = _array.merge_dims(full_idx, dims=batch + [flat_dim], out_dim=m_dim)
    out = scatter(src_m, indices=idx_m, indices_dim=m_dim, mode=mode, fill_value=fill_value, out_dim=merged_out)
    return _array.split_dims(out, axis=merged_out, dims=batch + [out_dim])


def _prod(dims: Sequence[Dim]) -> int:
    n = 1
    for d in dims:
        n *= d.dimension
    return n


def _scatter_fill(out: Tensor, raw_idx: Any, flat_dim: Dim, out_dim: Dim, mode: str, fill_value: Any,
                  backend: Any) -> Tensor:
    if fill_value is None and mode == "sum":
        return out
    ones = backend.fill([_utils.dim_value(flat_dim, backend)], 1, "int32")
    count = backend.scatter_nd(raw_idx, ones, [_utils.dim_value(out_dim, backend)], "sum")
    hit = _utils.make_tensor("hit", [out_dim], "bool", backend.compare(count, "greater", backend.convert(0, "int32")))
    if fill_value is None:
        fill_value = 0
    return where(hit, out, fill_value, allow_broadcast_all_sources=True, dim_order=out.dims)


def masked_select(tensor: Tensor, *, mask: Tensor, dims: Sequence[Dim], out_dim: Optional[Dim] = None
                  ) -> Tuple[Tensor, Dim]:
    """The entries of ``tensor`` over ``dims`` where ``mask`` (bool, over some or all of ``dims``) is true, flattened
    row-major into ``out_dim`` (its size: the number of true entries).

    :return: (result ``[out_dim, other dims...]``, ``out_dim``)
    """
    dims = list(dims)
    _utils.check_dims("masked_select", tensor, dims)
    if mask.dtype != "bool":
        raise FrontendError("masked_select", f"the mask must be bool, {mask.name!r} is {mask.dtype}")
    backend = _utils.backend_of(tensor, mask)
    rest = [d for d in tensor.dims if d not in dims]
    raw_mask = _utils.aligned_raw(mask, dims, backend=backend, broadcast=True)
    raw = _utils.aligned_raw(tensor, dims + rest, backend=backend)
    out = backend.boolean_mask(raw, raw_mask)
    if out_dim is None:
        out_dim = Dim(None, name="masked_select")
        n = backend.reduce(backend.cast(raw_mask, "int32"), "sum", list(range(len(dims))))
        out_dim.dyn_size_ext = Tensor("masked_select_size", dims=(), dtype="int32", raw_tensor=n)
    return _utils.make_tensor("masked_select", [out_dim] + rest, tensor.dtype, out, sparse_dim=tensor.sparse_dim,
                              feature_dim=tensor.feature_dim), out_dim


def masked_scatter(source: Tensor, *, backup: Optional[Tensor] = None, mask: Tensor, dims: Sequence[Dim],
                   in_dim: Dim) -> Tensor:
    """The inverse of :func:`masked_select`: the entries of ``source`` (over ``in_dim``) go to the positions of
    ``dims`` where ``mask`` is true, in order; other positions get ``backup`` (default 0).

    :return: dims: ``dims``, then ``source``'s other dims
    """
    dims = list(dims)
    _utils.check_dims("masked_scatter", source, [in_dim])
    backend = _utils.backend_of(source, mask)
    rest = [d for d in source.dims if d != in_dim]
    raw_mask = _utils.aligned_raw(mask, dims, backend=backend, broadcast=True)
    positions = backend.where_indices(raw_mask)
    raw = _utils.aligned_raw(source, [in_dim] + rest, backend=backend)
    shape = backend.shape_of(raw_mask) + backend.shape_of(raw)[1:]  # the sizes as the tensors have them
    out = _utils.make_tensor("masked_scatter", dims + rest, source.dtype,
                             backend.scatter_nd(positions, raw, shape, "sum"), sparse_dim=source.sparse_dim,
                             feature_dim=source.feature_dim)
    if backup is not None:
        full_mask = _utils.make_tensor("mask", dims, "bool", raw_mask)
        out = where(full_mask, out, backup, allow_broadcast_all_sources=True, dim_order=out.dims)
    return out


def pack_padded(source: Tensor, *, dims: Sequence[Dim], enforce_sorted: bool = False,
                out_dim: Optional[Dim] = None) -> Tuple[Tensor, Dim]:
    """Packs the frames of ``dims`` (e.g. ``[batch_dim, time_dim]``) that are within the lengths into one dim
    (row-major), dropping the padding.

    :return: (result ``[out_dim, other dims...]``, ``out_dim``, whose size is the total number of frames)
    """
    from returnn.frontend.dims import sequence_mask
    _utils.check_dims("pack_padded", source, dims)
    mask = sequence_mask(list(dims))
    return masked_select(source, mask=mask, dims=dims, out_dim=out_dim)


def pad_packed(source: Tensor, *, in_dim: Dim, dims: Sequence[Dim]) -> Tensor:
    """The inverse of :func:`pack_padded`: ``[in_dim, ...]`` back to ``[dims..., ...]`` (padding: 0)."""
    from returnn.frontend.dims import sequence_mask
    return masked_scatter(source, mask=sequence_mask(list(dims)), dims=dims, in_dim=in_dim)


def sparse_to_dense(labels: Union[Tensor, int], *, label_value: Any = 1.0, other_value: Any = 0.0,
                    axis: Optional[Dim] = None, dtype: Optional[str] = None) -> Tensor:
    """:return: ``labels``' dims plus ``axis`` (default: the sparse dim): ``label_value`` at the label, else
    ``other_value``"""
    from returnn.frontend.dims import range_over_dim
    from returnn.frontend.math_ import compare_bc
    axis = axis or getattr(labels, "sparse_dim", None)
    if axis is None:
        raise FrontendError("sparse_to_dense", "needs axis= (the labels have no sparse dim)")
    hit = compare_bc(labels, "equal", range_over_dim(axis, dtype=labels.dtype if isinstance(labels, Tensor)
                                                            else "int32"))
    dtype = dtype or ("float32" if isinstance(label_value, float) else None)
    lv = _utils.to_tensor("sparse_to_dense", label_value, dtype=dtype, backend=_utils.backend_of(hit))
    return where(hit, lv, other_value, allow_broadcast_all_sources=True)


def one_hot(source: Tensor) -> Tensor:
    """:return: float32 one-hot of the int ``source`` over its sparse dim (added last)"""
    return sparse_to_dense(source, label_value=1.0, other_value=0.0)


def scatter_argmax(source: Tensor, *, indices: Tensor, indices_dim: Dim, invalid_idx: Optional[int] = -1,
                   out_dim: Optional[Dim] = None) -> Tensor:
    """:return: per position of ``out_dim`` (default ``indices.sparse_dim``), the index into ``indices_dim`` of the
    largest ``source`` entry scattered there (the first on ties), ``invalid_idx`` where none (sparse dim
    ``indices_dim``)"""
    from returnn.frontend.dims import range_over_dim, set_sparse_dim
    from returnn.frontend.math_ import combine_bc, compare_bc
    out_dim = out_dim or indices.sparse_dim
    best = scatter(source, indices=indices, indices_dim=indices_dim, mode="max", out_dim=out_dim)
    best_at = gather(best, indices=indices, axis=out_dim)  # the max of each entry's target position
    is_best = compare_bc(source, "greater_equal", best_at)
    pos = range_over_dim(indices_dim)
    size = _utils.dim_value(indices_dim)
    cand = where(is_best, combine_bc(pos, "mul", 1), size if isinstance(size, int) else 2 ** 30,
                 allow_broadcast_all_sources=True)
    first = scatter(cand, indices=indices, indices_dim=indices_dim, mode="min", out_dim=out_dim,
                    fill_value=size if isinstance(size, int) else 2 ** 30)
    out = where(compare_bc(first, "greater_equal", size if isinstance(size, int) else 2 ** 30), invalid_idx, first,
                allow_broadcast_all_sources=True)
    return set_sparse_dim(out, indices_dim)

"""Array ops on dims: ``rf.where``, ``rf.pack_padded``/``rf.pad_packed``, ``rf.masked_select``/``rf.masked_scatter``,
``rf.concat``, ``rf.pad``, ``rf.gather``, ``rf.squeeze``, ``rf.expand_dim``, ``rf.merge_dims``/``rf.split_dims``,
``rf.split``, ``rf.slice``, ``rf.shift_right``, ``rf.reverse_sequence``, ``rf.sparse_to_dense``/``rf.one_hot``,
``rf.stack``, ``rf.cumsum``, ``rf.copy_to_device``, ``rf.stop_gradient``. The packed/masked and index ops are in
:mod:`returnn.frontend._array_index`; this module re-exports them (the reference's public path)."""

from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple, Union

from returnn.errors import FrontendError
from returnn.frontend import _utils
from returnn.frontend._array_index import (gather, masked_scatter, masked_select, one_hot, pack_padded,  # noqa: F401
                                           pad_packed, scatter, scatter_argmax, sparse_to_dense, where)
from returnn.frontend.const import convert_to_tensor, full  # noqa: F401
from returnn.frontend.dims import mask_value, range_over_dim, replace_dim, sequence_mask  # noqa: F401
from returnn.frontend.math_ import cast, identity  # noqa: F401
from returnn.tensor import Dim, Tensor

__all__ = ["where", "pack_padded", "pad_packed", "masked_select", "masked_scatter", "gather", "scatter",
           "sparse_to_dense", "one_hot", "concat", "concat_features", "pad", "squeeze", "expand_dim", "expand_dims",
           "merge_dims", "split_dims", "split", "slice", "shift_right", "shift_left", "reverse_sequence", "stack",
           "cumsum", "copy_to_device", "stop_gradient", "reshape", "window", "cast", "identity", "copy",
           "cum_concat_step", "sort", "scatter_argmax"]


def _raw(x: Tensor, dims: Sequence[Dim]) -> Any:
    return _utils.aligned_raw(x, dims)


def concat(*sources: Tuple[Tensor, Dim], allow_broadcast: bool = False, out_dim: Optional[Dim] = None,
           handle_dynamic_dims: Optional[bool] = None) -> Tuple[Tensor, Dim]:
    """Concatenates ``(tensor, dim)`` pairs along their dims (the other dims must be the same; with
    ``allow_broadcast``, missing ones are broadcast). A dynamic part continues right after the lengths of the part
    before it.

    :return: (result with the concat dim in place of the first source's dim, the concat dim (sum of the dims))
    """
    if not sources:
        raise FrontendError("concat", "needs at least one (tensor, dim) pair")
    for x, d in sources:
        _utils.check_dims("concat", x, [d])
    first, first_dim = sources[0]
    if any(x.dtype != first.dtype for x, _ in sources):
        raise FrontendError("concat", "the sources need the same dtype", got=[x.dtype for x, _ in sources])
    others = [d for d in first.dims if d != first_dim]
    for x, d in sources[1:]:
        rest = [e for e in x.dims if e != d]
        missing = [e for e in rest if e not in others] + ([e for e in others if e not in rest]
                                                          if not allow_broadcast else [])
        if missing:
            raise FrontendError("concat", f"the other dims differ: {x.name!r} has {_utils.dims_repr(x.dims)}, "
                                          f"{first.name!r} has {_utils.dims_repr(first.dims)}",
                                hint="pass allow_broadcast=True to broadcast missing dims")
    if out_dim is None:
        out_dim = first_dim
        for _, d in sources[1:]:
            out_dim = out_dim + d
    dims_before = first.dims[:first.dims.index(first_dim)]
    out_dims = list(dims_before) + [out_dim] + [d for d in first.dims[first.dims.index(first_dim) + 1:]]
    dtype = first.dtype
    backend = _utils.backend_of(*[x for x, _ in sources])
    if all(d.dimension is not None for _, d in sources[:-1]):
        raws = []
        for x, d in sources:
            tmp_dims = [e if e != out_dim else d for e in out_dims]
            raws.append(_utils.aligned_raw(x, tmp_dims, backend=backend, broadcast=True))
        raw = backend.concat(raws, out_dims.index(out_dim))
        return _utils.make_tensor("concat", out_dims, dtype, raw, sparse_dim=first.sparse_dim), out_dim
    return _concat_dynamic(sources, out_dims, out_dim), out_dim


def _concat_dynamic(sources: Sequence[Tuple[Tensor, Dim]], out_dims: List[Dim], out_dim: Dim) -> Tensor:
    """Concat where a non-last part is dynamic: each output frame takes the part whose range it is in."""
    from returnn.frontend.math_ import combine_bc, compare_bc, logical_and
    pos = range_over_dim(out_dim)
    out: Optional[Tensor] = None
    offset: Any = 0
    for x, d in sources:
        length = d.dyn_size_ext if d.dimension is None else d.dimension
        idx = combine_bc(pos, "sub", offset) if isinstance(offset, Tensor) else pos - offset
        valid = compare_bc(idx, "greater_equal", 0)
        valid = combine_bc(valid, "logical_and", compare_bc(idx, "less", length))
        from returnn.frontend.math_ import clip_by_value
        idx = clip_by_value(idx, 0, _utils.dim_value(d) - 1)
        part = gather(x, indices=idx, axis=d)
        out = part if out is None else where(valid, part, out, allow_broadcast_all_sources=True)
        offset = combine_bc(length, "add", offset) if isinstance(length, Tensor) or isinstance(offset, Tensor) \
            else offset + length
    assert out is not None
    dims = [d for d in out_dims if d in out.dims] + [d for d in out.dims if d not in out_dims]
    return _transpose(out, dims)


def _transpose(x: Tensor, dims: Sequence[Dim]) -> Tensor:
    return _utils.make_tensor(x.name, dims, x.dtype, _raw(x, dims), sparse_dim=x.sparse_dim)


def concat_features(*sources: Tensor, allow_broadcast: bool = False) -> Tensor:
    """Concatenates along each source's feature dim. :return: the result (its feature dim: the sum)"""
    pairs = []
    for x in sources:
        if x.feature_dim is None:
            raise FrontendError("concat_features", f"{x.name!r} has no feature dim: {_utils.dims_repr(x.dims)}")
        pairs.append((x, x.feature_dim))
    out, out_dim = concat(*pairs, allow_broadcast=allow_broadcast)
    return _utils.make_tensor(out.name, out.dims, out.dtype, out.raw_tensor, feature_dim=out_dim)


def pad(source: Tensor, *, axes: Sequence[Dim], padding: Sequence[Tuple[Union[Dim, int], Union[Dim, int]]],
        out_dims: Optional[Sequence[Dim]] = None, mode: str = "constant", value: Any = None,
        handle_dynamic_dims: Optional[bool] = None) -> Tuple[Tensor, Sequence[Dim]]:
    """Pads ``axes`` by ``(left, right)`` amounts (ints or static dims). ``mode``: constant (``value``, default 0),
    reflect, replicate. On a dynamic axis, the right padding follows each sequence's length (constant mode).

    :return: (result, the new dims (``left + axis + right``), in place of ``axes``)
    """
    axes = list(axes)
    _utils.check_dims("pad", source, axes)
    if len(padding) != len(axes):
        raise FrontendError("pad", f"needs one (left, right) pair per axis: {len(axes)} axes, {len(padding)} pairs")
    if out_dims is None:
        out_dims = [_pad_dim(a, left, right) for a, (left, right) in zip(axes, padding)]
    backend = _utils.backend_of(source)
    raw = _raw(source, source.dims)
    paddings = [(0, 0)] * len(source.dims)
    for a, (left, right) in zip(axes, padding):
        paddings[source.dims.index(a)] = (_utils.dim_value(left, backend) if isinstance(left, Dim) else left,
                                          _utils.dim_value(right, backend) if isinstance(right, Dim) else right)
    raw = backend.pad(raw, paddings, {"replicate": "symmetric"}.get(mode, mode), value)
    dims = [out_dims[axes.index(d)] if d in axes else d for d in source.dims]
    out = _utils.make_tensor("pad", dims, source.dtype, raw, sparse_dim=source.sparse_dim,
                             feature_dim=source.feature_dim)
    if mode == "constant" and handle_dynamic_dims is not False:
        for a, o, (left, right) in zip(axes, out_dims, padding):
            if a.need_masking() and (not isinstance(right, int) or right):
                out = _fill_beyond(out, o, a, left, value if value is not None else 0)
    return out, out_dims


def _pad_dim(axis: Dim, left: Union[Dim, int], right: Union[Dim, int]) -> Dim:
    out = axis
    if isinstance(left, Dim) or left:
        out = left + out
    if isinstance(right, Dim) or right:
        out = out + right
    return out


def _fill_beyond(x: Tensor, out_dim: Dim, in_dim: Dim, left: Any, value: Any) -> Tensor:
    """Sets ``value`` at the positions of ``out_dim`` at or beyond ``left + length(in_dim)``."""
    from returnn.frontend.math_ import combine_bc, compare_bc
    end = combine_bc(in_dim.dyn_size_ext, "add", left if isinstance(left, int) else _utils.dim_value(left))
    keep = compare_bc(range_over_dim(out_dim), "less", end)
    return where(keep, x, value, allow_broadcast_all_sources=True, dim_order=x.dims)


def squeeze(source: Tensor, axis: Dim) -> Tensor:
    """:return: ``source`` without ``axis`` (which must have size 1)"""
    _utils.check_dims("squeeze", source, [axis])
    if axis.dimension != 1:
        raise FrontendError("squeeze", f"the dim must have size 1, got {axis!r}")
    dims = [d for d in source.dims if d != axis]
    backend = _utils.backend_of(source)
    raw = backend.reshape(_raw(source, source.dims), [s for i, s in enumerate(backend.shape_of(source.raw_tensor))
                                                      if i != source.dims.index(axis)])
    return _utils.make_tensor(source.name, dims, source.dtype, raw, sparse_dim=source.sparse_dim)


def expand_dim(source: Tensor, dim: Dim) -> Tensor:
    """:return: ``source`` with the new ``dim`` (values broadcast along it), placed first (before the other dims),
    or right after the batch dim"""
    if dim in source.dims:
        raise FrontendError("expand_dim", f"{source.name!r} has dim {dim!r} already: {_utils.dims_repr(source.dims)}")
    dims = list(source.dims)
    pos = 1 if dims and dims[0].is_batch_dim() else 0
    dims.insert(pos, dim)
    raw = _utils.aligned_raw(source, dims, broadcast=True)
    return _utils.make_tensor(source.name, dims, source.dtype, raw, sparse_dim=source.sparse_dim,
                              feature_dim=source.feature_dim)


def expand_dims(source: Tensor, dims: Sequence[Dim]) -> Tensor:
    """:func:`expand_dim` for each of ``dims``."""
    for d in dims:
        source = expand_dim(source, d)
    return source


def merge_dims(source: Tensor, *, dims: Sequence[Dim], out_dim: Optional[Dim] = None) -> Tuple[Tensor, Dim]:
    """Merges ``dims`` (row-major, in this order) into one.

    :return: (result with the merged dim where the first of ``dims`` was, the merged dim (their product))
    """
    dims = list(dims)
    _utils.check_dims("merge_dims", source, dims)
    if out_dim is None:
        out_dim = dims[0]
        for d in dims[1:]:
            out_dim = out_dim * d
    first = min(source.dims.index(d) for d in dims)
    rest = [d for d in source.dims if d not in dims]
    order = rest[:first] + dims + rest[first:]
    backend = _utils.backend_of(source)
    raw = _raw(source, order)
    shape = backend.shape_of(raw)
    merged = None
    for i in range(first, first + len(dims)):
        merged = shape[i] if merged is None else merged * shape[i]
    new_shape = shape[:first] + [merged] + shape[first + len(dims):]
    out_dims = rest[:first] + [out_dim] + rest[first:]
    out = _utils.make_tensor("merge_dims", out_dims, source.dtype, backend.reshape(raw, new_shape),
                             sparse_dim=source.sparse_dim,
                             feature_dim=out_dim if source.feature_dim in dims else source.feature_dim)
    return out, out_dim


def split_dims(source: Tensor, *, axis: Dim, dims: Sequence[Dim], pad_to_multiples: Optional[bool] = None,
               pad_value: Any = None) -> Tensor:
    """Splits ``axis`` into ``dims`` (row-major; with several dynamic dims, each one's size is its current maximum,
    e.g. batch dims merged before). :return: dims in place of ``axis``"""
    _utils.check_dims("split_dims", source, [axis])
    backend = _utils.backend_of(source)
    raw = _raw(source, source.dims)
    shape = backend.shape_of(raw)
    i = source.dims.index(axis)
    sizes = [d.dimension if d.dimension is not None else -1 for d in dims]
    if sum(1 for s in sizes if s == -1) > 1:
        sizes = [s if s != -1 else _utils.dim_value(d, backend) for s, d in zip(sizes, dims)]
    out_dims = list(source.dims[:i]) + list(dims) + list(source.dims[i + 1:])
    raw = backend.reshape(raw, shape[:i] + sizes + shape[i + 1:])
    return _utils.make_tensor("split_dims", out_dims, source.dtype, raw, sparse_dim=source.sparse_dim)


def split(source: Tensor, *, axis: Dim, out_dims: Sequence[Dim]) -> Tuple[Tensor, ...]:
    """Splits ``axis`` into consecutive parts of sizes ``out_dims`` (static, summing to the axis size)."""
    _utils.check_dims("split", source, [axis])
    if axis.dimension is not None and all(d.dimension is not None for d in out_dims) and \
            sum(d.dimension for d in out_dims) != axis.dimension:
        raise FrontendError("split", f"the sizes of {_utils.dims_repr(out_dims)} do not sum to {axis!r}")
    if axis.dimension is not None and all(d.dimension is not None for d in out_dims):
        backend = _utils.backend_of(source)
        parts = backend.split(_raw(source, source.dims), source.dims.index(axis), [d.dimension for d in out_dims])
        return tuple(_utils.make_tensor("split", [d if e == axis else e for e in source.dims], source.dtype, raw,
                                        sparse_dim=source.sparse_dim,
                                        feature_dim=d if source.feature_dim == axis else source.feature_dim)
                     for d, raw in zip(out_dims, parts))
    outs, start = [], 0
    for d in out_dims:
        outs.append(slice(source, axis=axis, start=start, size=d)[0])
        start = start + _utils.dim_value(d) if isinstance(start, int) and d.dimension is not None else \
            start + _utils.dim_value(d)
    return tuple(outs)


def slice(source: Tensor, *, axis: Dim, start: Any = None, end: Any = None, step: Optional[int] = None,
          size: Union[None, int, Dim] = None, out_dim: Optional[Dim] = None) -> Tuple[Tensor, Dim]:  # noqa: A001
    """Frames ``start`` (default 0) up to ``end`` (default: the end) or ``size`` frames, every ``step``-th.

    :return: (result with ``out_dim`` in place of ``axis``, ``out_dim``)
    """
    _utils.check_dims("slice", source, [axis])
    backend = _utils.backend_of(source)
    step = step or 1
    start_v = 0 if start is None else start.raw_tensor if isinstance(start, Tensor) else start
    if isinstance(size, Dim):
        out_dim = out_dim or size
        size_v = _utils.dim_value(size, backend)
    elif size is not None:
        size_v = size
        out_dim = out_dim or Dim(size, name=f"{axis.name}:slice")
    else:
        axis_size = _utils.dim_value(axis, backend)
        end_v = axis_size if end is None else end.raw_tensor if isinstance(end, Tensor) else end
        if isinstance(end_v, int) and end_v < 0:
            end_v = axis_size + end_v
        size_v = end_v - start_v
        if step != 1:
            size_v = -((-size_v) // step)
        if out_dim is None:
            if isinstance(size_v, int):
                out_dim = Dim(size_v, name=f"{axis.name}:slice")
            elif isinstance(start_v, int) and end is None and step == 1:
                out_dim = axis.sub_left(start_v) if start_v else axis
            else:
                out_dim = Dim(None, name=f"{axis.name}:slice")
                out_dim.dyn_size_ext = Tensor("slice_size", dims=(), dtype="int32",
                                              raw_tensor=backend.cast(size_v, "int32"))
    raw = backend.slice(_raw(source, source.dims), source.dims.index(axis), start_v, size_v, step)
    dims = [out_dim if d == axis else d for d in source.dims]
    return _utils.make_tensor("slice", dims, source.dtype, raw, sparse_dim=source.sparse_dim,
                              feature_dim=out_dim if source.feature_dim == axis else source.feature_dim), out_dim


def shift_right(source: Tensor, *, axis: Dim, pad_value: Any, amount: int = 1) -> Tensor:
    """:return: ``source`` shifted by ``amount`` frames to the right along ``axis`` (``pad_value`` in front), same
    dims"""
    padded, (pad_dim,) = pad(source, axes=[axis], padding=[(amount, 0)], value=pad_value)
    return _slice_to(padded, pad_dim, 0, axis)


def shift_left(source: Tensor, *, axis: Dim, pad_value: Any, amount: int = 1) -> Tensor:
    """:return: ``source`` shifted by ``amount`` frames to the left along ``axis`` (``pad_value`` at the end)"""
    padded, (pad_dim,) = pad(source, axes=[axis], padding=[(0, amount)], value=pad_value)
    return _slice_to(padded, pad_dim, amount, axis)


def _slice_to(x: Tensor, axis: Dim, start: int, out_dim: Dim) -> Tensor:
    return slice(x, axis=axis, start=start, size=out_dim)[0]


def reverse_sequence(tensor: Tensor, *, axis: Dim, handle_dynamic_dims: bool = True) -> Tensor:
    """:return: ``tensor`` reversed along ``axis`` (a dynamic axis: within each sequence's length), same dims"""
    _utils.check_dims("reverse_sequence", tensor, [axis])
    backend = _utils.backend_of(tensor)
    if axis.need_masking() and handle_dynamic_dims:
        ext = axis.dyn_size_ext
        if list(ext.dims) == [] or any(d not in tensor.dims for d in ext.dims) or len(ext.dims) != 1:
            raise FrontendError("reverse_sequence", f"needs lengths of {axis!r} over one dim of the tensor",
                                got=_utils.dims_repr(ext.dims))
        (bd,) = ext.dims
        order = [bd, axis] + [d for d in tensor.dims if d not in (bd, axis)]
        raw = backend.reverse_sequence(_raw(tensor, order), ext.raw_tensor, 1, 0)
        out = _utils.make_tensor("reverse_sequence", order, tensor.dtype, raw, sparse_dim=tensor.sparse_dim)
        return _transpose(out, tensor.dims)
    from returnn.frontend.dims import set_sparse_dim
    from returnn.frontend.math_ import combine
    idx = combine(_utils.dim_value(axis, backend) - 1, "sub", range_over_dim(axis))  # size-1, ..., 0
    return gather(tensor, indices=set_sparse_dim(idx, axis), axis=axis)


def stack(sources: Sequence[Tensor], *, out_dim: Optional[Dim] = None) -> Tuple[Tensor, Dim]:
    """Stacks ``sources`` (the same dims, or broadcastable) along a new dim of size ``len(sources)``, first.

    :return: (result, out_dim)
    """
    if not sources:
        raise FrontendError("stack", "needs at least one source")
    out_dim = out_dim or Dim(len(sources), name="stack")
    dims = _utils.out_dims_of("stack", list(sources), allow_broadcast_all_sources=True)
    backend = _utils.backend_of(*sources)
    raws = [backend.expand_dims(_utils.aligned_raw(x, dims, backend=backend, broadcast=True), 0) for x in sources]
    return _utils.make_tensor("stack", [out_dim] + dims, sources[0].dtype, backend.concat(raws, 0)), out_dim


def cumsum(source: Tensor, *, spatial_dim: Dim) -> Tensor:
    """:return: running sum along ``spatial_dim`` (padded frames count as 0), same dims"""
    _utils.check_dims("cumsum", source, [spatial_dim])
    x = mask_value(source, spatial_dim, 0)
    backend = _utils.backend_of(x)
    raw = backend.cumsum(_raw(x, x.dims), x.dims.index(spatial_dim), False)
    return _utils.make_tensor("cumsum", x.dims, x.dtype, raw, feature_dim=x.feature_dim)


def copy_to_device(x: Tensor, device: Optional[str] = None) -> Tensor:
    """:return: ``x`` (TF graph mode places ops itself)"""
    return x


def copy(tensor: Tensor) -> Tensor:
    """:return: a new Tensor with the same values (an identity op)"""
    backend = _utils.backend_of(tensor)
    return _utils.make_tensor(tensor.name, tensor.dims, tensor.dtype, backend.identity(tensor.raw_tensor),
                              sparse_dim=tensor.sparse_dim, feature_dim=tensor.feature_dim)


def stop_gradient(source: Tensor) -> Tensor:
    """:return: ``source`` without gradient flowing back"""
    backend = _utils.backend_of(source)
    return _utils.make_tensor(source.name, source.dims, source.dtype, backend.stop_gradient(source.raw_tensor),
                              sparse_dim=source.sparse_dim, feature_dim=source.feature_dim)


def reshape(source: Tensor, in_dims: Sequence[Dim], out_dims: Sequence[Dim]) -> Tensor:
    """Reshapes ``in_dims`` (row-major) into ``out_dims`` (the same number of elements)."""
    _utils.check_dims("reshape", source, in_dims)
    merged, mdim = merge_dims(source, dims=in_dims) if len(in_dims) > 1 else (source, in_dims[0])
    return split_dims(merged, axis=mdim, dims=out_dims)


def window(source: Tensor, *, spatial_dim: Dim, window_dim: Dim, window_left: Optional[int] = None,
           window_right: Optional[int] = None, padding: str = "same", pad_value: Any = None, stride: int = 1
           ) -> Tuple[Tensor, Dim]:
    """Windows of ``window_dim`` frames, one every ``stride`` frames: window ``i`` holds the frames from
    ``i * stride`` of the padded sequence (``padding="same"``: left ``(w-1)//2`` frames unless given, zero-padded,
    ``ceil(T / stride)`` windows; ``"valid"``: only full windows, ``ceil((T - w + 1) / stride)``), as the reference
    (observed). :return: (result ``[..., out spatial, window_dim]``, the out spatial dim)"""
    from returnn.frontend.math_ import combine_bc
    w = window_dim.dimension
    if w is None:
        raise FrontendError("window", f"needs a static window dim, got {window_dim!r}")
    if not isinstance(stride, int) or stride < 1:
        raise FrontendError("window", "stride must be a positive int", got=stride)
    if padding == "same":
        left = (w - 1) // 2 if window_left is None else window_left
        right = w - 1 - left
        padded, (pdim,) = pad(source, axes=[spatial_dim], padding=[(left, right)], value=pad_value or 0)
        out_spatial = spatial_dim
    elif padding == "valid":
        padded, pdim = source, spatial_dim
        out_spatial = spatial_dim.sub_right(w - 1)
    else:
        raise FrontendError("window", f"unknown padding {padding!r}", expected="same, valid")
    starts = range_over_dim(out_spatial)
    if stride != 1:
        out_spatial = out_spatial.ceildiv_right(stride)
        starts = combine_bc(range_over_dim(out_spatial), "mul", stride)
    idx = combine_bc(starts, "add", range_over_dim(window_dim))
    from returnn.frontend.dims import set_sparse_dim
    out = gather(padded, indices=set_sparse_dim(idx, pdim), axis=pdim)
    return out, out_spatial


def cum_concat_step(source: Tensor, *, prev_accum: Tensor, axis: Dim, out_spatial_dim: Optional[Dim] = None
                    ) -> Tuple[Tensor, Dim]:
    """Appends one frame ``source`` (without ``axis``) to ``prev_accum`` (with ``axis``).

    :return: (the accumulation over ``out_spatial_dim`` (``axis + 1``), out_spatial_dim)
    """
    _utils.check_dims("cum_concat_step", prev_accum, [axis])
    one = Dim(1, name="cum_concat_step")
    out, out_dim = concat((prev_accum, axis), (expand_dim(source, one), one), allow_broadcast=True,
                          out_dim=out_spatial_dim)
    return out, out_dim


def sort(source: Tensor, *, axis: Dim, descending: bool = False, stable: bool = True) -> Tuple[Tensor, Tensor, Dim]:
    """:return: (values sorted along ``axis`` (ascending unless ``descending``), the indices into ``axis``, the new
    dim (the same size as ``axis``))"""
    from returnn.frontend.math_ import neg
    from returnn.frontend.reduce import top_k
    _utils.check_dims("sort", source, [axis])
    out_dim = Dim(axis.dimension, name=f"{axis.name}:sorted") if axis.dimension is not None else None
    x = source if descending else neg(source)
    values, indices, k_dim = top_k(x, axis=axis, k=_utils.dim_value(axis) if out_dim is None else axis.dimension,
                                   k_dim=out_dim)
    return (values if descending else neg(values)), indices, k_dim

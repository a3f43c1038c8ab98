"""Ops on dims: ``rf.range_over_dim``, ``rf.sequence_mask``, ``rf.replace_dim``, ``rf.dim_match_priority_when_needed``,
``rf.num_elements_of_shape``, ``rf.last_frame_position_of_dim``."""

from __future__ import annotations

from typing import Any, Optional, Sequence, Tuple, Union

from returnn.errors import FrontendError
from returnn.frontend import _utils
from returnn.frontend._backend import get_selected_backend
from returnn.tensor import Dim, Tensor

__all__ = ["range_over_dim", "range_over_dim_strided", "range_over_merged_dims", "sequence_mask", "replace_dim",
           "replace_dim_v2", "set_sparse_dim", "dim_match_priority_when_needed", "num_elements_of_shape",
           "last_frame_position_of_dim", "mask_value", "dyn_size_ext_of"]


def range_over_dim(dim: Dim, *, dtype: Optional[str] = None, device: Optional[str] = None) -> Tensor:
    """:return: ``[dim]`` with values ``0 .. size-1``, sparse dim ``dim`` (int32 default)"""
    dtype = dtype or "int32"
    backend = get_selected_backend()
    raw = backend.range(0, _utils.dim_value(dim, backend), 1, dtype)
    return _utils.make_tensor(dim.name or "range", [dim], dtype, raw, sparse_dim=dim)


def range_over_dim_strided(dim: Dim, *, stride: int, out_dim: Optional[Dim] = None, dtype: Optional[str] = None,
                           device: Optional[str] = None) -> Tuple[Tensor, Dim]:
    """:return: ``0, stride, 2*stride, ...`` below the size of ``dim``, over ``out_dim`` (default ``ceil(dim/stride)``)"""
    out_dim = out_dim or dim.ceildiv_right(stride)
    backend = get_selected_backend()
    raw = backend.range(0, _utils.dim_value(dim, backend), stride, dtype or "int32")
    return _utils.make_tensor("range", [out_dim], dtype or "int32", raw, sparse_dim=dim), out_dim


def range_over_merged_dims(dims: Sequence[Dim], *, dtype: Optional[str] = None,
                           device: Optional[str] = None) -> Tensor:
    """:return: ``dims``-shaped running index (row-major) over the merged dims"""
    out = None
    for d in dims:
        r = range_over_dim(d, dtype=dtype)
        out = r if out is None else out * _utils.dim_value(d) + r if isinstance(d.dimension, int) else \
            out * _dim_as_tensor(d) + r
    if out is None:
        raise FrontendError("range_over_merged_dims", "needs at least one dim")
    return out


def _dim_as_tensor(d: Dim) -> Tensor:
    backend = get_selected_backend()
    return Tensor("dim", dims=(), dtype="int32", raw_tensor=backend.convert(_utils.dim_value(d, backend), "int32"))


def dim_size_tensor(dim: Dim) -> Tensor:
    """:return: the scalar int32 size of ``dim`` (static, or the maximum of its lengths) as a Tensor named
    ``<dim name>:size`` (``Dim.get_size_tensor`` of a dim without lengths)"""
    backend = get_selected_backend()
    return Tensor(f"{dim.name}:size", dims=(), dtype="int32",
                  raw_tensor=backend.convert(_utils.dim_value(dim, backend), "int32"))


def max_length_tensor(dim: Dim) -> Tensor:
    """:return: the maximum of the lengths of a dynamic ``dim``, a scalar int32 Tensor named as the lengths
    (``Dim.get_dim_value_tensor``)

    :raises FrontendError: the lengths are unknown
    """
    from returnn.frontend.reduce import reduce_max
    ext = dyn_size_ext_of("Dim.get_dim_value_tensor", dim)
    out = reduce_max(ext, axis=list(ext.dims)) if ext.dims else ext
    return _utils.make_tensor(ext.name, (), ext.dtype, out.raw_tensor)


def dyn_size_ext_of(call: str, dim: Dim) -> Tensor:
    """:return: the lengths of a dynamic ``dim`` as a Tensor (e.g. ``[B]``)

    :raises FrontendError: the lengths are unknown
    """
    ext = dim.dyn_size_ext
    if ext is None or ext.raw_tensor is None:
        raise FrontendError(call, f"the lengths of {dim!r} are not known")
    return ext


def sequence_mask(dims: Union[Dim, Sequence[Dim]], *, device: Optional[str] = None) -> Tensor:
    """:return: bool, true within the lengths of the dynamic dims among ``dims`` (dims: the lengths' dims and the
    dynamic dims); all true (a scalar) when none is dynamic"""
    dims = _utils.as_dims(dims)
    mask: Optional[Tensor] = None
    for d in dims:
        if not d.need_masking():
            continue
        ext = dyn_size_ext_of("sequence_mask", d)
        from returnn.frontend.math_ import combine_bc, compare_bc
        cur = compare_bc(ext, "greater", range_over_dim(d, dtype=ext.dtype))
        mask = cur if mask is None else combine_bc(mask, "logical_and", cur)
    if mask is None:
        backend = get_selected_backend()
        return _utils.make_tensor("sequence_mask", [], "bool", backend.fill([], True, "bool"))
    return mask


def mask_value(x: Tensor, axis: Dim, value: Any) -> Tensor:
    """:return: ``x`` with ``value`` in the padded frames of the dynamic ``axis`` (unchanged if static)"""
    if not axis.need_masking():
        return x
    from returnn.frontend.array_ import where
    mask = sequence_mask([axis])
    return where(mask, x, value, allow_broadcast_all_sources=True, dim_order=x.dims)


def replace_dim(source: Tensor, *, in_dim: Dim, out_dim: Optional[Dim] = None) -> Tuple[Tensor, Dim]:
    """:return: ``source`` with ``in_dim`` replaced by ``out_dim`` (same size; a new dim like ``in_dim`` if not
    given; an ``out_dim`` of unknown size (``Dim(None)`` without lengths) gets the static size of ``in_dim``, as the
    reference (observed), or its lengths), and ``out_dim``"""
    _utils.check_dims("replace_dim", source, [in_dim])
    if out_dim is None:
        out_dim = in_dim.copy(same_as_self=False, description=f"{in_dim.name}:replaced")
    if out_dim.dimension is None and out_dim.dyn_size_ext is None:
        if in_dim.dimension is not None:  # a new dim of unknown size (Dim(None)) gets the static size of in_dim
            out_dim.dimension = in_dim.dimension
        elif in_dim.dyn_size_ext is not None:  # or the lengths of in_dim
            out_dim.dyn_size_ext = in_dim.dyn_size_ext
    dims = [out_dim if d == in_dim else d for d in source.dims]
    return _utils.make_tensor(source.name, dims, source.dtype, source.raw_tensor,
                              sparse_dim=out_dim if source.sparse_dim == in_dim else source.sparse_dim), out_dim


def replace_dim_v2(source: Tensor, *, in_dim: Dim, out_dim: Dim, allow_expand: bool = True,
                   allow_shrink: bool = True) -> Tensor:
    """:return: ``source`` with ``in_dim`` replaced by ``out_dim``, padding (zeros) or cutting if the sizes differ"""
    from returnn.frontend.array_ import pad, slice as slice_
    _utils.check_dims("replace_dim_v2", source, [in_dim])
    if in_dim.dimension is not None and in_dim.dimension == out_dim.dimension or in_dim == out_dim:
        return replace_dim(source, in_dim=in_dim, out_dim=out_dim)[0]
    backend = _utils.backend_of(source)
    in_size, out_size = _utils.dim_value(in_dim, backend), _utils.dim_value(out_dim, backend)
    if isinstance(in_size, int) and isinstance(out_size, int) and out_size < in_size:
        return slice_(source, axis=in_dim, start=0, size=out_dim)[0]
    padded, pad_dims = pad(source, axes=[in_dim], padding=[(0, out_dim)], value=0)
    return slice_(padded, axis=pad_dims[0], start=0, size=out_dim)[0]


def set_sparse_dim(source: Tensor, sparse_dim: Dim) -> Tensor:
    """:return: ``source`` (int) with ``sparse_dim`` as its sparse dim (the same raw tensor)"""
    return _utils.make_tensor(source.name, source.dims, source.dtype, source.raw_tensor, sparse_dim=sparse_dim)


def dim_match_priority_when_needed(dim: Dim, *other_dims: Dim) -> Dim:
    """:return: ``dim``, or a copy of it with a higher match priority when it equals one of ``other_dims`` (so that
    e.g. a square matrix's two axes stay apart)"""
    if any(dim == d for d in other_dims):
        return dim.copy(match_priority=1)
    return dim


def num_elements_of_shape(dims: Union[Dim, Sequence[Dim]], *, use_mask: bool = True, device: Optional[str] = None
                          ) -> Union[int, Tensor]:
    """:return: the number of elements of a tensor of ``dims`` (within the lengths of dynamic dims): an int when all
    are static, else a scalar int32 Tensor"""
    from returnn.frontend.reduce import reduce_sum
    from returnn.frontend.math_ import cast
    dims = _utils.as_dims(dims)
    static = 1
    for d in dims:
        if d.dimension is not None:
            static *= d.dimension
    dyn = [d for d in dims if d.dimension is None]
    if not dyn:
        return static
    if use_mask:
        mask = sequence_mask(dyn)
        other = [d for d in dyn if d not in mask.dims]
        n = reduce_sum(cast(mask, "int32"), axis=list(mask.dims)) if mask.dims else cast(mask, "int32")
    else:
        other = dyn
        n = None
    for d in other:
        v = _dim_as_tensor(d)
        n = v if n is None else n * v
    return n * static if static != 1 else n


def last_frame_position_of_dim(dim: Dim, *, device: Optional[str] = None) -> Tensor:
    """:return: ``max(length - 1, 0)`` per sequence, sparse dim ``dim`` (a scalar for a static dim)"""
    from returnn.frontend.math_ import maximum
    if dim.dimension is not None:
        backend = get_selected_backend()
        return _utils.make_tensor("last_frame", [], "int32", backend.convert(max(dim.dimension - 1, 0), "int32"),
                                  sparse_dim=dim)
    ext = dyn_size_ext_of("last_frame_position_of_dim", dim)
    out = maximum(ext - 1, 0)
    return set_sparse_dim(out, dim)

"""Ops on nested structures of Tensors (e.g. a decoder state): ``gather_nested``, ``masked_select_nested``,
``masked_scatter_nested``, ``mask_nested``, ``where_nested``. Leaves that are not Tensors, or lack the dims an op
works on, pass through unchanged; a ``Dim`` leaf is mapped through ``dim_map``."""

from __future__ import annotations

from typing import Any, Dict, Optional, Sequence, Tuple, TypeVar

from returnn.frontend import _nest
from returnn.tensor import Dim, Tensor

__all__ = ["gather_nested", "masked_select_nested", "masked_scatter_nested", "mask_nested", "where_nested"]

T = TypeVar("T")


def _map_dim(x: Any, dim_map: Optional[Dict[Dim, Dim]]) -> Any:
    if isinstance(x, Dim) and dim_map:
        for k, v in dim_map.items():
            if k == x:
                return v
    return x


def gather_nested(s: T, *, indices: Tensor, dim_map: Optional[Dict[Dim, Dim]] = None) -> T:
    """:return: ``s`` with ``rf.gather(x, indices=indices)`` for each Tensor with ``indices.sparse_dim``"""
    from returnn.frontend.array_ import gather

    def _fn(x: Any) -> Any:
        if isinstance(x, Tensor) and indices.sparse_dim in x.dims:
            return gather(x, indices=indices)
        return _map_dim(x, dim_map)
    return _nest.map_structure(_fn, s)


def masked_select_nested(s: T, *, mask: Tensor, mask_cpu: Optional[Tensor] = None, dims: Sequence[Dim],
                         out_dim: Optional[Dim] = None, dim_map: Optional[Dict[Dim, Dim]] = None
                         ) -> Tuple[T, Dim, Dict[Dim, Dim]]:
    """:return: (``s`` with ``rf.masked_select`` on each Tensor that has all ``dims``, the packed dim, the dim
    map)"""
    from returnn.frontend.array_ import masked_select
    dim_map = dict(dim_map or {})
    holder = [out_dim]

    def _fn(x: Any) -> Any:
        if isinstance(x, Tensor) and all(d in x.dims for d in dims):
            out, holder[0] = masked_select(x, mask=mask, dims=dims, out_dim=holder[0])
            return out
        return _map_dim(x, dim_map)
    out = _nest.map_structure(_fn, s)
    if holder[0] is None:
        _, holder[0] = masked_select(mask, mask=mask, dims=dims)
    return out, holder[0], dim_map


def masked_scatter_nested(s: T, backup: T, *, mask: Tensor, mask_cpu: Optional[Tensor] = None,
                          dims: Sequence[Dim], in_dim: Dim, masked_select_dim_map: Optional[Dict[Dim, Dim]] = None,
                          masked_scatter_dim_map: Optional[Dict[Dim, Dim]] = None) -> T:
    """:return: ``backup`` with the entries of ``s`` (over ``in_dim``) scattered back where ``mask`` is true"""
    from returnn.frontend.array_ import masked_scatter

    def _fn(x: Any, b: Any) -> Any:
        if isinstance(x, Tensor) and in_dim in x.dims:
            return masked_scatter(x, backup=b if isinstance(b, Tensor) else None, mask=mask, dims=dims,
                                  in_dim=in_dim)
        if isinstance(x, Dim):
            return _map_dim(b, masked_scatter_dim_map)
        return x
    return _nest.map_structure(_fn, s, backup)


def mask_nested(s: T, *, mask: Tensor, mask_cpu: Optional[Tensor] = None, mask_value: Any,
                dim_map: Optional[Dict[Dim, Dim]] = None, allow_dim_extension: bool = True) -> T:
    """:return: ``s`` where ``mask`` is true, else ``mask_value`` (a nest like ``s``, a Tensor or a number)"""
    from returnn.frontend.array_ import where
    values = mask_value if _nest.flatten(mask_value) != [mask_value] else _nest.map_structure(lambda _: mask_value, s)

    def _fn(x: Any, v: Any) -> Any:
        if isinstance(x, Tensor):
            if v is None:
                return x
            return where(mask, x, v, allow_broadcast_all_sources=True, dim_order=x.dims)
        return _map_dim(x, dim_map)
    return _nest.map_structure(_fn, s, values)


def where_nested(cond: Tensor, true_: T, false_: T) -> T:
    """:return: per leaf ``rf.where(cond, t, f)`` (non-Tensor leaves: the true branch's)"""
    from returnn.frontend.array_ import where
    return _nest.map_structure(lambda t, f: where(cond, t, f, allow_broadcast_all_sources=True)
                               if isinstance(t, Tensor) else t, true_, false_)

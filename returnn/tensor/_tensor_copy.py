"""``copy_*`` methods of :class:`returnn.tensor.Tensor` (a mixin): templates and copies with axes moved, added,
removed or replaced. A copy keeps the raw tensor (transposed / expanded as needed); a ``copy_template*`` has none.

Follows the reference's ``Data`` methods of the same names, as observed: the time and feature roles move with
their dims; removing the time axis makes the next dynamic axis the time axis; new axes from
``copy_add_spatial_dim``/``copy_add_dim_by_tag`` go after the last spatial axis, a new feature dim last.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, List, Optional, Sequence

from returnn.errors import TensorArgError
from returnn.tensor.dim import Dim, FeatureDim, SpatialDim, batch_dim
from returnn.tensor.raw_backend import get_raw_backend

if TYPE_CHECKING:
    from returnn.tensor.tensor import Tensor


def _shift_removed(old: Optional[int], axis: int) -> Optional[int]:
    if old is None or old == axis:
        return None
    return old - 1 if old > axis else old


class TensorCopyMixin:
    """Copies and templates; mixed into :class:`returnn.tensor.Tensor`."""

    def _new(self: Tensor, dims: Sequence[Dim], *, time_axis: Optional[int], feature_axis: Optional[int],
             placeholder: Any, name: Optional[str] = None, **overrides: Any) -> Tensor:
        from returnn.tensor.tensor import Tensor
        kwargs = dict(name=name or self.name, dims=tuple(dims), dtype=self.dtype, sparse_dim=self.sparse_dim,
                      time_dim_axis=time_axis, feature_dim_axis=feature_axis, placeholder=placeholder,
                      available_for_inference=self.available_for_inference, vocab=self.vocab, beam=self.beam,
                      batch=self.batch)
        kwargs.update(overrides)
        return Tensor(**kwargs)

    def copy(self: Tensor, name: Optional[str] = None) -> Tensor:
        """:return: a shallow copy (same dims, same raw tensor)"""
        return self._new(self.dims, time_axis=self.time_dim_axis, feature_axis=self.feature_dim_axis,
                         placeholder=self.placeholder, name=name)

    def copy_template(self: Tensor, name: Optional[str] = None, dtype: Optional[str] = None) -> Tensor:
        """:return: same dims, no raw tensor"""
        return self._new(self.dims, time_axis=self.time_dim_axis, feature_axis=self.feature_dim_axis,
                         placeholder=None, name=name, dtype=dtype or self.dtype)

    # ---- axis order
    def copy_transpose(self: Tensor, perm: Sequence[int]) -> Tensor:
        """:return: axes permuted: new axis ``i`` is old axis ``perm[i]``; the raw tensor is transposed too"""
        perm = [p % self.batch_ndim for p in perm]
        if sorted(perm) != list(range(self.batch_ndim)):
            raise TensorArgError(f"{self!r}.copy_transpose({perm})", "not a permutation of the axes")
        placeholder = self.placeholder
        if placeholder is not None and perm != list(range(self.batch_ndim)):
            placeholder = get_raw_backend().transpose(placeholder, perm)

        def new_axis(old: Optional[int]) -> Optional[int]:
            return None if old is None else perm.index(old)

        return self._new([self.dims[i] for i in perm], time_axis=new_axis(self.time_dim_axis),
                         feature_axis=new_axis(self.feature_dim_axis), placeholder=placeholder)

    def copy_move_axis(self: Tensor, old_axis: int, new_axis: int) -> Tensor:
        """:return: copy with axis ``old_axis`` moved to position ``new_axis`` (both counting batch)"""
        old_axis %= self.batch_ndim
        new_axis %= self.batch_ndim
        perm = [i for i in range(self.batch_ndim) if i != old_axis]
        perm.insert(new_axis, old_axis)
        return self.copy_transpose(perm)

    def copy_swap_axes(self: Tensor, axis1: int, axis2: int) -> Tensor:
        """:return: copy with the two axes (counting batch) exchanged"""
        perm = list(range(self.batch_ndim))
        axis1, axis2 = axis1 % self.batch_ndim, axis2 % self.batch_ndim
        perm[axis1], perm[axis2] = perm[axis2], perm[axis1]
        return self.copy_transpose(perm)

    def _axis_or_error(self: Tensor, axis: Optional[int], what: str, op: str) -> int:
        if axis is None:
            raise TensorArgError(f"{self!r}.{op}", f"has no {what} axis")
        return axis

    def copy_with_batch_dim_axis(self: Tensor, batch_dim_axis: int) -> Tensor:
        return self.copy_move_axis(self._axis_or_error(self.batch_dim_axis, "batch", "copy_with_batch_dim_axis"),
                                   batch_dim_axis)

    def copy_with_time_dim_axis(self: Tensor, time_dim_axis: int) -> Tensor:
        return self.copy_move_axis(self._axis_or_error(self.time_dim_axis, "time", "copy_with_time_dim_axis"),
                                   time_dim_axis)

    def copy_with_feature_dim_axis(self: Tensor, feature_dim_axis: int) -> Tensor:
        return self.copy_move_axis(
            self._axis_or_error(self.feature_dim_axis, "feature", "copy_with_feature_dim_axis"), feature_dim_axis)

    def copy_with_feature_last(self: Tensor) -> Tensor:
        return self.copy_with_feature_dim_axis(-1)

    def copy_as_batch_major(self: Tensor) -> Tensor:
        """:return: copy with the batch axis first (raw tensor transposed if needed)"""
        return self.copy_with_batch_dim_axis(0)

    def copy_as_time_major(self: Tensor) -> Tensor:
        """:return: copy with the time axis first (raw tensor transposed if needed)"""
        return self.copy_with_time_dim_axis(0)

    def copy_as_time_batch_major(self: Tensor) -> Tensor:
        """:return: copy with the time axis first and the batch axis second"""
        return self.copy_as_batch_major().copy_with_time_dim_axis(0)

    def copy_as_batch_feature_major(self: Tensor) -> Tensor:
        """:return: copy with the batch axis first and the feature axis second"""
        out = self.copy_as_batch_major()
        return out.copy_with_feature_dim_axis(1)

    def copy_as_batch_spatial_major(self: Tensor) -> Tensor:
        """:return: copy ordered batch, spatial axes (in their order), feature"""
        perm = [a for a in (self.batch_dim_axis,) if a is not None] + list(self.get_spatial_batch_axes())
        perm += [a for a in (self.feature_dim_axis,) if a is not None and a not in perm]
        return self.copy_transpose(perm)

    def copy_as_bt_or_tb_major(self: Tensor) -> Tensor:
        """:return: batch-major with time second, unless already time-major with batch second"""
        if self.batch_dim_axis == 1 and self.time_dim_axis == 0:
            return self.copy()
        out = self.copy_as_batch_major()
        return out.copy_with_time_dim_axis(1)

    # ---- removing axes
    def copy_template_excluding_axis(self: Tensor, axis: int) -> Tensor:
        """:return: template without ``axis`` (counting batch)"""
        axis %= self.batch_ndim
        dims = [d for i, d in enumerate(self.dims) if i != axis]
        return self._new(dims, time_axis=_shift_removed(self.time_dim_axis, axis),
                         feature_axis=_shift_removed(self.feature_dim_axis, axis), placeholder=None)

    def _excluding_with_new_time(self: Tensor, axis: int) -> Tensor:
        out = self.copy_template_excluding_axis(axis)
        if out.time_dim_axis is None and out.batch_dim_axis is not None:
            out.time_dim_axis = next((i for i, d in enumerate(out.dims)
                                      if d.is_dynamic() and i != out.feature_dim_axis), None)
        return out

    def copy_template_excluding_time_dim(self: Tensor) -> Tensor:
        """:return: template without the time axis (the next dynamic axis becomes the time axis)

        :raises TensorArgError: no time axis
        """
        return self._excluding_with_new_time(
            self._axis_or_error(self.time_dim_axis, "time", "copy_template_excluding_time_dim()"))

    def copy_template_excluding_spatial_dim(self: Tensor, spatial_axis_num: int) -> Tensor:
        """:return: template without the ``spatial_axis_num``-th spatial axis (see ``get_spatial_batch_axes``)"""
        spatial = self.get_spatial_batch_axes()
        if not -len(spatial) <= spatial_axis_num < len(spatial):
            raise TensorArgError(f"{self!r}.copy_template_excluding_spatial_dim({spatial_axis_num})",
                                 "no such spatial axis", got=f"{len(spatial)} spatial axes")
        return self._excluding_with_new_time(spatial[spatial_axis_num])

    def copy_template_excluding_batch(self: Tensor) -> Tensor:
        if self.batch_dim_axis is None:
            return self.copy_template()
        return self.copy_template_excluding_axis(self.batch_dim_axis)

    def copy_squeeze_axes(self: Tensor, axes: Sequence[int]) -> Tensor:
        """:return: copy without ``axes`` (counting batch), which must have size 1; the raw tensor squeezed"""
        axes = sorted({a % self.batch_ndim for a in axes}, reverse=True)
        for a in axes:
            if self.batch_shape[a] != 1:
                raise TensorArgError(f"{self!r}.copy_squeeze_axes({axes})", f"axis {a} does not have size 1")
        out = self
        for a in axes:
            placeholder = None if out.placeholder is None else get_raw_backend().squeeze(out.placeholder, a)
            tmpl = out.copy_template_excluding_axis(a)
            tmpl.placeholder = placeholder
            out = tmpl
        return out if axes else self.copy()

    # ---- replacing axes
    def copy_template_replace_dim(self: Tensor, axis: int, new_dim: Any) -> Tensor:
        """:return: template with the dim at ``axis`` replaced by ``new_dim`` (a Dim; an int makes a new dim
        ``'<old>_replaced'`` of that size, as the reference)"""
        axis %= self.batch_ndim
        if not isinstance(new_dim, Dim):
            old = self.dims[axis]
            if old.is_batch_dim():
                raise TensorArgError(f"{self!r}.copy_template_replace_dim({axis}, {new_dim!r})",
                                     "the batch axis cannot be replaced by a static size")
            new_dim = Dim(new_dim, description=f"{old.description}_replaced", kind=old.kind)
        dims = list(self.dims)
        dims[axis] = new_dim
        return self._new(dims, time_axis=self.time_dim_axis, feature_axis=self.feature_dim_axis, placeholder=None)

    def copy_template_replace_dim_tag(self: Tensor, axis: int, new_dim_tag: Dim, name: Optional[str] = None) -> Tensor:
        """:return: template with the dim at ``axis`` replaced by ``new_dim_tag``"""
        out = self.copy_template_replace_dim(axis, new_dim_tag)
        return out if name is None else out.copy_template(name=name)

    def copy_template_new_dims(self: Tensor, dims: Sequence[Dim], *, time_dim_axis: Any = None,
                               feature_dim_axis: Any = None, name: Optional[str] = None) -> Tensor:
        """:return: template with the given dims (time/feature axes auto-detected unless given)"""
        from returnn.tensor.tensor import NotSpecified, Tensor
        return Tensor(name=name or self.name, dims=dims, dtype=self.dtype, sparse_dim=self.sparse_dim,
                      time_dim_axis=NotSpecified if time_dim_axis is None else time_dim_axis,
                      feature_dim_axis=NotSpecified if feature_dim_axis is None else feature_dim_axis,
                      available_for_inference=self.available_for_inference, vocab=self.vocab)

    def copy_template_new_dim_tags(self: Tensor, new_dim_tags: Sequence[Dim], name: Optional[str] = None,
                                   keep_special_axes: bool = False) -> Tensor:
        """:return: template with the given dims (the reference's name); roles kept if ``keep_special_axes``"""
        if keep_special_axes:
            return self.copy_template_new_dims(new_dim_tags, time_dim_axis=self.time_dim_axis,
                                               feature_dim_axis=self.feature_dim_axis, name=name)
        return self.copy_template_new_dims(new_dim_tags, name=name)

    # ---- adding axes
    def copy_add_dim(self: Tensor, axis: int, new_dim: Dim, *, as_time: bool = False,
                     as_feature: bool = False) -> Tensor:
        """:return: copy with ``new_dim`` inserted at ``axis``; the raw tensor gets a size-1 axis there"""
        if axis < 0:
            axis += self.batch_ndim + 1

        def shift(old: Optional[int]) -> Optional[int]:
            return None if old is None else (old + 1 if old >= axis else old)

        dims = list(self.dims)
        dims.insert(axis, new_dim)
        placeholder = self.placeholder
        if placeholder is not None:
            placeholder = get_raw_backend().expand_dims(placeholder, axis)
        return self._new(dims, time_axis=axis if as_time else shift(self.time_dim_axis),
                         feature_axis=axis if as_feature else shift(self.feature_dim_axis), placeholder=placeholder)

    def copy_add_batch_dim(self: Tensor, batch_dim_axis: int = 0, batch: Any = None,
                           dim_tag: Optional[Dim] = None) -> Tensor:
        """:return: copy with a batch axis at ``batch_dim_axis`` (raw tensor: size 1 there)

        :raises TensorArgError: there already is a batch axis (as the reference)
        """
        if self.batch_dim_axis is not None:
            raise TensorArgError(f"{self!r}.copy_add_batch_dim()", f"already has a batch axis at axis "
                                 f"{self.batch_dim_axis}")
        return self.copy_add_dim(batch_dim_axis, dim_tag or batch_dim)

    def copy_add_spatial_dim(self: Tensor, spatial_dim_axis: Optional[int] = None, dim: int = 1,
                             auto_time_dim_axis: bool = True) -> Tensor:
        """:return: copy with a new spatial axis ``'added_spatial'`` of size ``dim`` (default: after the last
        spatial axis); it becomes the time axis if there is none (and ``auto_time_dim_axis``)"""
        new = SpatialDim("added_spatial", dim)
        axis = self.get_default_new_axis_for_dim_tag(new) if spatial_dim_axis is None else spatial_dim_axis
        out = self.copy_add_dim(axis, new, as_time=auto_time_dim_axis and self.time_dim_axis is None)
        if dim != 1 and out.placeholder is not None:
            out.placeholder = _tile_axis(out.placeholder, out.batch_ndim, axis % out.batch_ndim, dim)
        return out

    def copy_add_feature_dim(self: Tensor, axis: Optional[int] = None) -> Tensor:
        """:return: copy with a new feature axis ``'feature1'`` of size 1 (default: last), the new feature axis;
        a sparse tensor (no feature axis) gets a new spatial axis instead, as the reference"""
        if self.sparse:
            return self.copy_add_spatial_dim(axis)
        axis = self.batch_ndim if axis is None else axis
        return self.copy_add_dim(axis, FeatureDim("feature1", 1), as_feature=True)

    def copy_add_dim_by_tag(self: Tensor, dim_tag: Dim, unbroadcast: bool = False,
                            axis: Optional[int] = None) -> Tensor:
        """:return: copy with ``dim_tag`` added at ``axis`` (default: see ``get_default_new_axis_for_dim_tag``);
        without ``unbroadcast``, a size-1 dim ``'<name>_dummy_dim1'`` is added instead (for broadcasting)"""
        if dim_tag.is_batch_dim():
            return self.copy_add_batch_dim(0 if axis is None else axis, dim_tag=dim_tag)
        if axis is None:
            axis = self.get_default_new_axis_for_dim_tag(dim_tag)
        elif axis < 0:
            axis += self.batch_ndim + 1
        new = dim_tag
        if not unbroadcast and dim_tag.dimension != 1:
            new = Dim(1, description=f"{dim_tag.description}_dummy_dim1", kind=dim_tag.kind)
        as_feature = new.is_feature_dim() or (not self.sparse and self.feature_dim_axis is None and new.is_static())
        out = self.copy_add_dim(axis, new, as_feature=as_feature,
                                as_time=self.time_dim_axis is None and new.is_spatial_dim() and new.is_dynamic())
        if unbroadcast and new.dimension != 1 and out.placeholder is not None:
            size = new.dimension if new.dimension is not None else new.get_dim_value()
            out.placeholder = _tile_axis(out.placeholder, out.batch_ndim, axis, size)
        return out

    def copy_template_adding_time_dim(self: Tensor, name: Optional[str] = None, time_dim_axis: int = 0) -> Tensor:
        """:return: template with a new dynamic time axis ``'unknown_time'`` at ``time_dim_axis``"""
        out = self.copy_add_dim(time_dim_axis, SpatialDim("unknown_time"), as_time=True)
        out.placeholder = None
        return out if name is None else out.copy_template(name=name)

    # ---- other
    def copy_template_dense(self: Tensor, name: Optional[str] = None, dtype: Optional[str] = None) -> Tensor:
        """:return: template of the one-hot form of a sparse tensor (class dim as the new feature axis, float32);
        a dense tensor's template as is"""
        out = self.copy_as_dense_template() if self.sparse else self.copy_template()
        if dtype is not None or name is not None:
            out = out.copy_template(name=name, dtype=dtype)
        return out

    def copy_as_dense_template(self: Tensor, dim_description: Optional[str] = None) -> Tensor:
        """:return: template where a sparse tensor becomes a one-hot float tensor with a feature axis"""
        from returnn.tensor.tensor import Tensor
        if not self.sparse:
            return self.copy_template()
        dims = list(self.dims) + [self.sparse_dim]
        return Tensor(name=self.name, dims=dims, dtype="float32", time_dim_axis=self.time_dim_axis,
                      feature_dim_axis=len(dims) - 1, available_for_inference=self.available_for_inference)

    def copy_with_dtype(self: Tensor, dtype: str) -> Tensor:
        """:return: template with a different dtype (dense; sparse dim dropped unless int)"""
        sparse_dim = self.sparse_dim if dtype.startswith("int") else None
        return self._new(self.dims, time_axis=self.time_dim_axis, feature_axis=self.feature_dim_axis,
                         placeholder=None, dtype=dtype, sparse_dim=sparse_dim)

    def copy_extend_with_beam(self: Tensor, beam: Any) -> Tensor:
        """:return: a copy; only ``beam=None`` (no beam) is supported here

        :raises TensorArgError: a beam (beams are handled by the search layers)
        """
        if beam is None:
            return self.copy()
        raise TensorArgError(f"{self!r}.copy_extend_with_beam({beam!r})", "extending with a beam is not supported",
                             hint="the choice layer and the rec layer handle beams")

    def copy_split_feature_dim(self: Tensor, new_feature_dim: int) -> Tensor:
        """:return: copy with the feature axis ``F`` split into ``('feature_split_rem_<F/n>', F|n)``"""
        axis = self._axis_or_error(self.feature_dim_axis, "feature", "copy_split_feature_dim()")
        old = self.dims[axis].dimension
        if old is None or old % new_feature_dim != 0:
            raise TensorArgError(f"{self!r}.copy_split_feature_dim({new_feature_dim})",
                                 "must be a multiple of the input feature dim", got=old)
        rem = Dim(old // new_feature_dim, description=f"feature_split_rem_{old // new_feature_dim}",
                  kind=Dim.Types.Spatial)
        new = FeatureDim(f"feature_split_new_{new_feature_dim}", new_feature_dim)
        dims = list(self.dims[:axis]) + [rem, new] + list(self.dims[axis + 1:])
        placeholder = None
        if self.placeholder is not None:
            backend = get_raw_backend()
            shape: List[Any] = [self.get_dim(i) for i in range(self.batch_ndim)]
            shape[axis:axis + 1] = [rem.dimension, new_feature_dim]
            placeholder = backend.reshape(self.placeholder, shape)
        time_axis = self.time_dim_axis
        if time_axis is not None and time_axis > axis:
            time_axis += 1
        return self._new(dims, time_axis=time_axis, feature_axis=axis + 1, placeholder=placeholder)

    def copy_compatible_to(self: Tensor, data: Tensor, add_dims: bool = True, unbroadcast: bool = False,
                           except_feature: bool = False, except_axis: Any = None, check_sparse: bool = True,
                           check_dtype: bool = True) -> Tensor:
        """:return: a copy whose axes are in the order of ``data``'s, with size-1 axes added for the dims of
        ``data`` this one lacks (or tiled to full size with ``unbroadcast``), so that the raw tensors broadcast.

        Axes are matched by dim first, then by role (batch, time, feature), then spatial axes in order.

        :raises TensorArgError: this tensor has more axes than ``data``, an axis has no counterpart, sparse or
            dtype differ (when checked), ``except_feature``/``except_axis`` (not supported here)
        """
        from returnn.tensor._compat import copy_compatible_to
        if except_feature or except_axis is not None:
            raise TensorArgError(f"{self!r}.copy_compatible_to(...)", "except_feature/except_axis are not supported")
        return copy_compatible_to(self, data, add_dims=add_dims, unbroadcast=unbroadcast,
                                  check_sparse=check_sparse, check_dtype=check_dtype)


def _tile_axis(raw: Any, ndim: int, axis: int, size: Any) -> Any:
    multiples: List[Any] = [1] * ndim
    multiples[axis] = size
    return get_raw_backend().tile(raw, multiples)

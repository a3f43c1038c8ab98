"""``copy_*`` methods of :class:`returnn.tensor.Tensor` (a mixin): templates and copies with axes moved, added,
removed or replaced. A copy keeps the raw tensor (transposed / expanded as needed); a ``copy_template*`` has none.

Follows the reference's ``Data`` methods of the same names, as observed: the time and feature roles move with
their dims; removing the time axis makes the next dynamic axis the time axis; new axes from
``copy_add_spatial_dim``/``copy_add_dim_by_tag`` go after the last spatial axis, a new feature dim last.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence

from returnn.errors import TensorArgError
from returnn.tensor import _special_axes as _special
from returnn.tensor._special_axes import NotSpecified
from returnn.tensor.dim import Dim, FeatureDim, SpatialDim, batch_dim
from returnn.tensor.raw_backend import get_raw_backend

if TYPE_CHECKING:
    from returnn.tensor.tensor import Tensor


class TensorCopyMixin:
    """Copies and templates; mixed into :class:`returnn.tensor.Tensor`."""

    def _new(self: Tensor, dims: Sequence[Dim], *, time_axis: Any, feature_axis: Any,
             placeholder: Any, name: Optional[str] = None, **overrides: Any) -> Tensor:
        """:param time_axis: the new tensor's time axis: explicit (int/None) or ``NotSpecified`` (auto)
        :param feature_axis: likewise"""
        from returnn.tensor.tensor import Tensor
        kwargs = dict(name=name or self.name, dims=tuple(dims), dtype=self.dtype, sparse_dim=self.sparse_dim,
                      time_dim_axis=time_axis, feature_dim_axis=feature_axis, placeholder=placeholder,
                      available_for_inference=self.available_for_inference, vocab=self._vocab, beam=self.beam,
                      batch=self.batch)
        kwargs.update(overrides)
        return Tensor(**kwargs)

    def _moved_axes(self: Tensor, dims: Sequence[Dim], time_axis: Optional[int], feature_axis: Optional[int],
                    sparse: Optional[bool] = None) -> Dict[str, Any]:
        """:return: ``time_axis``/``feature_axis`` kwargs for :meth:`_new` when the time and feature axes moved to
        these positions: auto axes stay auto if the auto rule on ``dims`` gives the same axis"""
        sparse = self.sparse if sparse is None else sparse
        time = _special.keep_auto_time_if_same(dims, self.time_dim_axis_or_unspecified is NotSpecified, time_axis)
        feature = _special.keep_auto_feature_if_same(
            dims, sparse, time, self.feature_dim_axis_or_unspecified is NotSpecified, feature_axis)
        return dict(time_axis=time, feature_axis=feature)

    def copy(self: Tensor, name: Optional[str] = None) -> Tensor:
        """:return: a shallow copy (same dims, same raw tensor; explicit and auto axes kept as they are)"""
        return self._new(self.dims, time_axis=self.time_dim_axis_or_unspecified,
                         feature_axis=self.feature_dim_axis_or_unspecified, placeholder=self.placeholder, name=name)

    def copy_template(self: Tensor, name: Optional[str] = None, dtype: Optional[str] = None) -> Tensor:
        """:return: same dims, no raw tensor"""
        return self._new(self.dims, time_axis=self.time_dim_axis_or_unspecified,
                         feature_axis=self.feature_dim_axis_or_unspecified, placeholder=None, name=name,
                         dtype=dtype or self.dtype)

    # ---- axis order
    def _axes_of_dims(self: Tensor, dims: Sequence[Dim]) -> List[int]:
        """:return: for each of ``dims`` a distinct axis with that dim: the same object first, then an equal dim of
        the same match priority, then any equal one

        :raises TensorArgError: a dim that is not (or not often enough) one of this tensor's dims
        """
        axes: List[Optional[int]] = [None] * len(dims)
        for same in (lambda d, t: d is t, lambda d, t: d == t and d.match_priority == t.match_priority,
                     lambda d, t: d == t):
            for i, dim in enumerate(dims):
                if axes[i] is not None:
                    continue
                axes[i] = next((a for a, d in enumerate(self.dims) if same(d, dim) and a not in axes), None)
        missing = [dims[i] for i, a in enumerate(axes) if a is None]
        if missing:
            raise TensorArgError(f"{self!r}", f"dims {missing} are not dims of this tensor")
        return [a for a in axes if a is not None]

    def copy_transpose(self: Tensor, perm: Sequence[Any]) -> Tensor:
        """:return: axes permuted: new axis ``i`` is old axis ``perm[i]`` (ints, or the dims in their new order);
        the raw tensor is transposed too"""
        if perm and all(isinstance(p, Dim) for p in perm):
            perm = self._axes_of_dims(perm)
        perm = [p % self.batch_ndim for p in perm]
        if sorted(perm) != list(range(self.batch_ndim)):
            raise TensorArgError(f"{self!r}.copy_transpose({perm})", "not a permutation of the axes")
        placeholder = self.placeholder
        if placeholder is not None and perm != list(range(self.batch_ndim)):
            placeholder = get_raw_backend().transpose(placeholder, perm)

        def new_axis(old: Optional[int]) -> Optional[int]:
            return None if old is None else perm.index(old)

        dims = [self.dims[i] for i in perm]
        return self._new(dims, **self._moved_axes(dims, new_axis(self.time_dim_axis), new_axis(self.feature_dim_axis)),
                         placeholder=placeholder)

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
        """:return: template without ``axis`` (counting batch). As the reference: a remaining time axis is kept
        explicitly; a removed time or feature axis becomes auto (derived from the remaining dims)."""
        axis %= self.batch_ndim
        dims = [d for i, d in enumerate(self.dims) if i != axis]
        time = self.time_dim_axis
        if time is None:
            new_time = self.time_dim_axis_or_unspecified
        else:
            new_time = NotSpecified if time == axis else _special.shift_for_remove(time, axis)
        feature = self.feature_dim_axis
        if feature is not None and feature == axis:
            new_feature = NotSpecified
        elif self.feature_dim_axis_or_unspecified is None:
            new_feature = None
        else:
            new_feature = _special.keep_auto_feature_if_same(
                dims, self.sparse, new_time, self.feature_dim_axis_or_unspecified is NotSpecified,
                _special.shift_for_remove(feature, axis))
        return self._new(dims, time_axis=new_time, feature_axis=new_feature, placeholder=None)

    def _excluding_with_new_time(self: Tensor, axis: int) -> Tensor:
        out = self.copy_template_excluding_axis(axis)
        if axis == self.time_dim_axis:
            out.time_dim_axis = NotSpecified  # the next dynamic axis (auto)
        return out

    def copy_template_excluding_time_dim(self: Tensor) -> Tensor:
        """:return: template without the time axis (the time axis becomes auto: the next dynamic axis)

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
        return self._new(dims, time_axis=self.time_dim_axis_or_unspecified,
                         feature_axis=self.feature_dim_axis_or_unspecified, placeholder=None)

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
                      available_for_inference=self.available_for_inference, vocab=self._vocab)

    def copy_template_new_dim_tags(self: Tensor, new_dim_tags: Sequence[Dim], name: Optional[str] = None,
                                   keep_special_axes: bool = False) -> Tensor:
        """:return: template with the given dims (the reference's name); roles kept if ``keep_special_axes``"""
        if keep_special_axes:
            return self.copy_template_new_dims(new_dim_tags, time_dim_axis=self.time_dim_axis,
                                               feature_dim_axis=self.feature_dim_axis, name=name)
        return self.copy_template_new_dims(new_dim_tags, name=name)

    # ---- adding axes
    def _insert(self: Tensor, axis: int, new_dim: Dim, *, time_axis: Any, feature_axis: Any) -> Tensor:
        """:return: copy with ``new_dim`` inserted at ``axis`` (raw tensor: a size-1 axis there), with the given
        ``time_axis``/``feature_axis`` kwargs (explicit or ``NotSpecified``)"""
        dims = list(self.dims)
        dims.insert(axis, new_dim)
        placeholder = self.placeholder
        if placeholder is not None:
            placeholder = get_raw_backend().expand_dims(placeholder, axis)
        return self._new(dims, time_axis=time_axis, feature_axis=feature_axis, placeholder=placeholder)

    def _norm_new_axis(self: Tensor, axis: int) -> int:
        return axis + self.batch_ndim + 1 if axis < 0 else axis

    def copy_add_dim(self: Tensor, axis: int, new_dim: Dim, *, as_time: bool = False,
                     as_feature: bool = False) -> Tensor:
        """:return: copy with ``new_dim`` inserted at ``axis`` (negative: counted from the end of the new axes);
        the raw tensor gets a size-1 axis there. The time and feature axes stay where they are, unless
        ``as_time``/``as_feature`` make the new axis the time/feature axis."""
        axis = self._norm_new_axis(axis)
        dims = list(self.dims)
        dims.insert(axis, new_dim)
        time = axis if as_time else _special.shift_for_insert(self.time_dim_axis, axis)
        feature = axis if as_feature else _special.shift_for_insert(self.feature_dim_axis, axis)
        return self._insert(axis, new_dim, **self._moved_axes(dims, time, feature))

    def copy_add_batch_dim(self: Tensor, batch_dim_axis: int = 0, batch: Any = None,
                           dim_tag: Optional[Dim] = None) -> Tensor:
        """:return: copy with a batch axis at ``batch_dim_axis`` (raw tensor: size 1 there); the time axis is kept
        explicitly, the feature axis stays auto if it was

        :raises TensorArgError: there already is a batch axis (as the reference)
        """
        if self.batch_dim_axis is not None:
            raise TensorArgError(f"{self!r}.copy_add_batch_dim()", f"already has a batch axis at axis "
                                 f"{self.batch_dim_axis}")
        axis = self._norm_new_axis(batch_dim_axis)
        dims = list(self.dims)
        dims.insert(axis, dim_tag or batch_dim)
        time = self.time_dim_axis
        new_time = NotSpecified if time is None else _special.shift_for_insert(time, axis)
        feature = self.feature_dim_axis_or_unspecified
        new_feature = NotSpecified if feature is None else _special.shift_for_insert(feature, axis)
        out = self._insert(axis, dim_tag or batch_dim, time_axis=new_time, feature_axis=new_feature)
        if batch is not None:
            out.batch = batch
        return out

    def copy_add_spatial_dim(self: Tensor, spatial_dim_axis: Optional[int] = None, dim: int = 1,
                             auto_time_dim_axis: bool = True) -> Tensor:
        """:return: copy with a new spatial axis ``'added_spatial'`` of size ``dim`` (default: after the last
        spatial axis); it becomes the time axis if there is none (and ``auto_time_dim_axis``). As the reference:
        an existing time axis is kept explicitly; an auto feature axis stays auto."""
        new = SpatialDim("added_spatial", dim)
        if spatial_dim_axis is None:
            axis = self.get_default_new_axis_for_dim_tag(new)
        else:
            axis = self._norm_new_axis(spatial_dim_axis)
        time = self.time_dim_axis
        if time is not None:
            new_time: Any = _special.shift_for_insert(time, axis)
        else:
            new_time = axis if auto_time_dim_axis else NotSpecified
        out = self._insert(axis, new, time_axis=new_time,
                           feature_axis=_special.shift_for_insert(self.feature_dim_axis_or_unspecified, axis))
        if dim != 1 and out.placeholder is not None:
            out.placeholder = _tile_axis(out.placeholder, out.batch_ndim, axis, dim)
        return out

    def copy_add_feature_dim(self: Tensor, axis: Optional[int] = None) -> Tensor:
        """:return: copy with a new feature axis ``'feature1'`` of size 1 (default: right after the current feature
        axis, else last), the new feature axis; a sparse tensor (no feature axis) gets a new spatial axis
        instead, as the reference"""
        if self.sparse:
            return self.copy_add_spatial_dim(axis)
        if axis is None:
            axis = self.batch_ndim if self.feature_dim_axis is None else self.feature_dim_axis + 1
        axis = self._norm_new_axis(axis)
        new = FeatureDim("feature1", 1)
        dims = list(self.dims)
        dims.insert(axis, new)
        time = self.time_dim_axis
        new_time = self.time_dim_axis_or_unspecified if time is None else _special.shift_for_insert(time, axis)
        new_feature = _special.keep_auto_feature_if_same(dims, False, new_time, True, axis)
        return self._insert(axis, new, time_axis=new_time, feature_axis=new_feature)

    def copy_add_dim_by_tag(self: Tensor, dim_tag: Dim, unbroadcast: bool = False,
                            axis: Optional[int] = None) -> Tensor:
        """:return: copy with ``dim_tag`` added at ``axis`` (default: see ``get_default_new_axis_for_dim_tag``);
        without ``unbroadcast``, a size-1 dim ``'<name>_dummy_dim1'`` is added instead (for broadcasting). A
        feature dim added to a sparse tensor becomes a spatial axis (the same dim, spatial kind), as the
        reference."""
        if dim_tag.is_batch_dim():
            return self.copy_add_batch_dim(0 if axis is None else axis, dim_tag=dim_tag)
        if axis is None:
            axis = self.get_default_new_axis_for_dim_tag(dim_tag)
        else:
            axis = self._norm_new_axis(axis)
        new = dim_tag
        if not unbroadcast and dim_tag.dimension != 1:
            new = Dim(1, description=f"{dim_tag.description}_dummy_dim1", kind=dim_tag.kind)
        if self.sparse and new.is_feature_dim():
            new = new.copy(same_as_self=True, kind=Dim.Types.Spatial)
        time = self.time_dim_axis
        if time is not None:
            new_time: Any = _special.shift_for_insert(time, axis)
        else:
            new_time = self.time_dim_axis_or_unspecified if new.is_feature_dim() else NotSpecified
        feature = self.feature_dim_axis_or_unspecified
        if feature is None and new.is_feature_dim():
            new_feature: Any = NotSpecified
        else:
            new_feature = _special.shift_for_insert(feature, axis)
        out = self._insert(axis, new, time_axis=new_time, feature_axis=new_feature)
        if unbroadcast and new.dimension != 1 and out.placeholder is not None:
            size = new.dimension if new.dimension is not None else new.get_dim_value()
            out.placeholder = _tile_axis(out.placeholder, out.batch_ndim, axis, size)
        return out

    def copy_template_adding_time_dim(self: Tensor, name: Optional[str] = None, time_dim_axis: int = 0) -> Tensor:
        """:return: template with a new dynamic time axis ``'unknown_time'`` at ``time_dim_axis``"""
        out = self.copy_add_dim(time_dim_axis, SpatialDim("unknown_time"), as_time=True)
        out.time_dim_axis = time_dim_axis  # explicit, as the reference
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
        axes = self._moved_axes(dims, self.time_dim_axis, len(dims) - 1, sparse=False)
        return Tensor(name=self.name, dims=dims, dtype="float32", time_dim_axis=axes["time_axis"],
                      feature_dim_axis=axes["feature_axis"], available_for_inference=self.available_for_inference)

    def copy_with_dtype(self: Tensor, dtype: str) -> Tensor:
        """:return: template with a different dtype (dense; sparse dim dropped unless int)"""
        sparse_dim = self.sparse_dim if dtype.startswith("int") else None
        return self._new(self.dims, **self._moved_axes(self.dims, self.time_dim_axis, self.feature_dim_axis,
                                                       sparse=sparse_dim is not None),
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
        feature = _special.keep_auto_feature_if_same(dims, False, time_axis, True, axis + 1)
        return self._new(dims, time_axis=time_axis, feature_axis=feature, placeholder=placeholder)

    def copy_compatible_to(self: Tensor, data: Tensor, add_dims: bool = True, unbroadcast: bool = False,
                           except_feature: bool = False, except_axis: Any = None, check_sparse: bool = True,
                           check_dtype: bool = True) -> Tensor:
        """:return: a copy whose axes are in the order of ``data``'s, with size-1 axes added for the dims of
        ``data`` this one lacks (or tiled to full size with ``unbroadcast``), so that the raw tensors broadcast.

        Axes are matched by dim first, then by role (batch, time, feature), then spatial axes in order.

        :raises TensorArgError: this tensor has more axes than ``data``, an axis has no counterpart, sparse or
            dtype differ (when checked); with ``unbroadcast``, the target's feature axis (``except_feature``) or
            ``except_axis`` stays a size-1 axis
        """
        from returnn.tensor._compat import copy_compatible_to
        except_axes: List[int] = []
        if except_feature and data.feature_dim_axis is not None:
            except_axes.append(data.feature_dim_axis)
        if except_axis is not None:
            except_axes.append(data.get_axis_from_description(except_axis))
        return copy_compatible_to(self, data, add_dims=add_dims, unbroadcast=unbroadcast, except_axes=except_axes,
                                  check_sparse=check_sparse, check_dtype=check_dtype)

    def copy_compatible_to_dims(self: Tensor, dims: Sequence[Dim]) -> Tensor:
        """:return: :meth:`copy_compatible_to` a tensor with exactly ``dims`` (the dtype and sparsity not
        checked): axes in the order of ``dims``, size-1 axes for the dims this one lacks"""
        from returnn.tensor.tensor import Tensor
        target = Tensor(self.name, dims=list(dims), dtype=self.dtype, sparse_dim=self.sparse_dim)
        return self.copy_compatible_to(target, check_dtype=False, check_sparse=False)

    def copy_compatible_to_dims_raw(self: Tensor, dims: Sequence[Dim]) -> Any:
        """:return: the raw tensor of :meth:`copy_compatible_to_dims`"""
        return self.copy_compatible_to_dims(dims).placeholder


def _tile_axis(raw: Any, ndim: int, axis: int, size: Any) -> Any:
    multiples: List[Any] = [1] * ndim
    multiples[axis] = size
    return get_raw_backend().tile(raw, multiples)

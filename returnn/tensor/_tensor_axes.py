"""Axis queries of :class:`returnn.tensor.Tensor` (a mixin): which axis is what, the dims of axes, shapes.

No raw tensors involved. Follows the reference's ``Data`` methods of the same names, as observed (axes count the
batch axis unless the name says ``excluding_batch`` or the reference's method counts without it, as
``get_spatial_axes``/``get_feature_axes`` do).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Tuple

from returnn.errors import AxisDescriptionError, TensorArgError
from returnn.tensor import axes as _axes
from returnn.tensor.dim import Dim

if TYPE_CHECKING:
    from returnn.tensor.tensor import Tensor


class TensorAxesMixin:
    """Axis queries; mixed into :class:`returnn.tensor.Tensor`."""

    # ---- axis descriptions (see returnn.tensor.axes)
    def get_axes_from_description(self: Tensor, axes: Any, allow_int: Optional[bool] = None) -> List[int]:
        """See :mod:`returnn.tensor.axes`."""
        return _axes.get_axes_from_description(self, axes, allow_int=allow_int)

    def get_axis_from_description(self: Tensor, axis: Any, allow_int: Optional[bool] = None) -> int:
        """See :mod:`returnn.tensor.axes`."""
        return _axes.get_axis_from_description(self, axis, allow_int=allow_int)

    def get_axes_by_tag_name(self: Tensor, name: str, spatial_only: bool = False) -> List[int]:
        """:return: axes whose dim is named ``name`` (or whose name starts with ``name + ':'``), maybe none"""
        try:
            axes = self.get_axes_from_description("stag:" + name)
        except AxisDescriptionError:
            return []
        if spatial_only:
            axes = [a for a in axes if a in self.get_spatial_batch_axes()]
        return axes

    def get_axis_by_tag_name(self: Tensor, name: str, spatial_only: bool = False) -> int:
        """:return: the one axis named ``name`` (``"stag:<name>"``)

        :raises AxisDescriptionError: none or several
        """
        axes = self.get_axes_by_tag_name(name, spatial_only=spatial_only)
        if len(axes) != 1:
            raise AxisDescriptionError("stag:" + name, tensor=repr(self),
                                       problem="matches no axis" if not axes else f"matches {len(axes)} axes {axes}")
        return axes[0]

    def get_description_from_axis(self: Tensor, axis: int) -> Any:
        """:return: ``"B"`` for the batch axis, ``"F"`` for the feature axis, else the axis' :class:`Dim` (each
        usable as an axis description)"""
        axis %= self.batch_ndim
        if axis == self.batch_dim_axis:
            return "B"
        if axis == self.feature_dim_axis:
            return "F"
        return self.dims[axis]

    def get_dim_tag_from_description(self: Tensor, axis: Any) -> Dim:
        """:return: the dim of the one axis matching ``axis``"""
        return self.dims[self.get_axis_from_description(axis)]

    # ---- dims of axes
    def get_dim_tag(self: Tensor, axis: int) -> Dim:
        """:return: the dim of ``axis`` (counting batch; negative counts from the end)"""
        return self.dims[axis]

    def get_batch_shape_dim_tags(self: Tensor) -> Tuple[Dim, ...]:
        """:return: :attr:`dims`"""
        return self.dims

    def get_batch_dim_tag(self: Tensor) -> Dim:
        """:raises TensorArgError: no batch axis"""
        if self.batch_dim_axis is None:
            raise TensorArgError(repr(self), "has no batch axis")
        return self.dims[self.batch_dim_axis]

    def get_time_dim_tag(self: Tensor) -> Dim:
        """:return: the dim of the time axis

        :raises TensorArgError: no time axis
        """
        if self.time_dim_axis is None:
            raise TensorArgError(repr(self), "has no time axis", hint="use get_dim_tag(axis) for another axis")
        return self.dims[self.time_dim_axis]

    def get_size_dim_tag(self: Tensor, number: int) -> Dim:
        """:return: the dim of the ``number``-th dynamic axis (the reference's ``size_placeholder`` order)

        :raises TensorArgError: there are not that many dynamic axes
        """
        axes = self.get_dynamic_axes()
        if not -len(axes) <= number < len(axes):
            raise TensorArgError(repr(self), f"has no dynamic axis number {number}", got=f"{len(axes)} dynamic axes")
        return self.dims[axes[number]]

    def get_dyn_size_tags(self: Tensor) -> List[Dim]:
        """:return: the dims of the dynamic axes"""
        return [self.dims[a] for a in self.get_dynamic_axes()]

    def have_dim_tag(self: Tensor, tag: Dim, include_implicit: bool = True, unique: bool = False) -> bool:
        """:return: whether ``tag`` is one of the dims (or the sparse dim, if ``include_implicit``)"""
        count = sum(1 for d in self.dims if d == tag)
        if include_implicit and self.sparse_dim is not None and self.sparse_dim == tag:
            count += 1
        return count == 1 if unique else count >= 1

    def find_matching_dims(self: Tensor, dim_tag: Dim, is_equal_opts: Optional[Dict[str, Any]] = None) -> List[int]:
        """:return: the axes whose dims match ``dim_tag`` under :meth:`returnn.tensor.Dim.is_equal` with
        ``is_equal_opts``, in axis order"""
        return [i for i, d in enumerate(self.dims) if d.is_equal(dim_tag, **(is_equal_opts or {}))]

    def find_matching_dim_map(self: Tensor, other: Tensor, other_axes: Sequence[int],
                              is_equal_opts: Optional[Dict[str, Any]] = None) -> Dict[int, int]:
        """Maps each of ``other_axes`` (axes of ``other``) to a distinct axis of this tensor with a matching dim.

        Candidates are found with ``is_equal_opts`` (default: same feature/spatial dims of equal size match, features
        count as spatial), then, if none is left, also with ``broadcast_matches`` (a size-1 dim matches) and
        ``unknown_spatial_matches``. The axes with the higher ``match_priority`` dims are mapped first, and among
        the candidates the same dim object, then a dim of the same ``match_priority`` is preferred.

        :return: other axis -> axis of this tensor
        :raises TensorArgError: an axis without a match
        """
        if is_equal_opts is None:
            is_equal_opts = dict(allow_same_feature_dim=True, allow_same_spatial_dim=True,
                                 treat_feature_as_spatial=True)
        fallback_opts = dict(is_equal_opts, broadcast_matches=True, unknown_spatial_matches=True)
        other_axes = [a % other.batch_ndim for a in other_axes]
        order = sorted(other_axes, key=lambda a: -other.dims[a].match_priority)
        mapping: Dict[int, int] = {}
        for other_axis in order:
            tag = other.dims[other_axis]
            used = set(mapping.values())
            candidates = [a for a in self.find_matching_dims(tag, is_equal_opts) if a not in used]
            if not candidates:
                candidates = [a for a in self.find_matching_dims(tag, fallback_opts) if a not in used]
            if not candidates:
                raise TensorArgError(f"{self!r}.find_matching_dim_map({other!r})",
                                     f"no matching axis for axis {other_axis} ({tag!r})")
            best = [a for a in candidates if self.dims[a] is tag]
            best = best or [a for a in candidates if self.dims[a].match_priority == tag.match_priority]
            mapping[other_axis] = (best or candidates)[0]
        return mapping

    def get_out_permutation_to_dims(self: Tensor, dims: Sequence[Dim]) -> List[int]:
        """:return: for each of ``dims``, the axis of this tensor with that dim, -1 if there is none"""
        return _permutation(self.dims, dims)

    # ---- role queries
    @property
    def is_batch_major(self: Tensor) -> bool:
        """Whether the batch axis is axis 0 (a property, as the reference)."""
        return self.batch_dim_axis == 0

    @property
    def is_time_major(self: Tensor) -> bool:
        """Whether the time axis is axis 0 (a property, as the reference)."""
        return self.time_dim_axis == 0

    @property
    def is_batch_feature_major(self: Tensor) -> bool:
        """Whether the batch axis is 0 and the feature axis 1."""
        return self.batch_dim_axis == 0 and self.feature_dim_axis == 1

    def is_same_time_dim(self: Tensor, other: Tensor) -> bool:
        """:return: whether both tensors have the same time dim"""
        return self.get_time_dim_tag() == other.get_time_dim_tag()

    def is_axis_dynamic(self: Tensor, axis: int) -> bool:
        """:return: whether ``axis`` (counting batch) is a non-batch axis without static size"""
        return self.dims[axis].is_dynamic()

    def is_time_axis_dynamic(self: Tensor) -> bool:
        """:raises TensorArgError: no time axis"""
        return self.get_time_dim_tag().is_dynamic()

    def has_dynamic_size(self: Tensor, axis: int) -> bool:
        """:return: whether the lengths of ``axis`` (counting batch) are known"""
        return self.dims[axis].dyn_size is not None

    def get_spatial_axes(self: Tensor) -> List[int]:
        """:return: :meth:`get_spatial_batch_axes` counted without the batch axis"""
        return [self.get_batch_axis_excluding_batch(a) for a in self.get_spatial_batch_axes()]

    def get_feature_batch_axes(self: Tensor) -> List[int]:
        """:return: ``[feature_dim_axis]`` (counting batch), or ``[]``"""
        return [] if self.feature_dim_axis is None else [self.feature_dim_axis]

    def get_feature_axes(self: Tensor) -> List[int]:
        """:return: :meth:`get_feature_batch_axes` counted without the batch axis"""
        return [self.get_batch_axis_excluding_batch(a) for a in self.get_feature_batch_axes()]

    def get_axes(self: Tensor, exclude_time: bool = False, exclude_batch: bool = False,
                 exclude_feature: bool = False) -> List[int]:
        """:return: all axes (counting batch), without the excluded ones"""
        excluded = {a for flag, a in ((exclude_time, self.time_dim_axis), (exclude_batch, self.batch_dim_axis),
                                      (exclude_feature, self.feature_dim_axis)) if flag and a is not None}
        return [a for a in range(self.batch_ndim) if a not in excluded]

    def get_special_axes_dict(self: Tensor, counted_with_batch_dim: bool = True,
                              only_available: bool = False) -> Dict[str, Optional[int]]:
        """:return: ``{"time_dim_axis": ..., "feature_dim_axis": ...}`` (plus ``"batch_dim_axis"`` when not
        counted with the batch axis, as the reference); None entries dropped if ``only_available``"""
        axes: Dict[str, Optional[int]] = {"time_dim_axis": self.time_dim_axis,
                                          "feature_dim_axis": self.feature_dim_axis}
        if not counted_with_batch_dim:
            axes = {k: (None if v is None else self.get_batch_axis_excluding_batch(v)) for k, v in axes.items()}
        if only_available:
            axes = {k: v for k, v in axes.items() if v is not None}
        return axes

    def get_default_new_axis_for_dim_tag(self: Tensor, dim: Dim) -> int:
        """:return: where ``copy_add_dim_by_tag`` puts ``dim``, as observed in the reference: the batch dim first;
        a feature dim right after the feature axis (last without one); a dynamic dim after the last dynamic
        spatial axis; a static dim after the last spatial axis (without such axes: right after the batch axis,
        or first)"""
        if dim.is_batch_dim():
            return 0
        if dim.is_feature_dim():
            return self.batch_ndim if self.feature_dim_axis is None else self.feature_dim_axis + 1
        spatial = self.get_spatial_batch_axes()
        if dim.dimension is None:
            spatial = [a for a in spatial if self.dims[a].dimension is None]
        if spatial:
            return spatial[-1] + 1
        return 0 if self.batch_dim_axis is None else self.batch_dim_axis + 1

    # ---- shapes
    @property
    def batch_shape_dense(self: Tensor) -> Tuple[Optional[int], ...]:
        """:attr:`batch_shape`, with the class axis appended for a sparse tensor (its one-hot form)."""
        if self.sparse:
            return self.batch_shape + (self.dim,)
        return self.batch_shape

    @property
    def shape_dense(self: Tensor) -> Tuple[Optional[int], ...]:
        """:attr:`shape`, with the class axis appended for a sparse tensor."""
        if self.sparse:
            return self.shape + (self.dim,)
        return self.shape

    @property
    def batch_ndim_dense(self: Tensor) -> int:
        return self.batch_ndim + (1 if self.sparse else 0)

    @property
    def ndim_dense(self: Tensor) -> int:
        return self.ndim + (1 if self.sparse else 0)

    @property
    def dims_set(self: Tensor) -> set:
        return set(self.dims)

    def remaining_dims(self: Tensor, remove: Optional[Any] = None) -> List[Dim]:
        """:param remove: a dim or a sequence of dims of this tensor (None or empty: none)
        :return: this tensor's dims in their order without ``remove`` (e.g. the batch dims ``[B]`` of ``[B,T,F]``
            without ``(T, F)``)
        :raises TensorArgError: a dim of ``remove`` is not one of this tensor's dims
        """
        dims = list(self.dims)
        if remove is None:
            return dims
        for dim in [remove] if isinstance(remove, Dim) else remove:
            if dim not in dims:
                raise TensorArgError(f"remaining_dims of {self!r}", f"{dim!r} is not one of its dims {dims}")
            dims.remove(dim)
        return dims

    @property
    def dim_tags_sparse(self: Tensor) -> Tuple[Dim, ...]:
        """The dims of the sparse form: all dims, without the feature axis for a dense tensor."""
        if self.sparse or self.feature_dim_axis is None:
            return self.dims
        return tuple(d for i, d in enumerate(self.dims) if i != self.feature_dim_axis)

    #: the dtype of sequence lengths (a class attribute, as the reference's: ``Data.size_dtype`` is ``"int32"``)
    size_dtype = "int32"

    def get_batch_shape(self: Tensor, batch_dim: Any) -> Tuple[Any, ...]:
        """:return: :attr:`batch_shape` with ``batch_dim`` at the batch axis"""
        return tuple(batch_dim if i == self.batch_dim_axis else s for i, s in enumerate(self.batch_shape))

    def get_bc_spatial_batch_shape(self: Tensor) -> Tuple[Optional[int], ...]:
        """:return: a shape with 1 on batch and spatial axes and the feature size on the feature axis"""
        return tuple(self.batch_shape[i] if i == self.feature_dim_axis else 1 for i in range(self.batch_ndim))

    def get_bc_shape(self: Tensor, opts: Optional[Dict[Any, Any]] = None) -> Tuple[Optional[int], ...]:
        """:return: a broadcast shape: 1 on batch and spatial axes, the feature size on the feature axis, and for
        each ``axis description -> value`` of ``opts`` that value (None: the full size) on those axes"""
        shape: List[Optional[int]] = list(self.get_bc_spatial_batch_shape())
        for desc, value in (opts or {}).items():
            for axis in self.get_axes_from_description(desc):
                shape[axis] = self.batch_shape[axis] if value is None else value
        return tuple(shape)

    # ---- names
    def get_full_name(self: Tensor) -> str:
        return self.name

    def get_scope_name(self: Tensor) -> Optional[str]:
        """:return: the name scope of the raw tensor (TF), or None without one"""
        name = getattr(self.placeholder, "name", None)
        if not isinstance(name, str) or "/" not in name:
            return None
        return name.rsplit("/", 1)[0]

    def get_batch_axes_short_description(self: Tensor) -> List[str]:
        """:return: per axis ``'B'``, ``"T|'time'[B]"``, ``"F|F'feature'(9)"``, ... as in the repr"""
        parts = []
        for i, d in enumerate(self.dims):
            prefix = "B|" if d.is_batch_dim() and d.short_repr().startswith("B'") else ""  # e.g. batch-broadcast
            if i == self.time_dim_axis:
                prefix += "T|"
            if i == self.feature_dim_axis:
                prefix += "F|"
            parts.append(prefix + d.short_repr())
        return parts


def _permutation(own: Sequence[Dim], target: Sequence[Dim]) -> List[int]:
    result: List[int] = []
    for d in target:
        axis = next((i for i, o in enumerate(own) if o == d and i not in result), -1)
        result.append(axis)
    return result

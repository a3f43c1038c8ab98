"""``Dim``: one axis of a :class:`returnn.tensor.Tensor` (batch, time/spatial, feature), without TensorFlow.

A dim is either *static* (``dimension`` is an int) or *dynamic* (``dimension`` is None; the per-sequence
lengths live in ``dyn_size``, an int32 ``[B]`` raw tensor set by the backend when the graph is built).
Two dims are the *same* axis when they share a base (:meth:`Dim.declare_same_as`), which is how
``same_time_dim_as`` in ``extern_data`` and ``reinterpret_data``'s ``size_base`` unify time axes.

Follows the reference's ``Dim`` / ``DimensionTag`` (``returnn.tensor.Dim``) in its public attributes:
``kind``, ``description``, ``dimension``, ``dyn_size``, ``is_batch_dim()``, ``is_dynamic()``,
``is_static()``, ``declare_same_as()``.
"""

from __future__ import annotations

import itertools
from typing import Any, Optional

_counter = itertools.count()


class _DimKind:
    """A dim kind, compared by identity; ``Dim.Types.Batch`` etc."""

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"Dim.Types.{self.name}"


class _Types:
    Batch = _DimKind("Batch")
    Spatial = _DimKind("Spatial")
    Time = Spatial  # the reference treats time as a spatial kind
    Feature = _DimKind("Feature")


class Dim:
    """One axis.

    :param kind: ``Dim.Types.Batch``, ``Dim.Types.Spatial`` (also time) or ``Dim.Types.Feature``
    :param description: a human-readable name, used in messages and for ``"stag:<description>"`` axis lookup
    :param dimension: static size, or None for a dynamic axis (or the batch axis)
    :param dyn_size: raw int32 ``[B]`` tensor with per-sequence lengths (dynamic axes only), may be set later
    """

    Types = _Types

    def __init__(self, dimension: Optional[int] = None, description: Optional[str] = None, *,
                 kind: _DimKind = _Types.Spatial, dyn_size: Any = None):
        if dimension is not None:
            if not isinstance(dimension, int) or isinstance(dimension, bool) or dimension < 0:
                raise TypeError(f"Dim dimension must be a non-negative int or None, got {dimension!r}")
        self.kind = kind
        self.dimension = dimension
        self.description = description or f"unnamed_dim_{next(_counter)}"
        self._dyn_size = dyn_size
        self.same_as: Optional[Dim] = None
        self.dyn_size_fn: Any = None  # optional callable() -> raw sizes, resolved lazily by the backend

    # ---- identity / unification
    def get_same_base(self) -> Dim:
        """:return: the representative of this dim's equivalence class"""
        base = self
        while base.same_as is not None:
            base = base.same_as
        return base

    def declare_same_as(self, other: Dim) -> None:
        """Unifies this dim with ``other`` (``same_time_dim_as``). Sizes set on either are shared.

        :raises ValueError: if both are static with different dimensions
        """
        base, other_base = self.get_same_base(), other.get_same_base()
        if base is other_base:
            return
        if base.dimension != other_base.dimension:
            raise ValueError(f"cannot declare {self} same as {other}: dimensions differ "
                             f"({base.dimension} vs {other_base.dimension})")
        if other_base._dyn_size is None and base._dyn_size is not None:
            other_base._dyn_size = base._dyn_size
        base.same_as = other_base

    def __eq__(self, other: Any) -> bool:
        if not isinstance(other, Dim):
            return False
        return self.get_same_base() is other.get_same_base()

    def __ne__(self, other: Any) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return id(self.get_same_base())

    # ---- sizes
    @property
    def dyn_size(self) -> Any:
        """Raw int32 ``[B]`` per-sequence lengths (dynamic dims), or None if not (yet) known."""
        base = self.get_same_base()
        if base._dyn_size is None and base.dyn_size_fn is not None:
            base._dyn_size = base.dyn_size_fn()
        return base._dyn_size

    @dyn_size.setter
    def dyn_size(self, value: Any) -> None:
        self.get_same_base()._dyn_size = value

    def is_batch_dim(self) -> bool:
        return self.kind is _Types.Batch

    def is_feature_dim(self) -> bool:
        return self.kind is _Types.Feature

    def is_spatial_dim(self) -> bool:
        return self.kind is _Types.Spatial

    def is_dynamic(self) -> bool:
        """True for a non-batch axis without a static size."""
        return self.dimension is None and not self.is_batch_dim()

    def is_static(self) -> bool:
        return self.dimension is not None

    def copy(self, *, same_as_self: bool = False, description: Optional[str] = None,
             kind: Optional[_DimKind] = None) -> Dim:
        """:return: a new dim with the same size; unified with this one if ``same_as_self``"""
        new = Dim(self.dimension, description or self.description, kind=kind or self.kind)
        if same_as_self:
            new.same_as = self
        return new

    def short_repr(self) -> str:
        """Reference-style short form, e.g. ``'time:var:extern_data:data'[B]`` or ``F'feature:data'(9)``."""
        if self.is_batch_dim():
            return "B"
        prefix = "F" if self.is_feature_dim() else ""
        size = f"({self.dimension})" if self.dimension is not None else "[B]"
        return f"{prefix}{self.description!r}{size}"

    def __repr__(self) -> str:
        return f"Dim{{{self.short_repr()}}}"


DimensionTag = Dim  # the reference's older name

batch_dim = Dim(None, "batch", kind=_Types.Batch)


def SpatialDim(description: str, dimension: Optional[int] = None) -> Dim:  # noqa: N802 (reference name)
    """:return: a new spatial (or time) dim; ``dimension`` None means dynamic"""
    return Dim(dimension, description, kind=_Types.Spatial)


def FeatureDim(description: str, dimension: Optional[int]) -> Dim:  # noqa: N802 (reference name)
    """:return: a new feature dim"""
    return Dim(dimension, description, kind=_Types.Feature)

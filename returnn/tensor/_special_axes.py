"""The time and feature axes of a :class:`returnn.tensor.Tensor`: given explicitly or derived from the dims.

A tensor stores each of the two as ``NotSpecified`` (derived from the dims whenever asked: *auto*) or as an
explicit axis (an int, or None for "none"). The rules, as observed in the reference (``Data`` version 1):

- auto time axis: the first dynamic non-batch axis whose dim is not of feature kind; else the first dynamic
  non-batch axis; else none;
- auto feature axis (dense only; a sparse tensor has none): the last non-batch, non-time axis of static size; else
  the last non-batch, non-time axis; else none. The dim kind does not matter (``[B, F'f'(5), T, 's'(3)]`` has its
  feature axis at ``'s'``).

A copy that moves axes keeps an auto axis auto when the auto rule on the new dims gives the moved axis, else it
stores the moved axis explicitly (:func:`keep_auto_if_same`).
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

from returnn.tensor.dim import Dim


class _NotSpecifiedType:
    def __repr__(self) -> str:
        return "NotSpecified"

    def __bool__(self) -> bool:
        return False

    def __reduce__(self) -> str:
        return "NotSpecified"  # pickled as a reference to the one module-level instance


NotSpecified: Any = _NotSpecifiedType()


def auto_time_axis(dims: Sequence[Dim]) -> Optional[int]:
    """:return: the auto time axis of ``dims`` (see the module docstring)"""
    dynamic = [i for i, d in enumerate(dims) if not d.is_batch_dim() and d.dimension is None]
    for i in dynamic:
        if not dims[i].is_feature_dim():
            return i
    return dynamic[0] if dynamic else None


def auto_feature_axis(dims: Sequence[Dim], sparse: bool, time_axis: Optional[int]) -> Optional[int]:
    """:return: the auto feature axis of ``dims`` given the (effective) time axis"""
    if sparse:
        return None
    candidates = [i for i, d in enumerate(dims) if not d.is_batch_dim() and i != time_axis]
    static = [i for i in candidates if dims[i].dimension is not None]
    if static:
        return static[-1]
    return candidates[-1] if candidates else None


def effective_time_axis(dims: Sequence[Dim], stored: Any) -> Optional[int]:
    """:return: ``stored`` unless it is ``NotSpecified``, then the auto time axis"""
    return auto_time_axis(dims) if stored is NotSpecified else stored


def keep_auto_time_if_same(dims: Sequence[Dim], was_auto: bool, axis: Optional[int]) -> Any:
    """:return: ``NotSpecified`` if the time axis was auto and the auto rule on ``dims`` gives ``axis``, else
    ``axis`` (to be stored explicitly)"""
    if was_auto and auto_time_axis(dims) == axis:
        return NotSpecified
    return axis


def keep_auto_feature_if_same(dims: Sequence[Dim], sparse: bool, time_stored: Any, was_auto: bool,
                              axis: Optional[int]) -> Any:
    """:return: ``NotSpecified`` if the feature axis was auto and the auto rule on ``dims`` (with the time axis
    ``time_stored``, maybe ``NotSpecified``) gives ``axis``, else ``axis``"""
    if was_auto and auto_feature_axis(dims, sparse, effective_time_axis(dims, time_stored)) == axis:
        return NotSpecified
    return axis


def shift_for_insert(axis: Any, inserted: int) -> Any:
    """:return: ``axis`` after an axis was inserted at ``inserted`` (``NotSpecified``/None unchanged)"""
    if axis is NotSpecified or axis is None:
        return axis
    return axis + 1 if axis >= inserted else axis


def shift_for_remove(axis: Optional[int], removed: int) -> Optional[int]:
    """:return: ``axis`` after the axis ``removed`` was removed (None if it was that one)"""
    if axis is None or axis == removed:
        return None
    return axis - 1 if axis > removed else axis

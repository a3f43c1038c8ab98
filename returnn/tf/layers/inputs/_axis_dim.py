"""The dim an ``axis`` argument of ``length`` and ``range_in_axis`` names."""

from __future__ import annotations

from typing import Any, Optional, Tuple

from returnn.tensor import Dim, Tensor


def axis_and_dim(src: Tensor, axis: Any) -> Tuple[Optional[int], Dim]:
    """:return: ``(axis of src, its dim)``; for a :class:`Dim` that is no axis of ``src`` (its sparse dim, or a dim
        computed from its dims such as ``time_dim + 2``, as the reference accepts): ``(None, that dim)``

    :raises returnn.errors.AxisDescriptionError: any other description matching no axis of ``src``
    """
    if isinstance(axis, Dim) and axis not in src.dims:
        return None, axis
    ax = src.get_axis_from_description(axis)
    return ax, src.dims[ax]

"""Parts of a parameter's axes (e.g. the 4 gates of an LSTM matrix, or one input part per source layer) and how
they move when the parameter changes shape (legacy ``TFUtil`` functions): ``get_param_axes_split_info``,
``set_param_axes_split_info``, ``check_param_axes_split_info``, ``transform_param_axes_split_info_to_new_shape``,
``copy_with_new_split_axes``.

An axes split info is a list with, per axis of the parameter, the sizes of its parts (summing to the axis
size), e.g. ``[[n_in], [n, n, n, n]]`` for an LSTM input matrix.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

import numpy

from returnn.tf.util.errors import TFUtilArgError

AxesSplitInfo = List[List[int]]

_ATTR = "returnn_axes_split_info"


def check_param_axes_split_info(param_shape: Sequence[Optional[int]], axes_split_info: AxesSplitInfo) -> None:
    """:param param_shape: the parameter's shape
    :param axes_split_info: per axis the sizes of its parts
    :raises TFUtilArgError: not one entry per axis, or parts not summing up to a (known) axis size"""
    if len(axes_split_info) != len(param_shape):
        raise TFUtilArgError("check_param_axes_split_info", f"expected one list of parts per axis of shape "
                                                            f"{tuple(param_shape)}, got {axes_split_info!r}")
    for dim, parts in zip(param_shape, axes_split_info):
        if dim is not None and sum(parts) != dim:
            raise TFUtilArgError("check_param_axes_split_info", f"parts {parts} do not sum up to the axis size {dim} "
                                                                f"(shape {tuple(param_shape)})")


def set_param_axes_split_info(param: Any, axes_split_info: AxesSplitInfo) -> None:
    """Attaches the split info to a parameter (a ``tf.Variable``), checked against its shape.

    :param param: the variable
    :param axes_split_info: per axis the sizes of its parts
    """
    check_param_axes_split_info(param.shape.as_list(), axes_split_info)
    setattr(param, _ATTR, [list(parts) for parts in axes_split_info])


def get_param_axes_split_info(param: Any) -> Optional[AxesSplitInfo]:
    """:param param: a variable
    :return: what :func:`set_param_axes_split_info` attached, or None"""
    return getattr(param, _ATTR, None)


def _equal_parts_map(axes_split_info: AxesSplitInfo, new_shape: Sequence[int]) -> Dict[int, int]:
    """old part size -> new part size, from axes split into 2 or more equal parts"""
    dim_map: Dict[int, int] = {}
    for parts, new_dim in zip(axes_split_info, new_shape):
        if len(parts) >= 2 and len(set(parts)) == 1 and new_dim % len(parts) == 0:
            dim_map.setdefault(parts[0], new_dim // len(parts))
    return dim_map


def transform_param_axes_split_info_to_new_shape(axes_split_info: AxesSplitInfo, new_shape: Sequence[int],
                                                 debug_name: str = "<unknown>") -> AxesSplitInfo:
    """The parts of a parameter after it got ``new_shape`` (e.g. a layer with more units), as the reference:

    - an axis with one part: that part is the new size;
    - an axis of equal parts whose new size divides evenly: each part grows/shrinks evenly; such axes also say
      how that part size changed (``[7] * 4 -> 56`` means 7 became 14);
    - other axes: from the right, parts with a size known to have changed get the new size while it fits; the
      rest keep their old size from the left as far as it fits, the last of them taking what remains.

    :param axes_split_info: per axis the old part sizes
    :param new_shape: the new shape (one int per axis)
    :param debug_name: named in errors
    :return: per axis the new part sizes (summing up to ``new_shape``)
    :raises TFUtilArgError: not one entry per axis
    """
    if len(axes_split_info) != len(new_shape):
        raise TFUtilArgError("transform_param_axes_split_info_to_new_shape",
                             f"{debug_name}: expected one list of parts per axis of {tuple(new_shape)}, got "
                             f"{axes_split_info!r}")
    dim_map = _equal_parts_map(axes_split_info, new_shape)
    res = []
    for parts, new_dim in zip(axes_split_info, new_shape):
        new_dim = int(new_dim)
        if len(parts) == 1:
            res.append([new_dim])
            continue
        if len(set(parts)) == 1 and new_dim % len(parts) == 0:
            res.append([new_dim // len(parts)] * len(parts))
            continue
        new_parts: List[Optional[int]] = [None] * len(parts)
        remaining = new_dim
        for i in reversed(range(len(parts))):
            mapped = dim_map.get(parts[i])
            if mapped is not None and mapped <= remaining:
                new_parts[i] = mapped
                remaining -= mapped
        free = [i for i, p in enumerate(new_parts) if p is None]
        for j, i in enumerate(free):
            size = remaining if j == len(free) - 1 else min(parts[i], remaining)
            new_parts[i] = size
            remaining -= size
        if remaining:  # every part was mapped: the rest goes to the last one
            new_parts[-1] += remaining
        res.append([int(p) for p in new_parts])
    return res


def copy_with_new_split_axes(old_axis_splits: AxesSplitInfo, new_axis_splits: AxesSplitInfo,
                             old_values: numpy.ndarray, new_values: Optional[numpy.ndarray] = None
                             ) -> numpy.ndarray:
    """Copies each part of ``old_values`` into the same part of the new array (its leading entries; the old
    part's leading entries if it shrank).

    :param old_axis_splits: per axis the old part sizes (summing up to ``old_values.shape``)
    :param new_axis_splits: per axis the new part sizes, the same number of parts per axis
    :param old_values: the old array
    :param new_values: the new array to fill (modified in place), default zeros
    :return: the new array
    :raises TFUtilArgError: the splits do not match the arrays or each other
    """
    old_values = numpy.asarray(old_values)
    new_shape = [sum(parts) for parts in new_axis_splits]
    check_param_axes_split_info(old_values.shape, old_axis_splits)
    if len(new_axis_splits) != len(old_axis_splits) or any(
            len(a) != len(b) for a, b in zip(old_axis_splits, new_axis_splits)):
        raise TFUtilArgError("copy_with_new_split_axes", f"old parts {old_axis_splits!r} and new parts "
                                                         f"{new_axis_splits!r} differ in number")
    if new_values is None:
        new_values = numpy.zeros(new_shape, dtype=old_values.dtype)
    else:
        check_param_axes_split_info(new_values.shape, new_axis_splits)
    # per axis: list of (old slice, new slice) for the parts
    per_axis = []
    for old_parts, new_parts in zip(old_axis_splits, new_axis_splits):
        pairs, old_off, new_off = [], 0, 0
        for old_p, new_p in zip(old_parts, new_parts):
            n = min(old_p, new_p)
            pairs.append((slice(old_off, old_off + n), slice(new_off, new_off + n)))
            old_off += old_p
            new_off += new_p
        per_axis.append(pairs)

    def copy(axis: int, old_idx: tuple, new_idx: tuple) -> None:
        if axis == len(per_axis):
            new_values[new_idx] = old_values[old_idx]
            return
        for old_s, new_s in per_axis[axis]:
            copy(axis + 1, old_idx + (old_s,), new_idx + (new_s,))

    copy(0, (), ())
    return new_values

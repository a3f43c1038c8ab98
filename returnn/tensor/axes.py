"""Axis descriptions (``"T"``, ``"F"``, ``"spatial:1"``, ``"dyn"``, a :class:`Dim`, an int, lists) → axis indices.

Pure functions over a :class:`returnn.tensor.Tensor`; no backend. Follows the reference's
``Data.get_axes_from_description`` (as observed): all axis indices count the batch axis; string forms are
case-insensitive; a list/tuple gives the union in the given order (duplicates removed).

=========================  ===============================================================
description                axes (B = batch axis, T = time axis, F = feature axis)
=========================  ===============================================================
``*``                      all axes
``B``, ``batch``           the batch axis
``T``, ``time``            the time axis (error if there is none)
``T?``                     the time axis if there is one, else none
``bt``, ``btf``, ...       the axes of each letter ``b``/``t``/``f``, in that order (the reference's old compound
                           form, e.g. ``"axes": "bt"`` of a ``reduce`` layer)
``F``, ``feature``         the feature axis (none for sparse tensors)
``spatial``                all axes except batch and feature (includes time)
``S:<i>``, ``spatial:<i>``  the i-th of ``spatial`` (negative counts from the end)
``dyn``, ``dynamic``       all non-batch axes without static size (and time)
``D:<i>``, ``dyn:<i>``     the i-th of ``dyn``
``static``                 all non-batch axes with a static size
``static:<i>``             the i-th of ``static``
``spatial_except_time``    ``spatial`` without time
``except_time``            all axes except batch and time
``except_batch``           all axes except batch
``stag:<description>``     the axis whose Dim (or its same-base Dim) has this description (or the part before its
                           first ``:``); else the one spatial axis whose dim description, or the name of the layer
                           that created the dim, contains it (error if several do)
``stag-single:<i>:<desc>``  the i-th (negative counts from the end) of the axes ``stag:<desc>`` gives
``dim:<n>``                the axes with static size ``n``
int                        that axis (negative counts from the end; counts the batch axis)
Dim                        the axis with that Dim (a batch dim: the batch axis, also a merged one)
=========================  ===============================================================

As the reference (behavior version 0), the forms that depend on the order of the axes (``S:<i>``, ``D:<i>``,
``static:<i>``, ...) print ``DEPRECATION WARNING: Do not specify axis or axes in a way that depends on the order of
the axes.`` and an int ``DEPRECATION WARNING: Do not specify axis as int but as str or Dim instead.`` (once per
process each, unless ``allow_int=True`` is passed); with ``behavior_version`` >= 7 resp. >= 5 they are errors
(:class:`returnn.util.behavior_version.BehaviorVersion.RequirementNotSatisfied`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, List, Optional

from returnn.errors import AxisDescriptionError
from returnn.tensor.dim import Dim
from returnn.tensor.search_beam import beam_variant_of

if TYPE_CHECKING:
    from returnn.tensor.tensor import Tensor


_ORDER_DEPENDENT = "Do not specify axis or axes in a way that depends on the order of the axes."
_INT_AXIS = "Do not specify axis as int but as str or Dim instead."


def _require(message: str, version: int) -> None:
    from returnn.util.behavior_version import BehaviorVersion
    BehaviorVersion.require(False, message, version)


def _pick(tensor: Tensor, axes: List[int], index: int, description: Any) -> List[int]:
    if not -len(axes) <= index < len(axes):
        raise AxisDescriptionError(description, tensor=repr(tensor),
                                   problem=f"is out of range (there are {len(axes)} such axes: {axes})")
    return [axes[index]]


def _spatial(tensor: Tensor) -> List[int]:
    return [i for i in range(tensor.batch_ndim) if i != tensor.batch_dim_axis and i != tensor.feature_dim_axis]


def _dynamic(tensor: Tensor) -> List[int]:
    return [i for i, d in enumerate(tensor.dims)
            if i != tensor.batch_dim_axis and (d.dimension is None or i == tensor.time_dim_axis)]


def _static(tensor: Tensor) -> List[int]:
    return [i for i, d in enumerate(tensor.dims) if i != tensor.batch_dim_axis and d.dimension is not None]


def mark_dims_created_by(layer_name: str, output: Tensor, known: Any) -> None:
    """Notes ``layer_name`` as the creator of the dims of ``output`` that are not in ``known`` (the dims of the
    layer's inputs) and have no creator yet, for ``"stag:<name>"``: the reference also finds a dim by the name of
    the layer that made it (e.g. ``"stag:lstm"`` for the time axis downsampled by a pool layer ``lstm0_pool``)."""
    known = set(known)
    for d in output.dims:
        if d.is_batch_dim() or d in known:
            continue
        base = d.get_same_base()
        if base.__dict__.get("_created_by_layer") is None:
            base.__dict__["_created_by_layer"] = layer_name


def _stag_substring(tensor: Tensor, name: str, orig: Any) -> List[int]:
    """The reference's looser ``stag`` match (observed): ``name`` is a substring of the description of exactly one
    spatial axis (not batch, not a static feature axis: a dynamic feature axis counts, as the reference's spatial
    axes, observed: ``stag:extern_data:data`` finds ``F|'time:var:extern_data:data+1'``), or of the name of the
    layer that created its dim.

    :raises AxisDescriptionError: several axes match ("not unique", as the reference)"""
    found = []
    spatial = [i for i in range(tensor.batch_ndim) if i != tensor.batch_dim_axis
               and (i != tensor.feature_dim_axis or tensor.dims[i].dimension is None)]
    for i in spatial:
        d = tensor.dims[i]
        texts = {d.description, d.get_same_base().description, d.get_same_base().__dict__.get("_created_by_layer")}
        if any(name in t for t in texts if t):
            found.append(i)
    if len(found) > 1:
        raise AxisDescriptionError(orig, tensor=repr(tensor), problem=f"is not unique: the axes {found} match")
    return found


def _one_string(tensor: Tensor, description: str, orig: Any) -> List[int]:
    desc = description.strip()
    low = desc.lower()
    all_axes = list(range(tensor.batch_ndim))
    if low == "*":
        return all_axes
    if low in ("b", "batch"):
        return [] if tensor.batch_dim_axis is None else [tensor.batch_dim_axis]
    if low in ("t", "time"):
        if tensor.time_dim_axis is None:
            raise AxisDescriptionError(orig, tensor=repr(tensor),
                                       problem="matches no axis: the tensor has no time axis")
        return [tensor.time_dim_axis]
    if low == "t?":
        return [] if tensor.time_dim_axis is None else [tensor.time_dim_axis]
    if low in ("f", "feature"):
        return [] if tensor.feature_dim_axis is None else [tensor.feature_dim_axis]
    if low == "spatial":
        return _spatial(tensor)
    if low in ("dyn", "dynamic"):
        return _dynamic(tensor)
    if low == "static":
        return _static(tensor)
    if low == "spatial_except_time":
        return [i for i in _spatial(tensor) if i != tensor.time_dim_axis]
    if low == "except_time":
        return [i for i in all_axes if i not in (tensor.batch_dim_axis, tensor.time_dim_axis)]
    if low == "except_batch":
        return [i for i in all_axes if i != tensor.batch_dim_axis]
    if len(low) > 1 and set(low) <= set("btf"):  # compound: one axis (set) per letter, in order
        return get_axes_from_description(tensor, list(low))
    if ":" in low:
        prefix, _, rest = desc.partition(":")
        prefix = prefix.lower()
        if prefix == "stag-single":  # "stag-single:<i>:<name>": the i-th of the axes "stag:<name>" matches
            index, _, name = rest.partition(":")
            try:
                number = int(index)
            except ValueError:
                raise AxisDescriptionError(orig, tensor=repr(tensor),
                                           problem="is not valid: 'stag-single:<int>:<name>' expected") from None
            return _pick(tensor, _one_string(tensor, "stag:" + name, orig), number, orig)
        if prefix == "stag":
            names = [{d.description, d.get_same_base().description} - {None} for d in tensor.dims]
            found = [i for i, n in enumerate(names) if rest in n]
            if not found:  # the reference also matches the name part before the first ':' ("stag:time")
                found = [i for i, n in enumerate(names) if rest in {x.split(":")[0] for x in n}]
            if not found:
                found = _stag_substring(tensor, rest, orig)
            if not found:
                raise AxisDescriptionError(orig, tensor=repr(tensor), problem="matches no axis (no dim with that name)")
            return found
        try:
            number = int(rest)
        except ValueError:
            number = None
        if number is not None and prefix in ("s", "spatial", "d", "dyn", "dynamic", "static"):
            _require(_ORDER_DEPENDENT, 7)
        if number is not None:
            if prefix in ("s", "spatial"):
                return _pick(tensor, _spatial(tensor), number, orig)
            if prefix in ("d", "dyn", "dynamic"):
                return _pick(tensor, _dynamic(tensor), number, orig)
            if prefix == "static":
                return _pick(tensor, _static(tensor), number, orig)
            if prefix == "dim":
                return [i for i, d in enumerate(tensor.dims) if i != tensor.batch_dim_axis and d.dimension == number]
    raise AxisDescriptionError(orig, tensor=repr(tensor), problem="is not a valid axis description")


def get_axes_from_description(tensor: Tensor, axes: Any, *, allow_int: Optional[bool] = None) -> List[int]:
    """:return: axis indices (counting the batch axis), in order, without duplicates

    :param allow_int: True: ints are fine; False: an int is an error; None (default): ints are deprecated (see the
        module doc), as the reference's default

    :raises AxisDescriptionError: for an unknown form, an out-of-range index, ``"T"`` without time axis,
        a Dim not in the tensor
    """
    if axes is None:
        return []
    if isinstance(axes, (list, tuple)):
        result: List[int] = []
        for item in axes:
            for axis in get_axes_from_description(tensor, item, allow_int=allow_int):
                if axis not in result:
                    result.append(axis)
        return result
    if isinstance(axes, Dim):
        found = [i for i, d in enumerate(tensor.dims) if d == axes]
        if not found and axes.is_batch_dim() and tensor.batch_dim_axis is not None:
            found = [tensor.batch_dim_axis]  # a batch dim names the batch axis, also a merged one (B&Packed{T})
        if not found:  # a dim also names its variant for the hypotheses of a search (one dim in the reference)
            found = [i for i, d in enumerate(tensor.dims) if beam_variant_of(d) == axes]
        if not found:
            raise AxisDescriptionError(axes, tensor=repr(tensor), problem="matches no axis (dim not in tensor)")
        if len(found) > 1:  # the same Dim twice (e.g. a square matrix): the highest match_priority wins
            top = max(tensor.dims[i].match_priority for i in found)
            found = [i for i in found if tensor.dims[i].match_priority == top]
            if len(found) > 1:
                raise AxisDescriptionError(axes, tensor=repr(tensor), problem=f"matches the axes {found}: a matching "
                                           "dim must be unique, use `match_priority` to resolve the matching order "
                                           "of ambiguous dimensions")
        return found
    if isinstance(axes, bool):
        raise AxisDescriptionError(axes, tensor=repr(tensor), problem="is not a valid axis description")
    if isinstance(axes, int):
        if allow_int is False:
            raise AxisDescriptionError(axes, tensor=repr(tensor), problem="is an int, which is not allowed here")
        if allow_int is None:
            _require(_INT_AXIS, 5)
        if not -tensor.batch_ndim <= axes < tensor.batch_ndim:
            raise AxisDescriptionError(axes, tensor=repr(tensor), problem=f"is out of range (ndim {tensor.batch_ndim})")
        return [axes % tensor.batch_ndim]
    if isinstance(axes, str):
        return _one_string(tensor, axes, axes)
    raise AxisDescriptionError(axes, tensor=repr(tensor), problem="is not a valid axis description")


def get_axis_from_description(tensor: Tensor, axis: Any, *, allow_int: Optional[bool] = None) -> int:
    """:return: the single axis index matching ``axis``

    :raises AxisDescriptionError: if it matches no axis or more than one
    """
    axes = get_axes_from_description(tensor, axis, allow_int=allow_int)
    if len(axes) != 1:
        problem = "matches no axis" if not axes else f"matches {len(axes)} axes {axes}, expected exactly one"
        raise AxisDescriptionError(axis, tensor=repr(tensor), problem=problem)
    return axes[0]

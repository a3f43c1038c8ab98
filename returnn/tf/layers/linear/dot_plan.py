"""Which axes a ``dot`` layer reduces, keeps in common and keeps per input (see :mod:`.dot` for the arguments).

Two ways to say it, as the reference (observed):

- ``reduce`` (or ``red1``/``red2``) without ``var1``/``var2`` (with ``behavior_version >= 3``, or ``"auto"``):
  the reduced axes are found by Dim (or description) in each input; every other axis of ``a`` whose Dim is also
  in ``b`` is common (batch with batch), all remaining axes are free (``var1`` of ``a``, ``var2`` of ``b``). Dims
  are matched only as the same Dim: two different Dims of the same size (``feat(5)``, ``other-feat(5)``) or a
  dim and one derived from it (``T``, ``2*T``) stay separate axes.
- explicit ``var1`` and ``var2`` (or the old defaults ``red1=-1, red2=-2, var1=-2, var2=-1``): the axes listed
  neither as reduced nor as free are common and are paired batch with batch, same Dim with itself, then a
  remaining static axis with one of the same size (see :func:`match_common`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, List, Optional, Sequence, Tuple

import tensorflow as tf

from returnn.errors import LayerArgError, LayerShapeError
from returnn.tensor import Dim, Tensor
from returnn.util.behavior_version import BehaviorVersion
from returnn.util.values import NotSpecified

AUTO = "auto"


@dataclass
class DotArgs:
    """The resolved axis arguments of one ``dot`` layer."""

    red1: Any
    red2: Any
    var1: Any
    var2: Any
    auto: bool  # common and free axes found by Dim (var1/var2 not given, or "auto")
    add_var2_if_empty: bool


@dataclass
class DotPlan:
    """Axis indices (counting the batch axis) of both inputs."""

    red_a: List[int]
    red_b: List[int]
    common: List[Tuple[int, int]]  # (axis of a, axis of b), in the order of a
    var_a: List[int]
    var_b: List[int]
    add_dummy: bool

    def out_dims(self, a: Tensor, b: Tensor) -> List[Dim]:
        """:return: ``[common..., var1..., var2...]`` (the common axes with ``a``'s Dims), without the dummy"""
        return [a.dims[i] for i, _ in self.common] + [a.dims[i] for i in self.var_a] + [b.dims[j] for j in self.var_b]


def _has_int(desc: Any) -> bool:
    if isinstance(desc, (list, tuple)):
        return any(_has_int(d) for d in desc)
    return isinstance(desc, int) and not isinstance(desc, bool)


def resolve_args(name: str, reduce: Any, red1: Any, red2: Any, var1: Any, var2: Any,
                 add_var2_if_empty: Any) -> DotArgs:
    """The reference's defaults: ``reduce`` sets both ``red1`` and ``red2``; unspecified reduce axes fall back to
    ``-1``/``-2`` (deprecated, an error with ``behavior_version >= 3``); unspecified ``var1``/``var2`` are
    ``"auto"`` with ``behavior_version >= 3``, else ``-2``/``-1``; ``add_var2_if_empty`` defaults to True only
    in the explicit mode below ``behavior_version`` 3, and setting it True is deprecated (an error from 3 on).

    :raises LayerArgError: ``reduce`` together with ``red1``/``red2``; only one of ``var1``/``var2`` automatic
    :raises BehaviorVersion.RequirementNotSatisfied: the deprecated forms above, or int axes, with
        ``behavior_version >= 3``
    """
    ns = NotSpecified
    if reduce is not ns:
        if red1 is not ns or red2 is not ns:
            raise LayerArgError(layer=name, layer_class="dot", arg="reduce", problem="is given together with red1/red2:",
                                expected="either reduce (the same axes in both inputs) or red1 and red2",
                                got=f"reduce={reduce!r}, red1={red1!r}, red2={red2!r}")
        red1 = red2 = reduce
    else:
        if red1 is ns or red2 is ns:
            BehaviorVersion.require(False, "DotLayer: Axes must be specified explicitly. There is no default.", 3)
        red1 = -1 if red1 is ns else red1
        red2 = -2 if red2 is ns else red2
    new_defaults = BehaviorVersion.get() >= 3
    var1 = (AUTO if new_defaults else -2) if var1 is ns else var1
    var2 = (AUTO if new_defaults else -1) if var2 is ns else var2
    if (var1 == AUTO) != (var2 == AUTO):
        raise LayerArgError(layer=name, layer_class="dot", arg="var1", problem="and var2 must both be automatic or "
                            "both be given:", expected="neither var1 nor var2 (or both 'auto'), or both",
                            got=f"var1={var1!r}, var2={var2!r}")
    auto = var1 == AUTO
    user_axes = [x for x in (reduce, red1, red2, var1, var2) if x is not ns and x != AUTO]
    if any(_has_int(x) for x in user_axes):
        BehaviorVersion.require(False, "DotLayer: Axes must be referenced by tag or special specified, not by int.", 3)
    if add_var2_if_empty is ns:
        add_var2_if_empty = not auto and not new_defaults
    elif add_var2_if_empty:
        BehaviorVersion.require(False, "DotLayer: add_var2_if_empty not allowed", 3)
    return DotArgs(red1=red1, red2=red2, var1=var1, var2=var2, auto=auto, add_var2_if_empty=bool(add_var2_if_empty))


def _axes(data: Tensor, desc: Any) -> List[int]:
    if desc is None:
        return []
    if isinstance(desc, (list, tuple)):
        return [a for d in desc for a in data.get_axes_from_description(d, allow_int=True)]
    return data.get_axes_from_description(desc, allow_int=True)


def _same_size(da: Dim, db: Dim) -> bool:
    """Reduce axes pair up if they are the same Dim, or both static of the same size (a dynamic axis only with
    itself, as the reference: two time axes of different lengths are rejected)."""
    if da == db:
        return True
    return da.dimension is not None and da.dimension == db.dimension


def _same_dim(da: Dim, db: Dim) -> bool:
    return da == db or (da.is_batch_dim() and db.is_batch_dim())


def match_common(a: Tensor, b: Tensor, common_a: List[int], common_b: List[int], name: str) -> List[Tuple[int, int]]:
    """Pairs each common axis of ``a`` with one of ``b``: batch/same Dim first, then static axes of equal size in
    order. :raises LayerShapeError: an axis left without counterpart on either side"""
    match = {}
    free_b = list(common_b)
    for i in common_a:
        j = next((j for j in free_b if _same_dim(a.dims[i], b.dims[j])), None)
        if j is not None:
            match[i] = j
            free_b.remove(j)
    for i in common_a:
        da = a.dims[i]
        if i in match or da.dimension is None or da.is_batch_dim():
            continue
        j = next((j for j in free_b if b.dims[j].dimension == da.dimension and not b.dims[j].is_batch_dim()), None)
        if j is not None:
            match[i] = j
            free_b.remove(j)
    for i in common_a:
        if i not in match:
            raise LayerShapeError(layer=name, layer_class="dot", problem=f"axis {a.dims[i].short_repr()} of the first "
                                  "input has no counterpart in the second", got=b.get_dims_repr(),
                                  hint="list it in var1, or reduce it with red1")
    if free_b:
        raise LayerShapeError(layer=name, layer_class="dot", problem="the second input has unmatched axes",
                              got=b.get_dims_repr(), hint="list them in var2")
    return [(i, match[i]) for i in common_a]


def make_plan(a: Tensor, b: Tensor, args: DotArgs, name: str, loop_dim: Optional[Dim] = None) -> DotPlan:
    """:param loop_dim: for a layer a rec unit moved out of its loop: the loop's dim. In the explicit mode, where
        only one input has it (not named in red/var), it is a free axis of that input (appended to its var axes),
        as the reference (observed): the same layer in the loop did not see it
    :raises LayerShapeError: reduce axes that do not pair up, or (explicit mode) unmatched common axes
    :raises AxisDescriptionError: an axis description or Dim that is not in its input (or not unique there)"""
    ra, rb = _axes(a, args.red1), _axes(b, args.red2)
    if len(ra) != len(rb) or any(not _same_size(a.dims[i], b.dims[j]) for i, j in zip(ra, rb)):
        raise LayerShapeError(layer=name, layer_class="dot", problem="reduce axes do not match",
                              expected=f"red1 of {a.get_dims_repr()} matching red2 of {b.get_dims_repr()} "
                                       "(pairwise of the same size)",
                              got=f"red1={args.red1!r}, red2={args.red2!r}")
    if args.auto:
        free_b = [j for j in range(b.batch_ndim) if j not in rb]
        common, va = [], []
        for i in range(a.batch_ndim):
            if i in ra:
                continue
            j = next((j for j in free_b if _same_dim(a.dims[i], b.dims[j])), None)
            if j is None:
                va.append(i)
            else:
                common.append((i, j))
                free_b.remove(j)
        return DotPlan(red_a=ra, red_b=rb, common=common, var_a=va, var_b=free_b, add_dummy=False)
    va, vb = _axes(a, args.var1), _axes(b, args.var2)
    for data, red, var, arg in ((a, ra, va, "var1"), (b, rb, vb, "var2")):
        if set(red) & set(var):
            raise LayerShapeError(layer=name, layer_class="dot", problem=f"{arg} names a reduced axis",
                                  got=f"{[data.dims[k].short_repr() for k in sorted(set(red) & set(var))]} "
                                      f"of {data.get_dims_repr()}",
                                  hint="leave var1/var2 out to take the free axes automatically")
    common_a = [i for i in range(a.batch_ndim) if i not in ra and i not in va]
    common_b = [j for j in range(b.batch_ndim) if j not in rb and j not in vb]
    if loop_dim is not None:
        loop_a = [i for i in common_a if a.dims[i] == loop_dim]
        loop_b = [j for j in common_b if b.dims[j] == loop_dim]
        if loop_a and not loop_b:
            common_a = [i for i in common_a if i not in loop_a]
            va = va + loop_a
        elif loop_b and not loop_a:
            common_b = [j for j in common_b if j not in loop_b]
            vb = vb + loop_b
    pairs = match_common(a, b, common_a, common_b, name)
    return DotPlan(red_a=ra, red_b=rb, common=pairs, var_a=va, var_b=vb, add_dummy=not vb and args.add_var2_if_empty)


def default_axes(dims: Sequence[Dim], time_of_inputs: Sequence[Optional[Dim]] = ()) -> Tuple[Any, Any]:
    """:param time_of_inputs: the inputs' time dims: without a dynamic axis, the first of them that ``dims`` has is
        the time axis (as the reference, observed: static ``{B, T|46, F}`` keeps ``T``)
    :return: (time axis, feature axis) as the reference's defaults for the dot output"""
    time_axis = next((k for k, d in enumerate(dims) if d.dimension is None and not d.is_batch_dim()), None)
    if time_axis is None:
        time_axis = next((list(dims).index(d) for d in time_of_inputs if d is not None and d in dims), None)
    rest = [k for k, d in enumerate(dims) if not d.is_batch_dim() and k != time_axis]
    static = [k for k in rest if dims[k].dimension is not None]
    feat = static[-1] if static else (rest[-1] if rest else None)
    return time_axis, feat


def dense_input(data: Tensor) -> Tensor:
    """:return: ``data`` itself, or for sparse class indices their one-hot float32 form with ``sparse_dim`` last
    (the raw tensor only where ``data`` has one)"""
    if not data.sparse:
        return data
    out = Tensor(name=f"{data.name}_one_hot", dims=list(data.dims) + [data.sparse_dim], dtype="float32")
    if data.placeholder is not None:
        out.placeholder = tf.one_hot(data.placeholder, depth=data.sparse_dim.dimension, dtype=tf.float32)
    return out


def length_mask(data: Tensor, axis: int) -> Optional[tf.Tensor]:
    """:return: bool mask broadcastable to ``data.placeholder``, True on the valid frames of the dynamic
        ``axis``; its lengths may depend on any of ``data``'s dims (``dyn_size_ext``, e.g. ``[B]`` or
        ``[classes]``). None where the lengths are not known or depend on a dim ``data`` does not have."""
    ext = data.dims[axis].dyn_size_ext
    if ext is None or ext.placeholder is None:
        return None
    ext_axes = []
    for d in ext.dims:
        k = next((k for k, dd in enumerate(data.dims) if k not in ext_axes and _same_dim(dd, d)), None)
        if k is None or k == axis:
            return None
        ext_axes.append(k)
    order = sorted(range(len(ext_axes)), key=lambda n: ext_axes[n])
    lengths = ext.placeholder
    if order != list(range(len(order))):
        lengths = tf.transpose(lengths, order)
    for k in range(data.batch_ndim):
        if k not in ext_axes:
            lengths = tf.expand_dims(lengths, k)
    idx = tf.reshape(tf.range(tf.shape(data.placeholder)[axis]), [-1 if k == axis else 1 for k in range(data.batch_ndim)])
    return tf.less(idx, tf.cast(lengths, idx.dtype))

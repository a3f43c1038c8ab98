"""Elementwise combination of several inputs with different axes (``combine``, ``eval``, ``compare``, ``switch``).

Axes are matched by Dim identity first, then by role (batch ↔ batch, time ↔ time, feature ↔ feature of the same
size, as the reference's default behaviour does; else a feature axis with the first axis of its size; from
``behavior_version`` 16 two different static dims only so when both are auto-generated), then static
size-1 axes broadcast against anything. Axes that
match nothing are added to the output. The output axis order is that of the input with the most axes.

When every input lacks some axis of the output (e.g. ``[B,T1,F]`` and ``[B,T2,F]`` give ``[B,T1,T2,F]``), the
broadcasting must be allowed explicitly, as the reference (``behavior_version >= 4``; a deprecation warning
below): ``allow_broadcast_all_sources=True``, or an ``out_shape`` for the layer.

Where an output axis is an undefined dim (:attr:`returnn.tensor.Dim.undefined`, e.g. ``Tensor(shape=(None, 3))``
without lengths) and a matched input axis is defined, the output takes the defined one, as the reference.
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence

import tensorflow as tf

from returnn.errors import LayerShapeError
from returnn.tensor import Dim, Tensor
from returnn.util.behavior_version import BehaviorVersion


def match_axes(src: Tensor, out: Tensor, *, name: str = "?", layer_class: str = "?",
               declared: Sequence[Dim] = (), keep_apart: Sequence[Dim] = ()) -> List[Optional[int]]:
    """:param declared: dims the layer's ``out_shape`` lists: two different ones of them are never matched by role
    :param keep_apart: dims never matched by role with another dim (see :func:`loop_dims_of`)
    :return: for each axis of ``src`` the axis of ``out`` it corresponds to, or None (new axis)"""
    used: set = set()
    result: List[Optional[int]] = [None] * src.batch_ndim
    # pass 1: identity
    for i, d in enumerate(src.dims):
        for j, od in enumerate(out.dims):
            if j not in used and d == od:
                result[i] = j
                used.add(j)
                break
    # pass 2: roles
    for i, d in enumerate(src.dims):
        if result[i] is not None:
            continue
        j = None
        if i == src.time_dim_axis and out.time_dim_axis is not None and out.time_dim_axis not in used:
            if not _distinct_dynamic_dims(d, out.dims[out.time_dim_axis]) \
                    and not _both_declared(d, out.dims[out.time_dim_axis], declared) \
                    and not _one_kept_apart(d, out.dims[out.time_dim_axis], keep_apart):
                j = out.time_dim_axis
        elif i == src.feature_dim_axis and out.feature_dim_axis is not None and out.feature_dim_axis not in used \
                and out.dims[out.feature_dim_axis].dimension == d.dimension \
                and _may_match_by_size(d, out.dims[out.feature_dim_axis]):
            j = out.feature_dim_axis
        elif d.dimension is not None:
            same = [k for k, od in enumerate(out.dims) if k not in used and od.dimension == d.dimension
                    and not od.is_batch_dim() and k not in (out.time_dim_axis,) and _may_match_by_size(d, od)]
            if len(same) == 1 and i != src.feature_dim_axis:
                j = same[0]
            elif same and i == src.feature_dim_axis:
                # as the reference (observed): a feature axis whose size differs from the output's feature axis
                # goes to the first other axis of its size ((5,5,3) + (5,): the first 5)
                j = same[0]
        if j is not None:
            result[i] = j
            used.add(j)
    return result


def _may_match_by_size(a: Dim, b: Dim) -> bool:
    """:return: whether two different static dims of the same size may be matched by their role or size: as the
    reference, from ``behavior_version`` 16 only when both are auto-generated (a layer's ``'lin:feature-dense'``, an
    extern data's ``'feature:data'``), not when either is a dim the user declared (``FeatureDim("feat", 3)``)"""
    return BehaviorVersion.get() < 16 or (a.auto_generated and b.auto_generated)


def loop_dims_of(network: Any) -> List[Dim]:
    """:return: ``[the dim of the enclosing rec loop]`` for a network of a rec unit (the loop's step or the layers moved
        out of it), else ``[]``. Moved out of the loop, a layer combining a frame of the loop (now over the loop's time,
        e.g. an embedding of ``prev:output`` ``{T_dec, B, F}``) with a layer outside it (e.g. the encoder
        ``{B, T_enc, F}``) keeps both time axes, as in the loop, where the frame has no loop time: as the reference
        (observed: ``{B, T_enc, T_dec, F}``)"""
    get = getattr(network, "get_inside_rec_time_dim", None)
    dim = get(inside_loop=False) if get is not None else None
    return [dim] if dim is not None else []


def _one_kept_apart(a: Dim, b: Dim, keep_apart: Sequence[Dim]) -> bool:
    """:return: whether one of two dims of different roots is (derived from) a dim of ``keep_apart``"""
    if not keep_apart:
        return False
    root_a, root_b = _root_dim(a), _root_dim(b)
    if root_a == root_b:
        return False
    roots = [_root_dim(k) for k in keep_apart]
    return any(root_a == k or root_b == k for k in roots)


def _both_declared(a: Dim, b: Dim, declared: Sequence[Dim]) -> bool:
    """:return: whether the two (different) dims are both in ``declared`` (an ``out_shape``): the output has both"""
    return any(a == d for d in declared) and any(b == d for d in declared)


def declared_dims(out_shape: Any) -> List[Dim]:
    """:return: the plain dims of an ``out_shape`` (a set of dims, marked dims, ``OptionalDim``), [] for None"""
    if not out_shape:
        return []
    return [d for d in (getattr(item, "tag", item) for item in out_shape) if isinstance(d, Dim)]


def _distinct_dynamic_dims(a: Dim, b: Dim) -> bool:
    """:return: whether two time axes are different dynamic axes, each with its own lengths (e.g. the input's and
    the target's time, or the encoder's and a decoder's): as the reference, they are not matched by their role but
    both kept (a combination of the two spans both). Dims derived from the same dim (e.g. ``T`` and the ``T + 2 - 2``
    of a padding and a convolution) still match by role."""
    root_a, root_b = _root_dim(a), _root_dim(b)
    if a.dimension is not None or b.dimension is not None or root_a == root_b:
        return False
    # lengths of their own: different extern data axes (the network's length placeholders) or dims derived from them
    if _is_length_placeholder(root_a.dyn_size) and _is_length_placeholder(root_b.dyn_size):
        return True
    # two different dims the user declared (e.g. the extern time and a ``SpatialDim("extra_time")`` set by
    # ``reinterpret_data``): as the reference, only the same dim (or one derived from it) matches
    return not root_a.undefined and not root_b.undefined and _user_declared(root_a) and _user_declared(root_b)


def _user_declared(dim: Dim) -> bool:
    """:return: whether ``dim`` was created by the user (a config dim), not generated by a layer"""
    return not dim.auto_generated


def _is_length_placeholder(size: Any) -> bool:
    return isinstance(size, tf.Tensor) and size.op.type == "Placeholder"


def _root_dim(dim: Dim) -> Dim:
    """:return: the dim ``dim`` was derived from (by arithmetic, a beam's tiling, ...), transitively"""
    seen = set()
    while dim.derived_from_tag is not None and id(dim) not in seen:
        seen.add(id(dim))
        dim = dim.derived_from_tag
    return dim


def common_template(sources: Sequence[Tensor], *, name: str, layer_class: str = "?",
                    dtype: Optional[str] = None, allow_broadcast_all_sources: bool = True,
                    out_shape: Any = None, keep_apart: Sequence[Dim] = ()) -> Tensor:
    """:return: template over the union of the sources' axes (see module doc); two time axes that the layer's
        ``out_shape`` both lists are kept both (as the reference, which matches dims by identity there)

    :param allow_broadcast_all_sources: False: every source lacking an output axis is deprecated (an error with
        ``behavior_version >= 4``, see the module doc)
    :param keep_apart: dims never matched by role with another dim (:func:`loop_dims_of` the layer's network)
    :raises LayerShapeError: if an input has two axes mapping to the same output axis, or static sizes conflict
    :raises BehaviorVersion.RequirementNotSatisfied: all sources need broadcasting and that is not allowed
    """
    if not sources:
        raise LayerShapeError(layer=name, layer_class=layer_class, problem="needs at least one source")
    base_idx = max(range(len(sources)), key=lambda k: (sources[k].batch_ndim, -k))
    out = sources[base_idx].copy_template(name=f"{name}_output")
    declared = declared_dims(out_shape)
    for src in sources:
        mapping = match_axes(src, out, name=name, layer_class=layer_class, declared=declared, keep_apart=keep_apart)
        for i, j in enumerate(mapping):
            d = src.dims[i]
            if j is None:
                if d.dimension == 1:
                    continue  # broadcasts
                # as the reference: a new dynamic axis goes before the feature axis, others at the end
                pos = out.feature_dim_axis if d.dimension is None and out.feature_dim_axis is not None \
                    else out.batch_ndim
                out = out.copy_add_dim(pos, d, as_time=(i == src.time_dim_axis and out.time_dim_axis is None))
            else:
                od = out.dims[j]
                if od.dimension is not None and d.dimension is not None and od.dimension != d.dimension \
                        and 1 not in (od.dimension, d.dimension):
                    raise LayerShapeError(layer=name, layer_class=layer_class,
                                          problem="inputs cannot be broadcast together (static sizes differ)",
                                          expected=repr(out), got=repr(src))
                if od.dimension == 1 and d.dimension not in (None, 1):
                    out = out.copy_template_replace_dim(j, d)
                elif od.undefined and not d.undefined:  # as the reference: the dim with defined lengths is kept
                    out = out.copy_template_replace_dim(j, d)
    if not allow_broadcast_all_sources and len(sources) > 1:
        _require_one_complete_source(sources, out)
    if dtype is not None:
        out.dtype = dtype
    if not all(s.available_for_inference for s in sources):  # as the reference's combine (observed)
        out.available_for_inference = False
    if any(s.sparse for s in sources) and not all(s.sparse for s in sources):
        out.sparse_dim = None
    return out


def _require_one_complete_source(sources: Sequence[Tensor], out: Tensor) -> None:
    """:raises BehaviorVersion.RequirementNotSatisfied: (``behavior_version >= 4``) no source has all axes of
    ``out`` (a deprecation warning below), with the reference's message"""
    def complete(src: Tensor) -> bool:
        return len({j for j in match_axes(src, out) if j is not None}) == out.batch_ndim
    if any(complete(src) for src in sources):
        return
    listing = "\n".join(f" - {src!r}" for src in sources)
    BehaviorVersion.require(False, f"All inputs\n{listing}\nrequire broadcasting to \n  {out!r}.\n"
                                   "This must be explicitly allowed, e.g. by specifying out_shape.", 4)


def align_raw(src: Tensor, out: Tensor, *, name: str = "?", layer_class: str = "?") -> tf.Tensor:
    """:return: raw tensor of ``src`` transposed/expanded so that it broadcasts against ``out``'s raw tensor"""
    mapping = match_axes(src, out, name=name, layer_class=layer_class)
    raw = src.placeholder
    # drop size-1 axes that map nowhere
    keep = [i for i, j in enumerate(mapping) if j is not None]
    drop = [i for i, j in enumerate(mapping) if j is None]
    if drop:
        raw = tf.squeeze(raw, axis=drop)
    targets = [mapping[i] for i in keep]
    order = sorted(range(len(targets)), key=lambda k: targets[k])
    if order != list(range(len(targets))):
        raw = tf.transpose(raw, order)
    sorted_targets = sorted(targets)
    if len(sorted_targets) == out.batch_ndim:
        return raw
    # Static sizes where known: no shape/slice ops for them (graph building time; e.g. ~500 fewer ops in a
    # 6-layer conformer). A dynamic size is read from the tensor's shape.
    static = raw.shape.as_list() if raw.shape.rank is not None else [None] * len(sorted_targets)
    shape = None
    new_shape = []
    k = 0
    for j in range(out.batch_ndim):
        if k < len(sorted_targets) and sorted_targets[k] == j:
            if static[k] is not None:
                new_shape.append(static[k])
            else:
                if shape is None:
                    shape = tf.shape(raw)
                new_shape.append(shape[k])
            k += 1
        else:
            new_shape.append(1)
    return tf.reshape(raw, tf.stack(new_shape) if shape is not None else new_shape)

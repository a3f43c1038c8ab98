"""Concatenation of several source layers on the feature axis (``"from": [a, b]``): template and raw.

The non-feature axes of the result are those of the source with the most axes; a source lacking some of them is
broadcast over them. When no source has them all (``[B,T1,F]`` and ``[B,T2,F]``: ``[B,T1,T2,F+F]``), that must be
allowed, as the reference: an ``out_shape`` for the layer (``behavior_version >= 4``; a deprecation warning below).
"""

from __future__ import annotations

from typing import Any, Dict, List, Sequence, Tuple

import tensorflow as tf

from returnn.errors import LayerShapeError
from returnn.tensor import Dim, FeatureDim, Tensor
from returnn.util.behavior_version import BehaviorVersion


def _widest(sources: Sequence[Any]) -> Any:
    """:return: the first source with the most non-feature axes (the others are broadcast to its axes)"""
    return max(sources, key=lambda src: src.output.batch_ndim - (src.output.feature_dim_axis is not None))


def _non_feature(out: Tensor) -> List[Dim]:
    return [d for i, d in enumerate(out.dims) if i != out.feature_dim_axis]


def _aligned(sources: Sequence[Any], name: str, layer_class: str) -> Tuple[List[Tensor], List[Dim]]:
    """:return: source outputs, and the non-feature axes of the result: those of the widest source, then the ones
    only other sources have (a source without e.g. the time axis is broadcast over it, as the reference:
    ``[B,T,F1]`` and ``[B,F2]`` give ``[B,T,F1+F2]``)"""
    first = _widest(sources).output
    outs = []
    union = _non_feature(first)
    union_bases = [id(d.get_same_base()) for d in union]
    for src in sources:
        out = src.output
        if out.sparse:
            raise LayerShapeError(layer=name, layer_class=layer_class,
                                  problem=f"cannot concatenate sparse source {src.name!r} with other sources",
                                  got=repr(out), hint='use {"class": "linear"} (embedding) on the sparse input first')
        if out.feature_dim_axis is None:
            raise LayerShapeError(layer=name, layer_class=layer_class,
                                  problem=f"source {src.name!r} has no feature axis to concatenate on", got=repr(out))
        bases = [id(d.get_same_base()) for d in _non_feature(out)]
        if len(set(bases)) != len(bases):
            raise LayerShapeError(layer=name, layer_class=layer_class,
                                  problem=f"source {src.name!r} has the same non-feature axis twice",
                                  expected=repr(first), got=repr(out))
        for d, base in zip(_non_feature(out), bases):
            if base not in union_bases:
                union.append(d)
                union_bases.append(base)
        outs.append(out)
    return outs, union


def concat_sources_template(sources: Sequence[Any], *, name: str, layer_class: str = "?",
                            allow_broadcast_all_sources: bool = False) -> Tensor:
    """:return: template of the concatenation of ``sources`` on the feature axis (one source: its template)

    :param allow_broadcast_all_sources: whether the sources may all lack some non-feature axis of the result (see
        the module doc; e.g. the layer has an ``out_shape``)
    :raises LayerShapeError: a source with the same axis twice, sparse sources among several, no sources
    :raises BehaviorVersion.RequirementNotSatisfied: all sources need broadcasting, not allowed
    """
    if not sources:
        raise LayerShapeError(layer=name, layer_class=layer_class, problem="needs at least one source (\"from\")")
    if len(sources) == 1:
        return sources[0].output.copy_template(name=f"{name}_output")
    outs, union = _aligned(sources, name, layer_class)
    first = _widest(sources).output.copy_template(name=f"{name}_output")
    total = sum(o.dim for o in outs) if all(o.dim is not None for o in outs) else None
    desc = "+".join(o.feature_dim.description for o in outs)
    new_dim = FeatureDim(f"{name}:concat({desc})", total)
    # put the feature axis last
    if first.feature_dim_axis != first.batch_ndim - 1:
        perm = [i for i in range(first.batch_ndim) if i != first.feature_dim_axis] + [first.feature_dim_axis]
        first = first.copy_transpose(perm)
    extra = union[first.batch_ndim - 1:]
    for d in extra:
        first = first.copy_add_dim(first.batch_ndim - 1, d)
    out = first.copy_template_replace_dim(first.feature_dim_axis, new_dim)
    if extra and not allow_broadcast_all_sources:
        listing = "\n".join(f" - {o!r}" for o in outs)
        BehaviorVersion.require(False, f"All inputs\n{listing}\nrequire broadcasting to \n  {out!r}.\n"
                                       "This must be explicitly allowed, e.g. by specifying out_shape.", 4)
    return out


def keep_input_frame_template(d: Dict[str, Any], *, layer_class: str) -> None:
    """Stores in a layer's transformed config dict ``d`` (after ``sources`` were resolved) the template of its
    concatenated input as ``d["_in_frame"]``: the frame a rec-state layer (``window``, ``cumsum``) needs for its
    initial state before any input exists (``get_rec_initial_state``).

    :raises LayerShapeError: as :func:`concat_sources_template`
    """
    d["_in_frame"] = concat_sources_template(d["sources"], name=f"{d['name']}/data", layer_class=layer_class)


def dense_feature_sources_template(sources: Sequence[Any], *, name: str, layer_class: str) -> Tensor:
    """:func:`concat_sources_template` for layers that work on a dense feature axis of known size (normalization).

    :raises LayerShapeError: sparse input, or no feature axis / unknown feature dim
    """
    out = concat_sources_template(sources, name=name, layer_class=layer_class)
    if out.sparse or out.feature_dim_axis is None or out.dim is None:
        raise LayerShapeError(layer=name, layer_class=layer_class,
                              problem="needs a dense input with a static feature axis", got=repr(out))
    return out


def concat_sources(sources: Sequence[Any], template: Tensor) -> tf.Tensor:
    """:return: raw concatenation matching ``template`` (from :func:`concat_sources_template`)"""
    if len(sources) == 1:
        return sources[0].output.placeholder
    raws = []
    target_order = [d for d in template.dims[:-1]]
    outs = [src.output.copy_with_feature_dim_axis(-1) for src in sources]
    sizes = []  # the size of each target axis, from a source that has it
    for d in target_order:
        src_out, axis = next((o, i) for o in outs for i, od in enumerate(o.dims[:-1]) if od == d)
        sizes.append(d.dimension if d.dimension is not None else tf.shape(src_out.placeholder)[axis])
    for out in outs:
        present = [next((i for i, od in enumerate(out.dims[:-1]) if od == d), None) for d in target_order]
        if None not in present:
            raws.append(out.copy_transpose(present + [out.batch_ndim - 1]).placeholder)
            continue
        # broadcast over the axes this source lacks (e.g. time)
        kept = [i for i in present if i is not None]
        raw = out.copy_transpose(kept + [out.batch_ndim - 1]).placeholder
        for k, i in enumerate(present):
            if i is None:
                raw = tf.expand_dims(raw, k)
        target_shape = tf.stack([*sizes, tf.shape(raw)[-1]])
        raws.append(tf.broadcast_to(raw, target_shape))
    return tf.concat(raws, axis=-1)

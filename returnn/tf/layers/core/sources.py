"""Concatenation of several source layers on the feature axis (``"from": [a, b]``): template and raw."""

from __future__ import annotations

from typing import Any, List, Sequence

import tensorflow as tf

from returnn.errors import LayerShapeError
from returnn.tensor import FeatureDim, Tensor


def _widest(sources: Sequence[Any]) -> Any:
    """:return: the first source with the most non-feature axes (the others are broadcast to its axes)"""
    return max(sources, key=lambda src: src.output.batch_ndim - (src.output.feature_dim_axis is not None))


def _aligned(sources: Sequence[Any], name: str, layer_class: str) -> List[Tensor]:
    """:return: source outputs; the non-feature axes of each are those of the widest source or a subset of them (a
    source without e.g. the time axis is broadcast over it, as the reference: ``[B,T,F1]`` and ``[B,F2]`` give
    ``[B,T,F1+F2]``)"""
    first = _widest(sources).output
    outs = []
    ref_non_feat = [d for i, d in enumerate(first.dims) if i != first.feature_dim_axis]
    ref_bases = set(map(id, [d.get_same_base() for d in ref_non_feat]))
    for src in sources:
        out = src.output
        if out.sparse:
            raise LayerShapeError(layer=name, layer_class=layer_class,
                                  problem=f"cannot concatenate sparse source {src.name!r} with other sources",
                                  got=repr(out), hint='use {"class": "linear"} (embedding) on the sparse input first')
        if out.feature_dim_axis is None:
            raise LayerShapeError(layer=name, layer_class=layer_class,
                                  problem=f"source {src.name!r} has no feature axis to concatenate on", got=repr(out))
        non_feat = [d for i, d in enumerate(out.dims) if i != out.feature_dim_axis]
        bases = [id(d.get_same_base()) for d in non_feat]
        if not set(bases) <= ref_bases or len(set(bases)) != len(bases):
            raise LayerShapeError(layer=name, layer_class=layer_class,
                                  problem=f"sources {_widest(sources).name!r} and {src.name!r} have different "
                                          "non-feature axes",
                                  expected=repr(first), got=repr(out),
                                  hint="both must share batch/time axes (e.g. same time dim); "
                                       "use reinterpret_data with size_base to unify time axes")
        outs.append(out)
    return outs


def concat_sources_template(sources: Sequence[Any], *, name: str, layer_class: str = "?") -> Tensor:
    """:return: template of the concatenation of ``sources`` on the feature axis (one source: its template)

    :raises LayerShapeError: different non-feature axes, sparse sources among several, no sources
    """
    if not sources:
        raise LayerShapeError(layer=name, layer_class=layer_class, problem="needs at least one source (\"from\")")
    if len(sources) == 1:
        return sources[0].output.copy_template(name=f"{name}_output")
    outs = _aligned(sources, name, layer_class)
    first = _widest(sources).output.copy_template(name=f"{name}_output")
    total = sum(o.dim for o in outs) if all(o.dim is not None for o in outs) else None
    desc = "+".join(o.feature_dim.description for o in outs)
    new_dim = FeatureDim(f"{name}:concat({desc})", total)
    # put the feature axis last
    if first.feature_dim_axis != first.batch_ndim - 1:
        perm = [i for i in range(first.batch_ndim) if i != first.feature_dim_axis] + [first.feature_dim_axis]
        first = first.copy_transpose(perm)
    return first.copy_template_replace_dim(first.feature_dim_axis, new_dim)


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
    widest = _widest(sources).output.copy_with_feature_dim_axis(-1)
    for src in sources:
        out = src.output
        out = out.copy_with_feature_dim_axis(-1)
        present = [next((i for i, od in enumerate(out.dims[:-1]) if od == d), None) for d in target_order]
        if None not in present:
            raws.append(out.copy_transpose(present + [out.batch_ndim - 1]).placeholder)
            continue
        # broadcast over the axes this source lacks (e.g. time), to the shape of the widest source
        kept = [i for i in present if i is not None]
        raw = out.copy_transpose(kept + [out.batch_ndim - 1]).placeholder
        for k, i in enumerate(present):
            if i is None:
                raw = tf.expand_dims(raw, k)
        target_shape = tf.concat([tf.shape(widest.placeholder)[:-1], tf.shape(raw)[-1:]], axis=0)
        raws.append(tf.broadcast_to(raw, target_shape))
    return tf.concat(raws, axis=-1)

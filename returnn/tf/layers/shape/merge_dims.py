"""``{"class": "merge_dims", "axes": "static"}`` (and the legacy ``combine_dims``): merge several axes into one.

Layout, as observed from the reference: the axes are merged in their raw order, or with ``keep_order`` in the
order ``axes`` lists them (default: ``keep_order`` from ``behavior_version`` 6 on). The merged axis takes the
position of the first merged axis; if the feature axis is among the merged ones, the merged axis is the feature
axis and takes its position (among the remaining axes). Static axes give a static dim (product). Merging a
dynamic axis ``T`` with static ``F`` gives a dynamic axis whose lengths are ``len * F`` (the raw reshape keeps
valid frames as a prefix); lengths over several dims (``dyn_size_ext`` ``[B, T]``, e.g. of a ``slice_nd``)
stay over these dims. Merging the batch axis gives a new batch axis (a batch-kind dim
``(global batch)*(time)``, at the first merged position) over all frames, padding included; the batch axis is then
the outermost of the merged ones (the others follow in their raw order), also for a time-major input. The batch
axis merged with static axes only (e.g. ``[B, F]``) follows ``keep_order`` and the feature-axis position rule as
other axes do, and the output's :attr:`returnn.tensor.Tensor.batch` is the input's with a fixed virtual dim per
merged static dim (``BatchInfo{B, F(3)}``; ``split_dims`` of the batch axis removes them again), as the reference.
"""

from __future__ import annotations

from typing import Any, List, Optional, Tuple

import numpy as np
import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import BatchInfo, Dim, FeatureDim, SpatialDim, Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template
from returnn.util.behavior_version import BehaviorVersion


@register_layer
class MergeDimsLayer(ConcatInputLayer):
    """``{B, A, C, ...} -> {B, A*C, ...}``."""

    layer_class = "merge_dims"

    def __init__(self, axes: Any, keep_order: Any = None, n_out: Any = None, **kwargs: Any):
        """
        :param axes: the axes to merge (axis description or list of them, e.g. ``"static"``, ``["B", "T"]``)
        :param keep_order: merge in the order ``axes`` lists them instead of the raw order (default True from
            ``behavior_version`` 6)
        """
        super().__init__(**kwargs)
        inp = self.input_data
        order, pos = _merge_layout(inp, axes, keep_order)
        x = inp.placeholder
        if len(order) > 1:
            rest = [i for i in range(inp.batch_ndim) if i not in order]
            perm = rest[:pos] + order + rest[pos:]
            if perm != list(range(inp.batch_ndim)):
                x = tf.transpose(x, perm)
            shape = tf.shape(x)
            new_shape = [shape[i] for i in range(pos)] + [tf.reduce_prod(shape[pos:pos + len(order)])] + \
                        [shape[i] for i in range(pos + len(order), inp.batch_ndim)]
            x = tf.reshape(x, tf.stack(new_shape))
            dyn = [a for a in order if inp.dims[a].is_dynamic()]
            if inp.batch_dim_axis not in order and dyn and inp.dims[dyn[0]].dyn_size is not None:
                static = int(np.prod([inp.dims[a].dimension for a in order if a != dyn[0] and inp.dims[a].dimension]))
                ext = inp.dims[dyn[0]].dyn_size_ext
                if ext is not None and len(ext.dims) > 1:  # lengths over several dims, e.g. [B, T]
                    self.output.dims[pos].dyn_size_ext = Tensor(name=ext.name, dims=list(ext.dims), dtype="int32",
                                                                placeholder=ext.placeholder * static)
                else:
                    self.output.dims[pos].dyn_size = inp.dims[dyn[0]].dyn_size * static
            if inp.batch_dim_axis in order and dyn:
                self.output = _with_batch_variants(self.output, pos, tf.reduce_prod(shape[pos + 1:pos + len(order)]))
        self.output.placeholder = x

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), axes: Any = None, keep_order: Any = None,
                               out_dim: Optional[Dim] = None, **kwargs: Any) -> Tensor:
        """``out_dim`` (a Dim) is declared the same as the merged dim, as the reference (the output shows the merged
        dim's description; a dynamic-declared ``out_dim`` such as ``SpatialDim("out")`` takes a static merged size).

        :raises LayerArgError: merging two dynamic axes (besides the batch axis); ``out_dim`` of another size"""
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        order, pos = _merge_layout(inp, axes, keep_order)
        if len(order) <= 1:
            return inp
        dims = [inp.dims[a] for a in order]
        with_batch = inp.batch_dim_axis in order
        if sum(d.dimension is None for d in dims) > 1 + int(with_batch):
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="axes",
                                problem="cannot merge two dynamic axes:", got=axes)
        size = None if any(d.dimension is None for d in dims) else int(np.prod([d.dimension for d in dims]))
        is_feat = inp.feature_dim_axis in order and not with_batch
        if with_batch:  # as the reference names it: dynamic dims in parentheses
            desc = "*".join(f"({d.description})" if d.dimension is None else d.description for d in dims)
            new = Dim(None, description=desc, kind=Dim.Types.Batch)
        else:
            desc = "*".join(d.description for d in dims)
            new = FeatureDim(desc, size) if is_feat else SpatialDim(desc, size)
        dyn_exts = [d.dyn_size_ext for d in dims if d.dimension is None]
        if not with_batch and dyn_exts and dyn_exts[0] is not None and len(dyn_exts[0].dims) > 1:
            new.dyn_size_ext = Tensor(name=dyn_exts[0].name, dims=list(dyn_exts[0].dims), dtype="int32")
        if out_dim is not None:
            _declare_out_dim(name, cls.layer_class, out_dim, new)
        rest = [i for i in range(inp.batch_ndim) if i not in order]
        out_dims = [inp.dims[i] for i in rest[:pos]] + [new] + [inp.dims[i] for i in rest[pos:]]

        def moved(old: Any) -> Any:
            if old is None:
                return None
            if old in order:
                return pos
            idx = rest.index(old)
            return idx if idx < pos else idx + 1

        time_axis = None if inp.time_dim_axis in order and (is_feat or size is not None or with_batch) \
            else moved(inp.time_dim_axis)
        feature_axis = None if with_batch and inp.feature_dim_axis in order else moved(inp.feature_dim_axis)
        batch = None
        if with_batch and _batch_with_static_dims(inp, order):  # the batch info gets a fixed dim per static dim
            batch = inp.batch if inp.batch is not None else BatchInfo.make_global_batch_info(-1)
            for d in dims:
                if not d.is_batch_dim():
                    batch = batch.copy_extend_with_padded_or_fixed_dim_tag(d, batch_major=True)
        out = Tensor(name=f"{name}_output", dims=out_dims, dtype=inp.dtype, sparse_dim=inp.sparse_dim,
                     time_dim_axis=time_axis, batch=batch)
        if out.feature_dim_axis == feature_axis:
            return out  # the default feature axis stays unspecified, as the reference (observed)
        return Tensor(name=f"{name}_output", dims=out_dims, dtype=inp.dtype, sparse_dim=inp.sparse_dim,
                      time_dim_axis=time_axis, feature_dim_axis=feature_axis, batch=batch)


def _with_batch_variants(out: Tensor, pos: int, repeats: Any) -> Tensor:
    """The batch merged with dynamic axes (``[B, T, T2] -> [B*T, T2]``): each other dynamic axis with lengths over
    the batch only becomes a batch variant of itself (equal to it) with each length repeated ``repeats`` times, one
    per merged entry, as the reference (observed: ``[B*T]`` lengths, the same dim).

    :return: ``out`` (a template) with those dims replaced
    """
    for axis, dim in enumerate(out.dims):
        if axis == pos or not dim.is_dynamic() or dim.dyn_size is None:
            continue
        ext = dim.dyn_size_ext
        if ext is not None and not (len(ext.dims) == 1 and ext.dims[0].is_batch_dim()):
            continue  # lengths over more than the batch: not per batch entry
        lengths = tf.repeat(dim.dyn_size, repeats, axis=0, name=f"{dim.description}_per_merged_batch_entry"
                            .replace(":", "_").replace(" ", "_"))
        out = out.copy_template_replace_dim_tag(axis, dim.make_batch_variant(lengths))
    return out


def _declare_out_dim(name: str, layer_class: str, out_dim: Any, new: Dim) -> None:
    if not isinstance(out_dim, Dim):
        raise LayerArgError(layer=name, layer_class=layer_class, arg="out_dim", problem="invalid value", got=out_dim,
                            expected="a Dim")
    if out_dim.dimension is None and new.dimension is not None and not out_dim.is_dim_known():
        out_dim.dimension = new.dimension  # declared without size: takes the merged one (as the reference)
    if out_dim.dimension != new.dimension:
        raise LayerArgError(layer=name, layer_class=layer_class, arg="out_dim", problem="does not match the merged "
                            f"size {new.dimension}:", got=out_dim)
    out_dim.declare_same_as(new)


def _merge_layout(inp: Tensor, axes: Any, keep_order: Any) -> Tuple[List[int], int]:
    """:return: the merged axes in merge order, and the merged axis's position among the remaining axes"""
    if keep_order is None:
        keep_order = BehaviorVersion.get() >= 6
    found = list(inp.get_axes_from_description(axes))
    with_batch = inp.batch_dim_axis is not None and inp.batch_dim_axis in found
    batch_static = with_batch and _batch_with_static_dims(inp, found)
    if with_batch and not (batch_static and keep_order):
        # as the reference: the batch axis is the outermost, then the others in their raw order
        order = [inp.batch_dim_axis] + sorted(set(found) - {inp.batch_dim_axis})
    else:  # static dims merged into the batch: in the order of `axes` too (observed)
        order = list(dict.fromkeys(found)) if keep_order else sorted(set(found))
    if len(order) <= 1:
        return order, order[0] if order else 0
    feat = inp.feature_dim_axis
    if feat is not None and feat in order and (not with_batch or batch_static):
        return order, feat - sum(1 for a in order if a < feat)
    return order, min(order)


def _batch_with_static_dims(inp: Tensor, axes: List[int]) -> bool:
    """:return: whether ``axes`` are the batch axis and static axes only"""
    return all(a == inp.batch_dim_axis or inp.dims[a].dimension is not None for a in axes)


@register_layer
class CombineDimsLayer(MergeDimsLayer):
    """Legacy name of ``merge_dims`` (``"axes"`` as there)."""

    layer_class = "combine_dims"

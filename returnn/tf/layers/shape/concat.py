"""``{"class": "concat", "from": [("a", "F"), ("b", "F")]}``: concatenates the sources along one axis each.

As the reference (observed): ``from`` is a list of ``(layer name, axis description)``; the other axes of the sources
must be the same dims (``allow_broadcast``: a source may lack some of them; it is broadcast). The concatenated
axis takes the position of the first source's axis; its dim is ``out_dim``, else for two different static dims of one
kind their sum in dim arithmetic (``a + b``: the same Dim as a config's ``a + b``), else a new dim: static ``n*desc``
(the same dim n times) or ``desc1+desc2...`` with the summed size (for dynamic axes the lengths are summed). The raw
tensors are concatenated as they are (with padded frames of a dynamic axis in between, as the reference).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

import tensorflow as tf

from returnn.errors import LayerArgError, LayerShapeError
from returnn.tensor import Dim, Tensor
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer


def _new_concat_dim(dims: Sequence[Dim], kind: Any) -> Dim:
    if len(dims) == 2 and dims[0] != dims[1] and all(d.dimension is not None and d.kind is kind for d in dims):
        # as the reference (observed): the dim sum, the same Dim as ``a + b`` in a config (e.g. a dot's "reduce")
        total = dims[0]
        for dim in dims[1:]:
            total = total + dim
        return total
    descs = [d.description for d in dims]
    if all(d == dims[0] for d in dims):
        desc = f"{len(dims)}*{descs[0]}"
    else:  # as the reference names a sum of sums (observed): "a+b", "(a+b)+c", "((a+b)+c)+d"
        desc = descs[0]
        for i, other in enumerate(descs[1:]):
            desc = (f"({desc})" if i else desc) + "+" + other
    size = None if any(d.dimension is None for d in dims) else sum(d.dimension for d in dims)
    return Dim(size, description=desc, kind=kind)


def _same(a: Dim, b: Dim) -> bool:
    """Dims match: the same dim, or two static feature dims of the same size (as the reference matches them)."""
    if a == b:
        return True
    return a.is_feature_dim() and b.is_feature_dim() and a.dimension is not None and a.dimension == b.dimension


def _find(dim: Dim, dims: Sequence[Dim]) -> Optional[int]:
    """:return: the index of ``dim`` in ``dims`` (exact match first, then a same-size feature dim), or None"""
    for i, d in enumerate(dims):
        if d == dim:
            return i
    for i, d in enumerate(dims):
        if _same(dim, d):
            return i
    return None


def _layout(name: str, sources: Sequence[Tuple[LayerBase, Any]], allow_broadcast: bool) -> Tuple[Tensor, List[int]]:
    """:return: the first source's template, the concat axis of each source"""
    if not sources:
        raise LayerArgError(layer=name, layer_class="concat", arg="from", problem="needs at least one source",
                            expected='[("layer", "axis"), ...]')
    axes = [layer.output.get_axis_from_description(axis) for layer, axis in sources]
    first = sources[0][0].output
    rest_first = [d for i, d in enumerate(first.dims) if i != axes[0]]
    for (layer, _), axis in zip(sources[1:], axes[1:]):
        rest = [d for i, d in enumerate(layer.output.dims) if i != axis]
        missing = [d for d in rest_first if _find(d, rest) is None]
        extra = [d for d in rest if _find(d, rest_first) is None]
        if extra or (missing and not allow_broadcast):
            raise LayerShapeError(layer=name, layer_class="concat",
                                  problem=f"source {layer.name!r} has other dims besides the concat axis than "
                                          f"{sources[0][0].name!r}", expected=repr(first), got=repr(layer.output),
                                  hint="allow_broadcast=True broadcasts missing dims" if missing else None)
    return first, axes


@register_layer
class ConcatLayer(LayerBase):
    """Concatenation along one axis per source (see module doc).

    :param sources: ``(layer, axis)`` pairs (from ``from``)
    :param allow_broadcast: sources may lack some of the other dims
    :param out_dim: the dim of the concatenated axis (default: a new one)
    """

    layer_class = "concat"

    def __init__(self, sources: Sequence[Tuple[LayerBase, Any]], allow_broadcast: bool = False,
                 out_dim: Optional[Dim] = None, **kwargs: Any):
        super().__init__(sources=[layer for layer, _ in sources], out_dim=out_dim, **kwargs)
        first, axes = _layout(self.name, sources, allow_broadcast)
        out_axis = axes[0]
        raws = []
        for (layer, _), axis in zip(sources, axes):
            data = layer.output
            src_rest = [None if i == axis else d for i, d in enumerate(data.dims)]
            x = data.placeholder
            # the source's axes in the output's order (missing ones added with size 1, then broadcast)
            order = []
            for i, d in enumerate(self.output.dims):
                if i == out_axis:
                    order.append(axis)
                    continue
                candidates = [c for c in src_rest if c is not None]
                found = _find(d, candidates)
                order.append(None if found is None else src_rest.index(candidates[found]))
            present = [a for a in order if a is not None]
            if present != list(range(data.batch_ndim)):
                x = tf.transpose(x, present)
            for i, a in enumerate(order):
                if a is None:
                    x = tf.expand_dims(x, i)
            if None in order:
                target = [tf.shape(x)[i] if i == out_axis else None for i in range(len(order))]
                full = tf.shape(raws[0]) if raws else None
                shape = [target[i] if target[i] is not None else (full[i] if full is not None else 1)
                         for i in range(len(order))]
                x = tf.broadcast_to(x, tf.stack(shape))
            raws.append(x)
        self.output.placeholder = tf.concat(raws, axis=out_axis) if len(raws) > 1 else raws[0]
        new_dim = self.output.dims[out_axis]
        if new_dim.dimension is None and new_dim.dyn_size is None:
            sizes = [layer.output.dims[axis].dyn_size for (layer, _), axis in zip(sources, axes)]
            if all(s is not None for s in sizes):
                new_dim.dyn_size = tf.add_n(sizes) if len(sizes) > 1 else sizes[0]

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        """``from``: a list of ``(layer name, axis)`` → ``sources``: ``(layer, axis)`` pairs."""
        pairs = d.pop("from", None)
        if not isinstance(pairs, (list, tuple)) or not pairs or not all(
                isinstance(p, (list, tuple)) and len(p) == 2 for p in pairs):
            raise LayerArgError(layer=d["name"], layer_class=cls.layer_class, arg="from", problem="invalid value",
                                got=pairs, expected='a list of (layer name, axis) pairs, e.g. [("a", "F"), ("b", "F")]')
        d["from"] = []
        super().transform_config_dict(d, network=network, get_layer=get_layer)
        d["sources"] = [(get_layer(src), axis) for src, axis in pairs]

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Sequence[Tuple[LayerBase, Any]], out_dim: Optional[Dim] = None,
                               allow_broadcast: bool = False, **kwargs: Any) -> Tensor:
        """:raises LayerShapeError: the sources differ in other dims than the concat axis"""
        first, axes = _layout(name, sources, allow_broadcast)
        dims = [layer.output.dims[axis] for (layer, _), axis in zip(sources, axes)]
        new_dim = out_dim if out_dim is not None else _new_concat_dim(dims, dims[0].kind)
        base = name.split("/")[-1]
        return first.copy_template_replace_dim_tag(axes[0], new_dim, name=f"{base}_output")

"""``{"class": "squeeze", "axis": "auto"|<axis description>}``: remove size-1 axes.

``"auto"`` removes all non-batch axes of static size 1; ``allow_no_op`` permits that nothing is removed. An axis
named explicitly may also be dynamic (as the reference: e.g. ``"T"`` of a per-sequence label stored with one frame,
``{B,T} -> {B}``); its size must then be 1 when the graph runs (``tf.squeeze`` checks it).
"""

from __future__ import annotations

from typing import Any, List

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template


def _axes(inp: Tensor, axis: Any, allow_no_op: bool, name: str, layer_class: str) -> List[int]:
    if isinstance(axis, str) and axis.lower() == "auto":
        axes = [i for i, d in enumerate(inp.dims) if not d.is_batch_dim() and d.dimension == 1]
    else:
        axes = inp.get_axes_from_description(axis)
        bad = [a for a in axes if inp.dims[a].dimension not in (1, None)]
        if bad:
            raise LayerArgError(layer=name, layer_class=layer_class, arg="axis", problem="selects axes of size != 1:",
                                got=[repr(inp.dims[a]) for a in bad])
    if not axes and not allow_no_op:
        raise LayerArgError(layer=name, layer_class=layer_class, arg="axis", problem="matches no size-1 axis:",
                            got=axis, hint='set "allow_no_op": True if this is intended')
    return axes


@register_layer
class SqueezeLayer(ConcatInputLayer):
    """``{B, T, F, 1} -> {B, T, F}``."""

    layer_class = "squeeze"

    def __init__(self, axis: Any, enforce_batch_dim_axis: Any = None, allow_no_op: bool = False, **kwargs: Any):
        """
        :param axis: the axis to remove (``"auto"``: all non-batch axes of static size 1)
        :param enforce_batch_dim_axis: accepted for compatibility with the reference; no effect here
        :param allow_no_op: allow that no axis is removed
        """
        super().__init__(**kwargs)
        inp = self.input_data
        axes = _axes(inp, axis, allow_no_op, self.name, self.layer_class)
        self.output.placeholder = tf.squeeze(inp.placeholder, axes) if axes else tf.identity(inp.placeholder)

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), axis: Any = None, allow_no_op: bool = False,
                               **kwargs: Any) -> Tensor:
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        out = inp
        for a in sorted(_axes(inp, axis, allow_no_op, name, cls.layer_class), reverse=True):
            out = out.copy_template_excluding_axis(a)
        if out.feature_dim_axis is None and not out.sparse:
            feats = [i for i, d in enumerate(out.dims) if d.is_feature_dim()]
            out.feature_dim_axis = feats[-1] if feats else None
        return out

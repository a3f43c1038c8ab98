"""``{"class": "math_norm", "p": 2, "axis": "F"}``: the p-norm ``(sum |x|^p)^(1/p)`` over ``axis``/``axes``.

Shape: the input without ``axes`` (``{B, T, F} --F--> {B, T}``); with ``keep_dims`` each reduced axis stays with size
1 as a new dim ``'<layer>:keep-dim-<i>'`` (``i`` its axis index; a feature dim stays a feature dim), the time and
feature axis markers staying where they were, as the reference. Padded frames of a reduced dynamic axis are excluded.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import Dim, NotSpecified, Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template
from returnn.tf.layers.shape._axis_letters import expand_axis_letters
from returnn.tf.ops.dims import mask_padded


def _axes(name: str, layer_class: str, axis: Any, axes: Any) -> Any:
    if axis is not NotSpecified and axes is not NotSpecified:
        raise LayerArgError(layer=name, layer_class=layer_class, arg="axes", problem="given together with 'axis':",
                            got=axes, hint="give only one of axis, axes")
    value = axes if axes is not NotSpecified else axis
    if value is NotSpecified:
        raise LayerArgError(layer=name, layer_class=layer_class, arg="axis", problem="missing required argument")
    return expand_axis_letters(value)


def keep_dims_template(inp: Tensor, axes: Any, name: str) -> Tensor:
    """:return: ``inp`` with each axis in ``axes`` replaced by a size-1 ``'<name>:keep-dim-<i>'`` dim"""
    dims = list(inp.dims)
    for a in axes:
        dims[a] = Dim(1, description=f"{name}:keep-dim-{a}", kind=inp.dims[a].kind)
    return Tensor(name=f"{name}_output", dims=dims, dtype=inp.dtype, time_dim_axis=inp.time_dim_axis,
                  feature_dim_axis=inp.feature_dim_axis, available_for_inference=inp.available_for_inference)


@register_layer
class MathNormLayer(ConcatInputLayer):
    """p-norm over axes."""

    layer_class = "math_norm"

    def __init__(self, p: Any, axis: Any = NotSpecified, axes: Any = NotSpecified, keep_dims: bool = False,
                 **kwargs: Any):
        """
        :param p: the order of the norm (e.g. 1, 2)
        :param axis: the axis to reduce (or use ``axes``)
        :param axes: the axes to reduce (or use ``axis``)
        :param keep_dims: keep each reduced axis with size 1
        """
        super().__init__(**kwargs)
        inp = self.input_data
        ax = inp.get_axes_from_description(_axes(self.name, self.layer_class, axis, axes))
        x = inp.placeholder
        for a in ax:  # padded frames count only on a reduced dynamic axis
            if inp.dims[a].is_dynamic():
                tmp = inp.copy()
                tmp.placeholder = x
                x = mask_padded(tmp, a, 0)
        x = tf.abs(x)
        self.output.placeholder = tf.pow(tf.reduce_sum(tf.pow(x, p), axis=ax, keepdims=keep_dims), 1.0 / p)

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), axis: Any = NotSpecified, axes: Any = NotSpecified,
                               keep_dims: bool = False, **kwargs: Any) -> Tensor:
        """:raises LayerArgError: neither or both of axis/axes"""
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        ax = inp.get_axes_from_description(_axes(name, cls.layer_class, axis, axes))
        if keep_dims:
            return keep_dims_template(inp, ax, name)
        out = inp
        for a in sorted(ax, reverse=True):
            out = out.copy_template_excluding_axis(a)
        return out.copy_template(name=f"{name}_output")

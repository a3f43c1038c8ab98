"""``{"class": "weighted_sum", "axes": "F"}``: trainable weighted sum over axes.

Shape: the input without ``axes`` (``{B, T, F} --F--> {B, T}``). Param (as the reference): ``W`` with the static
sizes of ``axes`` (in the input's axis order), initialized to ``1 / n`` (``n`` entries: a mean to start with).
``out = sum_axes(x * W)``. A window ``size`` (sliding weighted sum) is not supported here
(:class:`LayerArgError`); the reference fails on it for dynamic axes.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np
import tensorflow as tf

from returnn.errors import LayerArgError, LayerShapeError
from returnn.tensor import Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template


@register_layer
class WeightedSumLayer(ConcatInputLayer):
    """``sum(x * W)`` over ``axes``."""

    layer_class = "weighted_sum"

    def __init__(self, axes: Any, padding: Optional[str] = None, size: Any = None, keep_dims: Optional[bool] = None,
                 **kwargs: Any):
        """
        :param axes: the (static) axes summed over with trainable weights
        :param padding: accepted for compatibility with the reference; no effect here
        :param size: a sliding window size; not supported here (must be None)
        :param keep_dims: keep each summed axis with size 1
        """
        super().__init__(**kwargs)
        inp = self.input_data
        ax = sorted(inp.get_axes_from_description(axes))
        shape = [inp.batch_shape[a] for a in ax]
        w = self.create_param("W", shape, tf.compat.v1.constant_initializer(1.0 / float(np.prod(shape))))
        bc = [1] * inp.batch_ndim
        for a, n in zip(ax, shape):
            bc[a] = n
        self.output.placeholder = tf.reduce_sum(inp.placeholder * tf.reshape(w, bc), axis=ax, keepdims=bool(keep_dims))

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), axes: Any = None, size: Any = None,
                               keep_dims: Optional[bool] = None, **kwargs: Any) -> Tensor:
        """:raises LayerArgError: a window ``size``
        :raises LayerShapeError: a dynamic axis in ``axes``"""
        if size is not None:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="size",
                                problem="(a sliding window) is not supported (yet) in this implementation:", got=size)
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        ax = inp.get_axes_from_description(axes)
        if any(inp.batch_shape[a] is None for a in ax):
            raise LayerShapeError(layer=name, layer_class=cls.layer_class,
                                  problem=f"axes {axes!r} must all be static", got=repr(inp))
        out = inp
        if keep_dims:
            return out
        for a in sorted(ax, reverse=True):
            out = out.copy_template_excluding_axis(a)
        return out.copy_template(name=f"{name.split('/')[-1]}_output")

"""``{"class": "resize", "factor": 2, "axis": "T", "kind": "nn"}``: up-samples an axis by an int factor.

Shape: the axis becomes ``dim * factor`` (``'time*2'``, as the reference) or ``out_dim``; lengths are multiplied.
Kinds (as observed from the reference, on the raw padded tensor): ``"nn"``: every frame ``factor`` times;
``"linear"``: linear interpolation at the source positions ``j / factor`` (TF's legacy ``resize_bilinear``: no
half-pixel centers, the last frame held); ``"fill"``: each frame followed by ``factor - 1`` frames of
``fill_value``. ``fill_dropout`` (drop some of the filled frames) is not supported here (:class:`LayerArgError`).
"""

from __future__ import annotations

from typing import Any, Optional

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import Dim, Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template
from returnn.tf.layers.shape._derived_dims import dim_mul

_KINDS = ("nn", "linear", "fill")


@register_layer
class ResizeLayer(ConcatInputLayer):
    """Up-sampling along ``axis``."""

    layer_class = "resize"

    def __init__(self, factor: int, axis: Any, out_dim: Optional[Dim] = None, kind: str = "nn",
                 fill_value: Any = None, fill_dropout: Optional[float] = None, **kwargs: Any):
        super().__init__(**kwargs)
        inp = self.input_data
        ax = inp.get_axis_from_description(axis)
        x = tf.experimental.numpy.moveaxis(inp.placeholder, ax, 0)  # [T, ...]
        n = tf.shape(x)[0]
        if kind == "nn":
            y = tf.repeat(x, factor, axis=0)
        elif kind == "fill":
            fill = tf.fill(tf.shape(x), tf.cast(fill_value if fill_value is not None else 0, x.dtype))
            y = tf.stack([x] + [fill] * (factor - 1), axis=1)
            y = tf.reshape(y, tf.concat([[n * factor], tf.shape(x)[1:]], axis=0))
        else:
            pos = tf.cast(tf.range(n * factor), tf.float32) / float(factor)
            lower = tf.cast(tf.floor(pos), tf.int32)
            upper = tf.minimum(lower + 1, n - 1)
            w = tf.reshape(pos - tf.cast(lower, tf.float32), tf.concat([[-1], tf.ones([x.shape.rank - 1], tf.int32)], 0))
            w = tf.cast(w, x.dtype)
            y = tf.gather(x, lower) * (1 - w) + tf.gather(x, upper) * w
        self.output.placeholder = tf.experimental.numpy.moveaxis(y, 0, ax)

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), factor: Any = None, axis: Any = None,
                               out_dim: Optional[Dim] = None, kind: str = "nn", fill_dropout: Any = None,
                               **kwargs: Any) -> Tensor:
        """:raises LayerArgError: unknown ``kind``, non-int ``factor``, ``fill_dropout``"""
        if kind not in _KINDS:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="kind", problem="invalid value", got=kind,
                                expected=" | ".join(repr(k) for k in _KINDS))
        if not isinstance(factor, int) or isinstance(factor, bool) or factor < 1:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="factor", problem="invalid value",
                                got=factor, expected="an int >= 1")
        if fill_dropout:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="fill_dropout",
                                problem="is not supported (yet) in this implementation:", got=fill_dropout)
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        ax = inp.get_axis_from_description(axis)
        new = dim_mul(inp.dims[ax], factor)
        if out_dim is not None:
            out_dim.declare_same_as(new)
        return inp.copy_template_replace_dim(ax, new)

"""``{"class": "resize", "factor": 2, "axis": "T", "kind": "nn"}``: re-samples an axis by a factor.

Shape: with an int ``factor`` (and no ``fill_dropout``) the axis becomes ``dim * factor`` (``'time*2'``, as the
reference) or ``out_dim``; lengths are multiplied. With a float ``factor`` or a scalar layer as ``factor``
(e.g. ``"data:factor"``), the axis becomes a new dim ``'<layer>_resize'`` of size ``ceil(size * factor)``,
lengths ``ceil(len * factor)``. Kinds (as observed from the reference, on the raw padded tensor of size ``n``,
output size ``m``): ``"nn"``: output frame ``j`` is input frame ``floor(j * n / m)``; ``"linear"``: linear
interpolation at the source position ``j * n / m`` (TF's legacy ``resize_bilinear``: no half-pixel centers, the
last frame held); ``"fill"`` (int factor only): each frame followed by ``factor - 1`` frames of ``fill_value``.
``fill_dropout`` (``"fill"`` only): each filled position of the padded axis is dropped with that probability (one
mask for the whole batch, in training and inference, as the reference); the kept frames move together and each
sequence's length counts the kept frames of its ``len * factor`` first positions; the axis is then a new dim
``'<layer>_resize'``.
"""

from __future__ import annotations

from typing import Any, Dict, Optional

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import Dim, SpatialDim, Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template
from returnn.tf.layers.shape._derived_dims import dim_mul

_KINDS = ("nn", "linear", "fill")


def _is_int_factor(factor: Any) -> bool:
    return isinstance(factor, int) and not isinstance(factor, bool)


@register_layer
class ResizeLayer(ConcatInputLayer):
    """Re-sampling along ``axis`` (``factor``: int, float or a scalar layer)."""

    layer_class = "resize"

    def __init__(self, factor: Any, axis: Any, out_dim: Optional[Dim] = None, kind: str = "nn",
                 fill_value: Any = None, fill_dropout: Optional[float] = None, **kwargs: Any):
        """
        :param factor: the resampling factor: an int, a float, or a scalar layer
        :param axis: the axis to resample
        :param kind: ``"nn"`` (nearest neighbour, default), ``"linear"`` or ``"fill"``
        :param fill_value: with ``kind="fill"``: the value of the inserted frames
        :param fill_dropout: with ``kind="fill"``: probability to drop each filled frame
        """
        super().__init__(**kwargs)
        inp = self.input_data
        ax = inp.get_axis_from_description(axis)
        x = tf.experimental.numpy.moveaxis(inp.placeholder, ax, 0)  # [T, ...]
        n = tf.shape(x)[0]
        new_dim = self.output.dims[ax]
        if isinstance(factor, LayerBase):
            factor_t = tf.cast(factor.output.placeholder, tf.float32)
        else:
            factor_t = tf.constant(float(factor), tf.float32)
        if _is_int_factor(factor):
            m = n * factor
        else:
            m = tf.cast(tf.math.ceil(tf.cast(n, tf.float32) * factor_t), tf.int32)
        keep = None
        if kind == "fill":
            fill = tf.fill(tf.shape(x), tf.cast(fill_value if fill_value is not None else 0, x.dtype))
            y = tf.stack([x] + [fill] * (factor - 1), axis=1)
            y = tf.reshape(y, tf.concat([[m], tf.shape(x)[1:]], axis=0))
            if fill_dropout:
                seed = self.network.random.randint(2 ** 31)
                is_orig = tf.equal(tf.range(m) % factor, 0)
                keep = tf.logical_or(is_orig, tf.random.uniform([m], seed=seed) >= fill_dropout)
                y = tf.boolean_mask(y, keep, axis=0)
        else:
            pos = tf.cast(tf.range(m), tf.float32) * (tf.cast(n, tf.float32) / tf.cast(m, tf.float32))
            lower = tf.minimum(tf.cast(tf.floor(pos), tf.int32), n - 1)
            if kind == "nn":
                y = tf.gather(x, lower)
            else:
                upper = tf.minimum(lower + 1, n - 1)
                w = tf.reshape(pos - tf.cast(lower, tf.float32),
                               tf.concat([[-1], tf.ones([x.shape.rank - 1], tf.int32)], 0))
                w = tf.cast(w, x.dtype)
                y = tf.gather(x, lower) * (1 - w) + tf.gather(x, upper) * w
        self.output.placeholder = tf.experimental.numpy.moveaxis(y, 0, ax)
        in_dim = inp.dims[ax]
        if new_dim.dimension is None and in_dim.dyn_size is not None and new_dim.dyn_size is None:
            lens = in_dim.dyn_size
            if keep is not None:
                kept = tf.concat([[0], tf.cumsum(tf.cast(keep, tf.int32))], axis=0)
                new_dim.dyn_size = tf.gather(kept, lens * factor)
            elif not _is_int_factor(factor):
                new_dim.dyn_size = tf.cast(tf.math.ceil(tf.cast(lens, tf.float32) * factor_t), tf.int32)

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        super().transform_config_dict(d, network=network, get_layer=get_layer)
        if isinstance(d.get("factor"), str):
            d["factor"] = get_layer(d["factor"])

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), factor: Any = None, axis: Any = None,
                               out_dim: Optional[Dim] = None, kind: str = "nn", fill_dropout: Any = None,
                               **kwargs: Any) -> Tensor:
        """:raises LayerArgError: unknown ``kind``, bad ``factor``, ``fill`` with a non-int factor, ``fill_dropout``
            without ``fill``"""
        if kind not in _KINDS:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="kind", problem="invalid value", got=kind,
                                expected=" | ".join(repr(k) for k in _KINDS))
        if isinstance(factor, LayerBase):
            if factor.output.batch_ndim != 0:
                raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="factor", problem="invalid value",
                                    got=repr(factor.output), expected="a scalar layer")
        elif isinstance(factor, bool) or not isinstance(factor, (int, float)) or factor <= 0:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="factor", problem="invalid value",
                                got=factor, expected="an int or float > 0, or a scalar layer")
        if kind == "fill" and (not _is_int_factor(factor) or factor < 1):
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="factor", problem="invalid value",
                                got=factor, expected="an int >= 1 with kind 'fill'")
        if fill_dropout and kind != "fill":
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="fill_dropout", problem="invalid value",
                                got=fill_dropout, expected="only with kind 'fill'")
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        ax = inp.get_axis_from_description(axis)
        in_dim = inp.dims[ax]
        base = name.split("/")[-1]
        if _is_int_factor(factor) and not fill_dropout:
            new = dim_mul(in_dim, factor)
        elif isinstance(factor, float) and in_dim.dimension is not None and not fill_dropout:
            new = SpatialDim(f"{base}_resize", int(-(-in_dim.dimension * factor // 1)))
        else:
            new = SpatialDim(f"{base}_resize", None)
        if out_dim is not None:
            out_dim.declare_same_as(new)
        return inp.copy_template_replace_dim(ax, new)

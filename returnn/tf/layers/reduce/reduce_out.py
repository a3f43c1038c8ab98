"""``{"class": "reduce_out", "mode": "max", "num_pieces": 2}``: maxout-style reduction of the feature axis.

Shape: ``{B, T, F} -> {B, T, F // num_pieces}``: the feature axis is cut into consecutive groups of
``num_pieces`` entries (``[f0, f1 | f2, f3 | ...]``) and each group is reduced by ``mode`` (``"max"``, ``"sum"``
or ``"mean"``, as the reference). The output feature dim is ``in_feature // num_pieces`` (description
``'<in>//<n>'``, as the reference); a given ``out_dim`` is declared the same as it. No params.

Errors: another ``mode`` (:class:`LayerArgError`), a feature dim not divisible by ``num_pieces`` or no feature
axis (:class:`LayerShapeError`); the reference raises on both too.
"""

from __future__ import annotations

from typing import Any, Optional

import tensorflow as tf

from returnn.errors import LayerArgError, LayerShapeError
from returnn.tensor import Dim, Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template
from returnn.tf.layers.shape._derived_dims import dim_floordiv
from returnn.util.suggest import close_matches

_MODES = {"max": tf.reduce_max, "sum": tf.reduce_sum, "mean": tf.reduce_mean}


@register_layer
class ReduceOutLayer(ConcatInputLayer):
    """Reduces groups of ``num_pieces`` consecutive features (maxout with ``mode="max"``)."""

    layer_class = "reduce_out"

    def __init__(self, mode: str, num_pieces: int, out_dim: Optional[Dim] = None, **kwargs: Any):
        """
        :param mode: ``"max"``, ``"sum"`` or ``"mean"`` over each group
        :param num_pieces: size of each group of consecutive features
        """
        super().__init__(out_dim=out_dim, **kwargs)
        inp = self.input_data
        axis = inp.feature_dim_axis
        x = inp.placeholder
        shape = tf.shape(x)
        new_shape = [shape[i] if inp.batch_shape[i] is None else inp.batch_shape[i] for i in range(inp.batch_ndim)]
        new_shape[axis:axis + 1] = [inp.dim // num_pieces, num_pieces]
        y = tf.reshape(x, tf.stack(new_shape) if any(isinstance(s, tf.Tensor) for s in new_shape) else new_shape)
        self.output.placeholder = _MODES[mode](y, axis=axis + 1)

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), mode: str = "", num_pieces: int = 0,
                               out_dim: Optional[Dim] = None, **kwargs: Any) -> Tensor:
        """:raises LayerArgError: unknown mode, num_pieces < 1
        :raises LayerShapeError: no (static) feature axis, or its size not divisible by ``num_pieces``"""
        if mode not in _MODES:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="mode", problem="invalid value",
                                got=mode, expected=" | ".join(_MODES), suggestions=close_matches(str(mode), _MODES))
        if not isinstance(num_pieces, int) or num_pieces < 1:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="num_pieces", problem="invalid value",
                                got=num_pieces, expected="an int >= 1")
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        if inp.sparse or inp.feature_dim_axis is None or inp.dim is None:
            raise LayerShapeError(layer=name, layer_class=cls.layer_class,
                                  problem="needs a dense input with a static feature axis", got=repr(inp))
        if inp.dim % num_pieces != 0:
            raise LayerShapeError(layer=name, layer_class=cls.layer_class,
                                  problem=f"feature dim {inp.dim} is not divisible by num_pieces={num_pieces}",
                                  got=repr(inp), hint="choose num_pieces dividing the input feature dim")
        new_dim = dim_floordiv(inp.feature_dim, num_pieces)
        if out_dim is not None:
            if out_dim.dimension != new_dim.dimension:
                raise LayerShapeError(layer=name, layer_class=cls.layer_class,
                                      problem=f"out_dim {out_dim!r} does not match the input feature dim // {num_pieces}",
                                      expected=repr(new_dim), got=repr(out_dim))
            out_dim.declare_same_as(new_dim)
        return inp.copy_template_replace_dim(inp.feature_dim_axis, new_dim)

"""``{"class": "tile", "multiples": {"F": 2}}``: repeats the whole content of axes (``tf.tile``).

Shape: each axis in ``multiples`` (axis description -> int) becomes ``n * dim`` (``'2*feature:data'``, as the
reference) or ``out_dims[axis]``. Dynamic axes are rejected (:class:`LayerShapeError`), as by the reference.
"""

from __future__ import annotations

from typing import Any, Dict, Optional

import tensorflow as tf

from returnn.errors import LayerArgError, LayerShapeError
from returnn.tensor import Dim, Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template
from returnn.tf.layers.shape._derived_dims import dim_mul_left


@register_layer
class TileLayer(ConcatInputLayer):
    """Tiles axes ``multiples`` times."""

    layer_class = "tile"

    def __init__(self, multiples: Dict[Any, int], out_dims: Optional[Dict[Any, Dim]] = None, **kwargs: Any):
        """
        :param multiples: {axis description: int}: how often each axis is repeated
        :param out_dims: {axis description: Dim}: the Dims of the tiled axes
        """
        super().__init__(**kwargs)
        inp = self.input_data
        reps = [1] * inp.batch_ndim
        for key, n in multiples.items():
            reps[inp.get_axis_from_description(key)] = n
        self.output.placeholder = tf.tile(inp.placeholder, reps)

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), multiples: Any = None,
                               out_dims: Optional[Dict[Any, Dim]] = None, **kwargs: Any) -> Tensor:
        """:raises LayerArgError: ``multiples`` not a dict
        :raises LayerShapeError: a dynamic axis"""
        if not isinstance(multiples, dict):
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="multiples", problem="invalid value",
                                got=multiples, expected='a dict axis -> int, e.g. {"F": 2}')
        out = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        for key, n in multiples.items():
            ax = out.get_axis_from_description(key)
            d = out.dims[ax]
            if d.dimension is None:
                raise LayerShapeError(layer=name, layer_class=cls.layer_class,
                                      problem=f"tiling of the dynamic axis {key!r} is not supported (as in the reference)",
                                      got=repr(out))
            new = dim_mul_left(d, n)
            if out_dims and key in out_dims:
                out_dims[key].declare_same_as(new)
            out = out.copy_template_replace_dim(ax, new)
        return out

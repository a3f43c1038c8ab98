"""``{"class": "gather_nd", "from": "base:encoder", "position": "prev:t"}``: per-sequence gather on the first
axis after the batch axis.

Shape: input ``{B, T, rest..}`` (made batch-major), ``position`` int ``{B, P..}`` or ``{P..}`` (no batch axis: the
same indices for every sequence, e.g. the step index ``":i"`` in a rec unit) -> ``{B, P.., rest..}`` with
``out[b, p.., r..] = in[b, position[b, p..], r..]``. The time axis is the position's if it has one, else the
input's if it remains; the feature axis is the input's (if it remains), as the reference marks them.

Errors: a position that is not an int (dense or sparse) tensor, an input without a batch axis or without an axis
to gather on (:class:`LayerArgError` / :class:`LayerShapeError`).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

import tensorflow as tf

from returnn.errors import LayerArgError, LayerShapeError
from returnn.tensor import Dim, Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template


@register_layer
class GatherNdLayer(ConcatInputLayer):
    """``out[b, p..] = in[b, position[b, p..]]`` (``tf.gather`` with ``batch_dims=1``)."""

    layer_class = "gather_nd"

    def __init__(self, position: LayerBase, **kwargs: Any):
        """
        :param position: layer with int indices into the input's first axis after the batch axis
        """
        super().__init__(**kwargs)
        self.position = position
        x = self.input_data.copy_as_batch_major().placeholder
        pos = position.output
        idx = pos.placeholder
        if pos.batch_dim_axis is not None:
            idx = pos.copy_as_batch_major().placeholder
            y = tf.gather(x, tf.cast(idx, tf.int32), axis=1, batch_dims=1)
        else:
            y = tf.gather(x, tf.cast(idx, tf.int32), axis=1)
        self.output.placeholder = y

    def get_dep_layers(self) -> List[LayerBase]:
        return super().get_dep_layers() + [self.position]

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        super().transform_config_dict(d, network=network, get_layer=get_layer)
        if isinstance(d.get("position"), str):
            d["position"] = get_layer(d["position"])

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), position: Optional[LayerBase] = None,
                               **kwargs: Any) -> Tensor:
        """:raises LayerArgError: ``position`` missing or not int
        :raises LayerShapeError: input without batch axis or without an axis after it"""
        if not isinstance(position, LayerBase) and not hasattr(position, "output"):
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="position",
                                problem="missing required argument" if position is None else "invalid value",
                                got=position, expected="a layer with int indices")
        pos = position.output
        if not pos.dtype.startswith(("int", "uint")):
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="position", problem="invalid value",
                                got=repr(pos), expected="a layer with int indices")
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        if inp.batch_dim_axis is None or inp.batch_ndim < 2:
            raise LayerShapeError(layer=name, layer_class=cls.layer_class,
                                  problem="needs an input with a batch axis and an axis to gather on", got=repr(inp))
        inp = inp.copy_as_batch_major()
        pos_bm = pos.copy_as_batch_major() if pos.batch_dim_axis is not None else pos
        pos_dims: List[Dim] = [d for d in pos_bm.dims if not d.is_batch_dim()]
        dims = [inp.dims[0]] + pos_dims + list(inp.dims[2:])
        shift = len(pos_dims) - 1

        def moved(axis: Optional[int]) -> Optional[int]:
            return None if axis is None or axis < 2 else axis + shift

        time_axis = moved(inp.time_dim_axis)
        if pos_bm.time_dim_axis is not None:
            time_axis = 1 + pos_dims.index(pos_bm.dims[pos_bm.time_dim_axis])
        return Tensor(name=f"{name}_output", dims=dims, dtype=inp.dtype, sparse_dim=inp.sparse_dim,
                      time_dim_axis=time_axis, feature_dim_axis=moved(inp.feature_dim_axis),
                      available_for_inference=inp.available_for_inference and pos.available_for_inference)

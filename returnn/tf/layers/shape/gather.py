"""``{"class": "gather", "position": <int|layer>, "axis": <axis>}``: pick entries along an axis.

``position`` an int: the axis is removed (``{B, T, F} --axis=F, position=1--> {B, T}``). ``position`` a layer
with int indices: the dims the position shares with the input (other than ``axis``, e.g. ``B``, ``T``) are
gathered per entry; output dims (as observed from the reference): those shared dims first (input order), then the
other input dims without ``axis``, with the position's own dims inserted at index ``max(0, axis - #shared)`` of
those (``{B, D, T, F1} --axis=D, position {B, T, F2}--> {B, T, F2, F1}``; ``{B, T, F} --axis=T, position {B}-->
{B, F}``); time and feature axes by the usual defaults.
"""

from __future__ import annotations

from typing import Any, Dict, List, Tuple

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import Dim, Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template


@register_layer
class GatherLayer(ConcatInputLayer):
    """``tf.gather`` along ``axis``."""

    layer_class = "gather"

    def __init__(self, position: Any, axis: Any, clip_to_valid: bool = False, **kwargs: Any):
        """
        :param position: an int, or a layer with int indices into ``axis``
        :param axis: the axis to gather from
        :param clip_to_valid: clip the indices to ``[0, n - 1]``, ``n`` the axis' size (the padded size for a
            dynamic axis)
        """
        super().__init__(**kwargs)
        inp = self.input_data
        if isinstance(position, int):
            ax = inp.get_axis_from_description(axis)
            self.output.placeholder = tf.gather(inp.placeholder, position, axis=ax)
            return
        pos = position.output
        ax = inp.get_axis_from_description(axis)
        common, _, _ = _split_dims(inp, ax, pos)
        # params: the common dims first (input order), then the others; indices: the same common dims first
        in_perm = [inp.dims.index(d) for d in common] + [i for i, d in enumerate(inp.dims) if d not in common]
        pos_perm = [pos.dims.index(d) for d in common] + [i for i, d in enumerate(pos.dims) if d not in common]
        params = tf.transpose(inp.placeholder, in_perm)
        idx = tf.transpose(tf.cast(pos.placeholder, tf.int32), pos_perm)
        gather_ax = in_perm.index(ax)
        if clip_to_valid:
            idx = tf.clip_by_value(idx, 0, tf.shape(inp.placeholder)[ax] - 1)
        y = tf.gather(params, idx, axis=gather_ax, batch_dims=len(common))
        raw_dims = ([inp.dims[i] for i in in_perm[:gather_ax]] + [pos.dims[i] for i in pos_perm[len(common):]]
                    + [inp.dims[i] for i in in_perm[gather_ax + 1:]])
        out_dims = list(self.output.dims)
        self.output.placeholder = tf.transpose(y, [raw_dims.index(d) for d in out_dims])

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        super().transform_config_dict(d, network=network, get_layer=get_layer)
        if isinstance(d.get("position"), str):
            d["position"] = get_layer(d["position"])

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), position: Any = None, axis: Any = None,
                               **kwargs: Any) -> Tensor:
        """:raises LayerArgError: float/dense position layer"""
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        if isinstance(position, int):
            ax = inp.get_axis_from_description(axis)
            out = inp.copy_template_excluding_axis(ax)
            out.name = f"{name}_output"
            return out
        is_layer = isinstance(position, LayerBase) or isinstance(getattr(position, "output", None), Tensor)
        if not is_layer or not position.output.dtype.startswith("int"):
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="position", problem="invalid value",
                                got=position, expected="an int or a layer with int indices")
        ax = inp.get_axis_from_description(axis)
        common, in_rest, pos_rest = _split_dims(inp, ax, position.output)
        at = max(0, ax - len(common))  # where the position's own dims go (the reference's placement)
        dims = common + in_rest[:at] + pos_rest + in_rest[at:]
        return Tensor(name=f"{name}_output", dims=dims, dtype=inp.dtype, sparse_dim=inp.sparse_dim)


def _split_dims(inp: Tensor, ax: int, pos: Tensor) -> Tuple[List[Dim], List[Dim], List[Dim]]:
    """:return: the dims of ``pos`` also in ``inp`` (not ``ax``; input order), the other input dims without ``ax``,
        the other position dims (position order)"""
    others = [d for i, d in enumerate(inp.dims) if i != ax]
    common = [d for d in others if d in pos.dims]
    return common, [d for d in others if d not in common], [d for d in pos.dims if d not in common]

"""``{"class": "search_sorted", "sorted_sequence": "s", "values": "v", "axis": "T", "side": "left"}``: for every
value, the index in the sorted sequence (along ``axis``) where it would be inserted (``tf.searchsorted``).

Shape: the values' dims, dtype int32. The sorted sequence's other dims must all be dims of the values (they are
matched, e.g. the batch); the sorted axis is used as it is (raw, padded).
"""

from __future__ import annotations

from typing import Any, Dict, List

import tensorflow as tf

from returnn.errors import LayerArgError, LayerShapeError
from returnn.tensor import Tensor
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer


@register_layer
class SearchSortedLayer(LayerBase):
    """``tf.searchsorted`` of ``values`` in ``sorted_sequence``."""

    layer_class = "search_sorted"
    recurrent = True  # depends on other frames (as the reference's class)

    def __init__(self, sorted_sequence: LayerBase, values: LayerBase, axis: Any = "T", side: str = "left",
                 **kwargs: Any):
        super().__init__(**kwargs)
        self.sorted_sequence, self.values = sorted_sequence, values
        srt, val = sorted_sequence.output, values.output
        ax = srt.get_axis_from_description(axis)
        common = [d for i, d in enumerate(srt.dims) if i != ax]
        s = tf.transpose(srt.placeholder, [srt.dims.index(d) for d in common] + [ax])  # [common.., N]
        other = [i for i, d in enumerate(val.dims) if d not in common]
        v_perm = [val.dims.index(d) for d in common] + other
        v = tf.transpose(val.placeholder, v_perm)
        v_shape = tf.shape(v)
        v_flat = tf.reshape(v, tf.concat([v_shape[:len(common)], [-1]], axis=0))  # [common.., M]
        idx = tf.searchsorted(tf.cast(s, v.dtype), v_flat, side=side, out_type=tf.int32)
        idx = tf.reshape(idx, v_shape)
        inverse = [v_perm.index(i) for i in range(val.batch_ndim)]
        self.output.placeholder = tf.transpose(idx, inverse)

    def get_dep_layers(self) -> List[LayerBase]:
        return super().get_dep_layers() + [self.sorted_sequence, self.values]

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        d.setdefault("from", [])
        super().transform_config_dict(d, network=network, get_layer=get_layer)
        for key in ("sorted_sequence", "values"):
            if isinstance(d.get(key), str):
                d[key] = get_layer(d[key])

    @classmethod
    def get_out_data_from_opts(cls, name: str, sorted_sequence: Any = None, values: Any = None, axis: Any = "T",
                               side: str = "left", **kwargs: Any) -> Tensor:
        """:raises LayerArgError: missing layers, bad ``side``; :raises LayerShapeError: dims not matched"""
        for arg, value in (("sorted_sequence", sorted_sequence), ("values", values)):
            if value is None or not hasattr(value, "output"):
                raise LayerArgError(layer=name, layer_class=cls.layer_class, arg=arg, problem="missing required argument")
        if side not in ("left", "right"):
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="side", problem="invalid value", got=side,
                                expected="'left' | 'right'")
        srt, val = sorted_sequence.output, values.output
        ax = srt.get_axis_from_description(axis)
        if any(d not in val.dims for i, d in enumerate(srt.dims) if i != ax):
            raise LayerShapeError(layer=name, layer_class=cls.layer_class,
                                  problem="every dim of sorted_sequence except axis must be a dim of values",
                                  got=f"sorted_sequence {srt!r}, values {val!r}")
        out = val.copy_template(name=f"{name.split('/')[-1]}_output")
        out.dtype = "int32"
        return out

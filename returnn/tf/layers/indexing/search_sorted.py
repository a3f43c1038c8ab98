"""``{"class": "search_sorted", "sorted_sequence": "s", "values": "v", "axis": "T", "side": "left"}``: for every
value, the index in the sorted sequence (along ``axis``) where it would be inserted (``tf.searchsorted``).

Shape: the values' dims, dtype int32. The sorted sequence's other dims must all be dims of the values (they are
matched, e.g. the batch; a feature dim also matches the values' feature dim of the same size, as the reference);
only the frames within each sequence's length of the sorted axis are searched (the result is at most that
length).
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
        """
        :param sorted_sequence: layer with the values sorted along ``axis``
        :param values: layer with the values to look up
        :param axis: the sorted axis of ``sorted_sequence`` (default ``"T"``)
        :param side: ``"left"`` (first suitable index, default) or ``"right"`` (last)
        """
        super().__init__(**kwargs)
        self.sorted_sequence, self.values = sorted_sequence, values
        srt, val = sorted_sequence.output, values.output
        ax = srt.get_axis_from_description(axis)
        matched = _match_dims(srt, ax, val)  # sorted axis -> values axis
        x = srt.placeholder
        lens = srt.dims[ax].dyn_size if srt.batch_dim_axis is not None and srt.batch_dim_axis in matched else None
        if lens is not None:  # frames past a sequence's end must not be found: the largest value, then clip
            big = x.dtype.max if not x.dtype.is_floating else float("inf")
            x = tf.where(srt.get_sequence_mask_broadcast(ax), x, tf.cast(big, x.dtype))
        s = tf.transpose(x, list(matched) + [ax])  # [common.., N]
        v_perm = list(matched.values()) + [i for i in range(val.batch_ndim) if i not in matched.values()]
        v = tf.transpose(val.placeholder, v_perm)
        v_shape = tf.shape(v)
        v_flat = tf.reshape(v, tf.concat([v_shape[:len(matched)], [-1]], axis=0))  # [common.., M]
        idx = tf.searchsorted(tf.cast(s, v.dtype), v_flat, side=side, out_type=tf.int32)
        if lens is not None:
            b_pos = list(matched).index(srt.batch_dim_axis)
            idx = tf.minimum(idx, tf.reshape(lens, [-1 if i == b_pos else 1 for i in range(len(matched) + 1)]))
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
        """:raises LayerArgError: missing layers, bad ``side``
        :raises LayerShapeError: dims not matched"""
        for arg, value in (("sorted_sequence", sorted_sequence), ("values", values)):
            if value is None or not hasattr(value, "output"):
                raise LayerArgError(layer=name, layer_class=cls.layer_class, arg=arg, problem="missing required argument")
        if side not in ("left", "right"):
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="side", problem="invalid value", got=side,
                                expected="'left' | 'right'")
        srt, val = sorted_sequence.output, values.output
        ax = srt.get_axis_from_description(axis)
        if len(_match_dims(srt, ax, val)) != srt.batch_ndim - 1:
            raise LayerShapeError(layer=name, layer_class=cls.layer_class,
                                  problem="every dim of sorted_sequence except axis must be a dim of values",
                                  got=f"sorted_sequence {srt!r}, values {val!r}")
        out = val.copy_template(name=f"{name.split('/')[-1]}_output")
        out.dtype = "int32"
        return out


def _match_dims(srt: Tensor, ax: int, val: Tensor) -> Dict[int, int]:
    """:return: axis of ``srt`` (all but ``ax``) -> the axis of ``val`` with that dim; an unmatched feature dim of
        ``srt`` matches the values' feature dim of the same size (as the reference); unmatched axes are left out"""
    out: Dict[int, int] = {}
    for i, d in enumerate(srt.dims):
        if i == ax:
            continue
        cands = [j for j, e in enumerate(val.dims) if e == d and j not in out.values()]
        if not cands:
            cands = [j for j, e in enumerate(val.dims)
                     if j not in out.values() and d.is_equal(e, allow_same_feature_dim=True)]
        if cands:
            out[i] = cands[0]
    return out

"""``{"class": "edit_distance", "a": <layer>, "b": <layer>}``: Levenshtein distance of two label sequences.

``a`` and ``b`` are sparse ``{B, T_a}`` / ``{B, T_b}`` (any order of batch and time; each with its own lengths,
padding ignored); the output is int32 ``{B}``: insertions + deletions + substitutions, as the reference.
``a_spatial_dim`` / ``b_spatial_dim`` pick the sequence axis (default: the time axis).
"""

from __future__ import annotations

from typing import Any, Dict, Optional

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import Dim, Tensor
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer


def sparse_labels(data: Tensor, axis: int) -> tf.SparseTensor:
    """:return: the valid labels of ``data`` (batch and ``axis`` only) as int32 ``SparseTensor`` ``[B, T]``"""
    tmp = data.copy_as_batch_major()
    axis = tmp.dims.index(data.dims[axis])
    if axis != 1:
        tmp = tmp.copy_move_axis(axis, 1)
    raw = tf.cast(tmp.placeholder, tf.int32)
    seq_dim = tmp.dims[1]
    lens = seq_dim.dyn_size if seq_dim.dimension is None else tf.fill([tf.shape(raw)[0]], tf.shape(raw)[1])
    idx = tf.where(tf.sequence_mask(lens, maxlen=tf.shape(raw)[1]))
    return tf.SparseTensor(idx, tf.gather_nd(raw, idx), tf.cast(tf.shape(raw), tf.int64))


@register_layer
class EditDistanceLayer(LayerBase):
    """Edit distance between ``a`` and ``b``, per sequence."""

    layer_class = "edit_distance"
    recurrent = True  # depends on other frames (as the reference's class)

    def __init__(self, a: LayerBase, b: LayerBase, a_spatial_dim: Optional[Dim] = None,
                 b_spatial_dim: Optional[Dim] = None, **kwargs: Any):
        """
        :param a: layer with the first label sequences (sparse)
        :param b: layer with the second label sequences (sparse)
        :param a_spatial_dim: the sequence axis of ``a`` (default: its time axis)
        :param b_spatial_dim: the sequence axis of ``b`` (default: its time axis)
        """
        super().__init__(**kwargs)
        sa = sparse_labels(a.output, _seq_axis(a.output, a_spatial_dim, self.name, "a"))
        sb = sparse_labels(b.output, _seq_axis(b.output, b_spatial_dim, self.name, "b"))
        self.output.placeholder = tf.cast(tf.edit_distance(sa, sb, normalize=False), tf.int32)

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        d.setdefault("from", [])
        super().transform_config_dict(d, network=network, get_layer=get_layer)
        for key in ("a", "b"):
            if not isinstance(d.get(key), str):
                raise LayerArgError(layer=d["name"], layer_class=cls.layer_class, arg=key,
                                    problem="missing or invalid", got=d.get(key), expected="a layer name")
            d[key] = get_layer(d[key])

    @classmethod
    def get_out_data_from_opts(cls, name: str, a: LayerBase = None, b: LayerBase = None,
                               a_spatial_dim: Optional[Dim] = None, b_spatial_dim: Optional[Dim] = None,
                               **kwargs: Any) -> Tensor:
        """:raises LayerArgError: a dense input, an input without batch or sequence axis"""
        for arg, layer, dim in (("a", a, a_spatial_dim), ("b", b, b_spatial_dim)):
            out = layer.output
            if not out.sparse or out.batch_dim_axis is None or out.batch_ndim != 2:
                raise LayerArgError(layer=name, layer_class=cls.layer_class, arg=arg, problem="must be sparse "
                                    "labels {B, T}:", got=out.get_description())
            _seq_axis(out, dim, name, arg)
        return Tensor(name=f"{name}_output", shape=(), dtype="int32", batch_dim_axis=0, time_dim_axis=None,
                      available_for_inference=False)


def _seq_axis(data: Tensor, dim: Optional[Dim], name: str, arg: str) -> int:
    if dim is not None:
        if dim not in data.dims:
            raise LayerArgError(layer=name, layer_class=EditDistanceLayer.layer_class, arg=f"{arg}_spatial_dim",
                                problem="is not an axis of the input:", got=dim, expected=data.get_dims_repr())
        return data.dims.index(dim)
    return [i for i in range(data.batch_ndim) if i != data.batch_dim_axis][0]

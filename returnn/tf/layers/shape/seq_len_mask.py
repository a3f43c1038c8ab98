"""``{"class": "seq_len_mask", "mask_value": 0.0, "axis": "T"}``: sets the frames outside the sequences to a value.

Shape: unchanged. A frame ``t`` of ``axis`` keeps its value if ``t < length`` (the lengths of ``axis``, or of the
time axis of ``seq_len_source``), ``t >= start`` (a layer with ``{B}`` starts) and, with ``window_start`` and
``window_size``, ``window_start <= t < window_start + window_size`` (``window_size`` alone has no effect, as in the
reference); every other frame becomes ``mask_value``.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

import tensorflow as tf

from returnn.tensor import Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template


def _per_batch(raw: tf.Tensor, batch_axis: int, ndim: int) -> tf.Tensor:
    shape = [1] * ndim
    shape[batch_axis] = -1
    return tf.reshape(raw, shape)


@register_layer
class SeqLenMaskLayer(ConcatInputLayer):
    """Masks frames outside ``[start, length)`` (and the window) with ``mask_value``."""

    layer_class = "seq_len_mask"

    def __init__(self, mask_value: Any, axis: Any = "T", seq_len_source: Optional[LayerBase] = None,
                 start: Optional[LayerBase] = None, window_start: Optional[LayerBase] = None,
                 window_size: Any = None, **kwargs: Any):
        """
        :param mask_value: the value of the masked frames
        :param axis: the axis to mask (default ``"T"``)
        :param seq_len_source: layer whose time axis gives the lengths (default: this input's lengths)
        :param start: layer with int ``{B}``: frames before it are masked
        :param window_start: layer with int ``{B}``: with ``window_size``, only frames in the window are kept
        :param window_size: the window length (int or layer), used together with ``window_start``
        """
        super().__init__(**kwargs)
        self.extra_deps = [x for x in (seq_len_source, start, window_start) if isinstance(x, LayerBase)]
        inp = self.input_data
        ax = inp.get_axis_from_description(axis)
        x = inp.placeholder
        n = inp.batch_ndim
        pos_shape = [1] * n
        pos_shape[ax] = -1
        pos = tf.reshape(tf.range(tf.shape(x)[ax]), pos_shape)
        b = inp.batch_dim_axis
        if seq_len_source is not None:
            lens = seq_len_source.output.get_sequence_lengths()
        else:
            d = inp.dims[ax]
            lens = d.dyn_size if d.dimension is None else None
        valid = tf.ones_like(pos, dtype=tf.bool)
        if lens is not None:
            valid = tf.logical_and(valid, pos < _per_batch(lens, b, n))
        starts = None
        if start is not None:
            starts = _per_batch(tf.cast(start.output.placeholder, tf.int32), b, n)
            valid = tf.logical_and(valid, pos >= starts)
        if window_start is not None and window_size is not None:
            ws = _per_batch(tf.cast(window_start.output.placeholder, tf.int32), b, n)
            size = window_size.output.placeholder if isinstance(window_size, LayerBase) else window_size
            if isinstance(size, tf.Tensor) and size.shape.rank:
                size = _per_batch(size, b, n)
            valid = tf.logical_and(valid, tf.logical_and(pos >= ws, pos < ws + size))
        valid = tf.broadcast_to(valid, tf.shape(x))
        self.output.placeholder = tf.where(valid, x, tf.cast(tf.fill(tf.shape(x), mask_value), x.dtype))

    def get_dep_layers(self) -> List[LayerBase]:
        return super().get_dep_layers() + self.extra_deps

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        super().transform_config_dict(d, network=network, get_layer=get_layer)
        for key in ("seq_len_source", "start", "window_start", "window_size"):
            if isinstance(d.get(key), str):
                d[key] = get_layer(d[key])

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), axis: Any = "T", **kwargs: Any) -> Tensor:
        """:raises AxisDescriptionError: ``axis`` matches no or several axes"""
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        inp.get_axis_from_description(axis)
        return inp

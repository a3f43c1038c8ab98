"""``{"class": "softmax_over_spatial", "from": "energy"}``: softmax over a spatial (time) axis, with masking.

Shape: the softmax axis ``axis`` (default: the time axis) moves to the end, as the reference's (observed:
``{B, T, F}`` -> ``{B, F, T}``, ``{B, T, S, F}`` -> ``{B, S, F, T}``); the softmax runs over it. Padded frames
(beyond the sequence lengths of ``axis``) get probability exactly 0.

:param axis: axis description (default ``"T"``)
:param energy_factor: multiply the input by this before the softmax (e.g. ``1/sqrt(d)``)
:param use_time_mask: mask padded frames (default True)
:param log_space: output log-probabilities instead (padded frames: -inf replaced by a large negative number)
"""

from __future__ import annotations

from typing import Any, Optional

import tensorflow as tf

from returnn.tensor import Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template
from returnn.tf.ops.dims import sequence_mask

_NEG = -1e30


@register_layer
class SoftmaxOverSpatialLayer(ConcatInputLayer):
    """See the module docstring."""

    layer_class = "softmax_over_spatial"

    def __init__(self, axis: Any = None, energy_factor: Optional[float] = None, use_time_mask: bool = True,
                 log_space: bool = False, start: Any = None, window_start: Any = None, window_size: Any = None,
                 **kwargs: Any):
        super().__init__(**kwargs)
        inp = self.input_data
        axis_idx = _softmax_axis(inp, axis)
        x = inp.placeholder
        if x.dtype != tf.float32:
            x = tf.cast(x, tf.float32)
        if energy_factor is not None:
            x = x * energy_factor
        mask = sequence_mask(inp, axis_idx) if use_time_mask else None
        if mask is not None:
            x = tf.where(mask, x, _NEG)  # SelectV2 broadcasts the mask and the scalar
        # along a non-last axis without the transposes tf.nn.softmax would add
        x = x - tf.stop_gradient(tf.reduce_max(x, axis=axis_idx, keepdims=True))
        if log_space:
            y = x - tf.math.log(tf.reduce_sum(tf.exp(x), axis=axis_idx, keepdims=True))
        else:
            e = tf.exp(x)
            y = e / tf.reduce_sum(e, axis=axis_idx, keepdims=True)
        if mask is not None and not log_space:
            y = tf.where(mask, y, 0.0)
        if axis_idx != inp.batch_ndim - 1:
            y = tf.transpose(y, [i for i in range(inp.batch_ndim) if i != axis_idx] + [axis_idx])
        self.output.placeholder = y

    @classmethod
    def get_out_data_from_opts(cls, name: str, network: Any, sources: Any = (), axis: Any = None,
                               **kwargs: Any) -> Tensor:
        """:return: the input's template (float32) with the softmax axis moved to the end
        :raises AxisDescriptionError: ``axis`` matches no axis"""
        out = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        out = out.copy_move_axis(_softmax_axis(out, axis), out.batch_ndim - 1)
        out.dtype = "float32"
        return out


def _softmax_axis(inp: Tensor, axis: Any) -> int:
    if axis is None:
        if inp.time_dim_axis is not None:
            return inp.time_dim_axis
        dyn = inp.get_dynamic_axes()
        return dyn[0] if dyn else inp.get_axis_from_description("spatial")
    return inp.get_axis_from_description(axis)

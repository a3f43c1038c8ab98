"""``{"class": "softmax_over_spatial", "from": "energy"}``: softmax over a spatial (time) axis, with masking.

Shape: the softmax axis ``axis`` (default: the time axis) moves to the end, as the reference's (observed:
``{B, T, F}`` -> ``{B, F, T}``, ``{B, T, S, F}`` -> ``{B, S, F, T}``); the softmax runs over it. Padded frames
(beyond the sequence lengths of ``axis``) get probability exactly 0.

:param axis: axis description (default ``"T"``)
:param energy_factor: multiply the input by this before the softmax (e.g. ``1/sqrt(d)``)
:param use_time_mask: mask padded frames (default True)
:param log_space: output log-probabilities instead (masked frames: -inf, as the reference)
:param start: layer name: int ``{B}`` (or with more of the input's dims, e.g. the decoder time of a layer moved
    out of its rec loop), frames before it are masked (probability 0)
:param window_start: layer name: int ``{B}`` (as ``start``); with ``window_size`` (int, or layer name) only the
    frames ``[window_start, window_start + window_size)`` stay (clipped to the sequence); with ``start``, the
    frames both allow. The reference (observed) rejects an int ``window_start`` and these masks without
    ``use_time_mask``; so does this layer, with a :class:`~returnn.errors.LayerArgError`.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

import tensorflow as tf

from returnn.errors import LayerArgError, TensorArgError
from returnn.log import log
from returnn.tensor import Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template
from returnn.tf.ops.dims import axis_mask

_NEG = -1e30


@register_layer
class SoftmaxOverSpatialLayer(ConcatInputLayer):
    """See the module docstring."""

    layer_class = "softmax_over_spatial"
    recurrent = True  # depends on other frames (as the reference's class)

    def __init__(self, axis: Any = None, energy_factor: Optional[float] = None, use_time_mask: bool = True,
                 log_space: bool = False, start: Any = None, window_start: Any = None, window_size: Any = None,
                 **kwargs: Any):
        """
        :param window_size: with ``window_start``: the window length (int or layer name)
        """
        super().__init__(**kwargs)
        self._mask_layers = [v for v in (start, window_start, window_size) if _is_layer(v)]
        inp = self.input_data
        axis_idx = _softmax_axis(inp, axis)
        x = inp.placeholder
        if x.dtype != tf.float32:
            x = tf.cast(x, tf.float32)
        if energy_factor is not None:
            x = x * energy_factor
        mask = axis_mask(inp, axis_idx) if use_time_mask else None
        if start is not None or window_start is not None:
            try:
                mask = _window_mask(inp, axis_idx, mask, start, window_start, window_size)
            except TensorArgError as exc:
                # e.g. a start with the decoder time of a rec loop, for an input that lost it when moved out of
                # the loop (a broadcast this project does not do yet): the mask cannot be applied
                print(f"WARNING: layer {self.name!r} (softmax_over_spatial): start/window not applied: {exc}",
                      file=log.v2)
        if mask is not None:
            x = tf.where(mask, x, _NEG)  # SelectV2 broadcasts the mask and the scalar
        # along a non-last axis without the transposes tf.nn.softmax would add
        x = x - tf.stop_gradient(tf.reduce_max(x, axis=axis_idx, keepdims=True))
        if log_space:
            y = x - tf.math.log(tf.reduce_sum(tf.exp(x), axis=axis_idx, keepdims=True))
        else:
            e = tf.exp(x)
            y = e / tf.reduce_sum(e, axis=axis_idx, keepdims=True)
        if mask is not None:
            y = tf.where(mask, y, float("-inf") if log_space else 0.0)
        #: the softmax axis's Dim when its padded frames are exactly 0 (probabilities with the time mask), else None;
        #: a ``dot`` reducing over it needs no further masking of this input
        self.zero_padded_dim = inp.dims[axis_idx] if mask is not None and not log_space else None
        if axis_idx != inp.batch_ndim - 1:
            y = tf.transpose(y, [i for i in range(inp.batch_ndim) if i != axis_idx] + [axis_idx])
        self.output.placeholder = y

    def get_dep_layers(self) -> List[LayerBase]:
        return super().get_dep_layers() + self._mask_layers

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        super().transform_config_dict(d, network=network, get_layer=get_layer)
        for key in ("start", "window_start", "window_size"):
            if isinstance(d.get(key), str):
                d[key] = get_layer(d[key])

    @classmethod
    def get_out_data_from_opts(cls, name: str, network: Any, sources: Any = (), axis: Any = None,
                               use_time_mask: bool = True, start: Any = None, window_start: Any = None,
                               window_size: Any = None, **kwargs: Any) -> Tensor:
        """:return: the input's template (float32) with the softmax axis moved to the end
        :raises AxisDescriptionError: ``axis`` matches no axis
        :raises LayerArgError: an int ``window_start``, a window without ``window_size`` (or the reverse), a
            ``start`` or window with ``use_time_mask=False``"""
        def bad(arg: str, got: Any, expected: str) -> LayerArgError:
            return LayerArgError(layer=name, layer_class=cls.layer_class, arg=arg, problem="invalid value",
                                 got=got, expected=expected)

        # (a template not built yet, in a rec unit's first template pass, is neither a layer nor a number)
        if isinstance(window_start, (int, float)):
            raise bad("window_start", window_start, "the name of a layer with int window starts {B}")
        if (window_start is None) != (window_size is None):
            arg, got = ("window_size", window_size) if window_start is None else ("window_start", window_start)
            raise bad(arg, got, "window_start and window_size together")
        if window_size is not None and not _is_layer(window_size) and isinstance(window_size, (bool, float, str)):
            raise bad("window_size", window_size, "an int, or the name of a layer with int sizes {B}")
        if (start is not None or window_start is not None) and not use_time_mask:
            raise bad("use_time_mask", use_time_mask, "True with start or window_start (as the reference)")
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


def _is_layer(value: Any) -> bool:
    """a layer, or its template while a rec unit is being built"""
    return hasattr(value, "output")


def _window_mask(inp: Tensor, axis: int, mask: Optional[tf.Tensor], start: Any, window_start: Any,
                 window_size: Any) -> tf.Tensor:
    """:return: ``mask`` (if any) and the frames of ``axis`` from ``start`` and inside the window, as a bool
    tensor broadcastable to the input (the start/window layers aligned to the input by ``copy_compatible_to``)
    :raises TensorArgError: a start/window layer has a dim the input lacks"""
    def aligned(value: Any) -> Any:  # an int, or the layer's values broadcastable to the input (size 1 at `axis`)
        if isinstance(value, int):
            return value
        return tf.cast(value.output.copy_compatible_to(inp, check_sparse=False, check_dtype=False).placeholder,
                       tf.int32)

    idx = tf.reshape(tf.range(tf.shape(inp.placeholder)[axis]), [-1 if i == axis else 1 for i in range(inp.batch_ndim)])
    conds = []
    if start is not None:
        conds.append(idx >= aligned(start))
    if window_start is not None:
        begin = aligned(window_start)
        conds += [idx >= begin, idx < begin + aligned(window_size)]
    if mask is not None:
        conds.append(mask)
    allowed = conds[0]
    for cond in conds[1:]:
        allowed = tf.logical_and(allowed, cond)
    return allowed

"""``{"class": "shift_axis", "axis": "T", "amount": 1}``: shifts the content along an axis.

``amount > 0`` moves frames to later positions, ``amount < 0`` to earlier ones. With ``pad`` (default), the axis
keeps its raw length: ``|amount|`` frames of ``pad_value`` come in on one side and as many fall off the other;
without ``pad``, the raw length shrinks by ``|amount|`` (``x[:-amount]`` resp. ``x[-amount:]``).

Dims (as the reference): with ``adjust_size_info`` (default) the axis gets a new dim ``'<layer>_shift_axis'``
(dynamic: lengths ``clip(length + amount, 0, new raw length)``; static: ``size - |amount|``); without, the dim
is kept. A static axis with ``pad`` and ``adjust_size_info`` is rejected (:class:`LayerShapeError`); the
reference fails on it too.
"""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from returnn.errors import LayerShapeError
from returnn.tensor import Dim, Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template


@register_layer
class ShiftAxisLayer(ConcatInputLayer):
    """Shift along ``axis`` by ``amount`` frames, padded with ``pad_value`` or cut."""

    layer_class = "shift_axis"

    def __init__(self, axis: Any, amount: int, pad: bool = True, pad_value: Any = 0, adjust_size_info: bool = True,
                 **kwargs: Any):
        """
        :param axis: the axis to shift along
        :param amount: frames to shift by (positive: to later positions, negative: to earlier ones)
        :param pad: keep the length, filling with ``pad_value`` (default True); False: cut the axis
        :param pad_value: the value of the frames shifted in (default 0)
        :param adjust_size_info: give the axis a new Dim with adjusted lengths (default True)
        """
        super().__init__(**kwargs)
        inp = self.input_data
        ax = inp.get_axis_from_description(axis)
        x = inp.placeholder
        n = abs(amount)

        def cut(start: Any, stop: Any) -> tf.Tensor:
            index = [slice(None)] * inp.batch_ndim
            index[ax] = slice(start, stop)
            return x[tuple(index)]

        if amount == 0:
            y = tf.identity(x)
        elif pad:  # pad, then cut back to the raw length (all padding when |amount| exceeds it, as the reference)
            paddings = [[0, 0] for _ in range(inp.batch_ndim)]
            paddings[ax] = [n, 0] if amount > 0 else [0, n]
            size = tf.shape(x)[ax]
            padded = tf.pad(x, paddings, constant_values=pad_value)
            index = [slice(None)] * inp.batch_ndim
            index[ax] = slice(None, size) if amount > 0 else slice(n, None)
            y = padded[tuple(index)]
        else:
            y = cut(None, -n) if amount > 0 else cut(n, None)
        out_dim = self.output.dims[ax]
        in_dim = inp.dims[ax]
        if out_dim is not in_dim and out_dim.is_dynamic() and in_dim.dyn_size is not None:
            max_len = tf.shape(y)[ax]
            out_dim.dyn_size = tf.clip_by_value(in_dim.dyn_size + amount, 0, max_len)
        self.output.placeholder = y

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), axis: Any = None, amount: int = 0,
                               pad: bool = True, adjust_size_info: bool = True, **kwargs: Any) -> Tensor:
        """:raises LayerShapeError: a static axis with ``pad`` and ``adjust_size_info``"""
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        ax = inp.get_axis_from_description(axis)
        if not adjust_size_info:
            return inp
        old = inp.dims[ax]
        if old.dimension is not None:
            if pad:
                raise LayerShapeError(layer=name, layer_class=cls.layer_class,
                                      problem=f"cannot shift the static axis {axis!r} with pad=True and "
                                              "adjust_size_info=True (the padded axis keeps its size)",
                                      got=repr(inp), hint="set adjust_size_info=False or pad=False")
            new = Dim(max(old.dimension - abs(amount), 0), description=f"{name}_shift_axis", kind=old.kind)
        else:
            new = Dim(None, description=f"{name}_shift_axis", kind=old.kind)
        return inp.copy_template_replace_dim(ax, new)

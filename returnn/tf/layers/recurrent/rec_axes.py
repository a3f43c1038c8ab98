"""The axes of a ``rec`` layer with a string unit: the input axis it runs over and the axes that count as batch.

A string unit runs over one axis of its input: ``axis`` (a Dim of the input, or an axis description), by default
the time axis. Every other axis except the feature axis counts as batch: each of its entries is a sequence of its
own, e.g. ``{T, W, B, F}`` over ``T`` is ``W * B`` sequences, and ``{B, T, W, F}`` over ``W`` (a window of frames,
as the reference's ``window`` layer makes) is ``B * T`` sequences of length ``W``. The output has the loop axis
first and the other axes in the input's order, the feature axis last (``n_out``): ``{T, W, B, F}`` ->
``{T, W, B, n_out}``, ``{B, T, F}`` -> ``{T, B, n_out}`` (time-major, as always). Frames beyond the lengths of the
loop axis (its lengths may have any of the other axes, or none: a static dim) are zero in the output.

With ``axis=single_step_dim`` (or an input without the loop axis) every frame is one step of its own; inside a rec
loop, the state of each frame is carried from step to step in the frame's layout ``{B, ..., n_out}``.
"""

from __future__ import annotations

from typing import Any, Optional, Tuple

import tensorflow as tf

from returnn.errors import LayerShapeError
from returnn.tensor import Dim, Tensor, single_step_dim
from returnn.tf.ops.dims import axis_mask


def loop_axis(inp: Tensor, axis: Any) -> Optional[int]:
    """:return: the axis of ``inp`` the unit runs over: ``axis`` (a Dim of ``inp``, or a description), else its time
        axis; None: no such axis (each frame is one step)"""
    if axis is single_step_dim:
        return None
    if isinstance(axis, Dim):
        if axis in inp.dims:
            return inp.dims.index(axis)
        return inp.time_dim_axis  # e.g. the dim of a rec unit's loop: the frame has no such axis
    if axis is not None:
        return inp.get_axis_from_description(axis)
    return inp.time_dim_axis


def is_plain(inp: Tensor, axis_idx: Optional[int]) -> bool:
    """:return: whether ``inp`` is ``{B, T, F}`` (sparse ``{B, T}``) run over its time axis (the common case)"""
    return (axis_idx is not None and axis_idx == inp.time_dim_axis and inp.batch_dim_axis is not None
            and inp.batch_ndim == (2 if inp.sparse else 3))


def over_axis_layout(name: str, layer_class: str, inp: Tensor, axis_idx: int) -> Tensor:
    """:return: ``inp`` with the loop axis first and the feature axis last (the others in their order), the layout
        of the output and of the raw input the unit runs on
    :raises LayerShapeError: a dense input without a feature axis, or no other axis"""
    out = inp.copy_move_axis(axis_idx, 0)
    if not out.sparse:
        if out.feature_dim_axis is None or out.feature_dim_axis == 0:
            raise LayerShapeError(layer=name, layer_class=layer_class,
                                  problem="the input needs a feature axis besides the axis the unit runs over",
                                  expected="{T, ..., F}", got=inp.get_dims_repr())
        out = out.copy_move_axis(out.feature_dim_axis, out.batch_ndim - 1)
    if out.batch_ndim < (2 if out.sparse else 3):
        raise LayerShapeError(layer=name, layer_class=layer_class,
                              problem="the input needs a batch-like axis besides the axis the unit runs over",
                              expected="{T, B, F}", got=inp.get_dims_repr())
    return out


def flat_sequences(layout: Tensor, n_in: int) -> Tuple[tf.Tensor, tf.Tensor, tf.Tensor]:
    """:param layout: the input in :func:`over_axis_layout`'s layout, with its raw tensor
    :param n_in: the feature dim (of the one-hot vectors for a sparse input)
    :return: (``[L, N, n_in]`` float: the sequences, ``N`` the product of the batch-like axes; ``[N]`` int32 their
        lengths; the shape of the batch-like axes, int32 ``[ndim - 2]``)"""
    x = layout.placeholder
    if layout.sparse:
        x = tf.one_hot(tf.cast(x, tf.int32), n_in, dtype=tf.float32)
    shape = tf.shape(x)
    batch_shape = shape[1:-1]
    mask = axis_mask(layout, 0)  # True on valid frames, size 1 on the axes its lengths do not have
    if mask is None:  # a static dim: all frames
        lens = tf.fill(batch_shape, shape[0])
    else:
        if layout.sparse:
            mask = tf.expand_dims(mask, -1)
        full = tf.broadcast_to(mask, tf.concat([shape[:-1], [1]], axis=0))[..., 0]
        lens = tf.reduce_sum(tf.cast(full, tf.int32), axis=0)
    return tf.reshape(x, [shape[0], -1, n_in]), tf.reshape(lens, [-1]), batch_shape

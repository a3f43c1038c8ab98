"""Slicing, padding and windowing of raw TF tensors (legacy ``TFUtil`` functions): ``single_strided_slice``,
``slice_pad_zeros``, ``pad_zeros_in_axis``, ``circular_pad``, ``slice_nd``, ``windowed_nd``,
``constant_with_shape``, ``dimshuffle``."""

from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple, Union

import tensorflow as tf

from returnn.tf.util.errors import TFUtilArgError, TFUtilValueError
from returnn.tf.util.shape import get_shape

IntOrTensor = Union[int, tf.Tensor]


def single_strided_slice(x: Any, axis: IntOrTensor, begin: Optional[IntOrTensor] = None,
                         end: Optional[IntOrTensor] = None, step: Optional[IntOrTensor] = None) -> tf.Tensor:
    """``x[..., begin:end:step, ...]`` on one axis.

    :param x: tensor of known rank (or with a dynamic ``axis``: any rank)
    :param axis: int or int32 scalar tensor; negative counts from the end
    :param begin: as in Python slicing (None: from the start)
    :param end: as in Python slicing (None: to the end)
    :param step: as in Python slicing (None: 1)
    :return: ``x`` sliced on ``axis``, the other axes unchanged
    """
    with tf.name_scope("single_strided_slice"):
        x = tf.convert_to_tensor(x)
        static_axis = tf.get_static_value(axis) if isinstance(axis, tf.Tensor) else axis
        if static_axis is not None and x.shape.rank is not None:
            axis = int(static_axis)
            if axis < 0:
                axis += x.shape.rank
            if not 0 <= axis < x.shape.rank:
                raise TFUtilArgError("single_strided_slice", f"axis {static_axis} out of range for rank "
                                                             f"{x.shape.rank}")
            return x[(slice(None),) * axis + (slice(begin, end, step),)]
        # dynamic axis: full range on every other axis, the given (or full) range on ``axis``
        shape = tf.shape(x)
        rank = tf.size(shape)
        axis = tf.where(tf.less(axis, 0), axis + rank, axis)
        is_axis = tf.equal(tf.range(rank), axis)
        step_v = tf.convert_to_tensor(step if step is not None else 1, tf.int32)
        neg = tf.less(step_v, 0)
        full_begin = tf.where(neg, shape - 1, tf.zeros_like(shape))
        full_end = tf.where(neg, -shape - 1, shape)
        begins = tf.where(is_axis, full_begin if begin is None else tf.fill([rank], begin), tf.zeros_like(shape))
        ends = tf.where(is_axis, full_end if end is None else tf.fill([rank], end), shape)
        steps = tf.where(is_axis, tf.fill([rank], step_v), tf.ones_like(shape))
        return tf.strided_slice(x, begins, ends, steps)


def pad_zeros_in_axis(x: Any, before: IntOrTensor = 0, after: IntOrTensor = 0, axis: int = 0) -> tf.Tensor:
    """:param x: tensor of known rank
    :param before: number of zeros (or ``False``/empty strings, per dtype) to add before, on ``axis``
    :param after: number to add after
    :param axis: the axis (negative counts from the end)
    :return: ``x`` padded on ``axis``"""
    with tf.name_scope("pad_zeros_in_axis"):
        x = tf.convert_to_tensor(x)
        rank = x.shape.rank
        axis = axis + rank if axis < 0 else axis
        paddings = [[0, 0]] * axis + [[before, after]] + [[0, 0]] * (rank - axis - 1)
        return tf.pad(x, paddings)


def slice_pad_zeros(x: Any, begin: IntOrTensor, end: IntOrTensor, axis: int = 0) -> tf.Tensor:
    """``x[begin:end]`` on ``axis`` where ``begin`` may be negative and ``end`` past the size: those positions are
    zeros (not Python's wrap-around), so the result always has ``end - begin`` entries on ``axis``.

    :param x: tensor of known rank
    :param begin: first position (negative: zeros before position 0)
    :param end: end position (past the size: zeros after the last)
    :param axis: the axis
    :return: ``end - begin`` entries on ``axis``
    """
    with tf.name_scope("slice_pad_zeros"):
        x = tf.convert_to_tensor(x)
        size = get_shape(x)[axis]
        pad_before = tf.maximum(-begin, 0)
        pad_after = tf.maximum(end - tf.maximum(size, begin), 0)
        sliced = single_strided_slice(x, axis=axis, begin=tf.clip_by_value(begin, 0, size),
                                      end=tf.clip_by_value(end, 0, size))
        # begin past the end or end before 0: the clipped slice is empty, all zeros
        pad_before = tf.minimum(pad_before, end - begin)
        pad_after = (end - begin) - pad_before - tf.shape(sliced)[axis]
        return pad_zeros_in_axis(sliced, before=pad_before, after=pad_after, axis=axis)


def _norm_paddings(paddings: Any, n: int) -> List[Tuple[Any, Any]]:
    if isinstance(paddings, (int, tf.Tensor)):
        return [(paddings, paddings)] * n
    paddings = list(paddings)
    if len(paddings) == 2 and all(isinstance(p, (int, tf.Tensor)) for p in paddings) and n == 1:
        return [(paddings[0], paddings[1])]
    if len(paddings) != n:
        raise TFUtilArgError("circular_pad", f"expected {n} (before, after) paddings (one per axis), got {paddings!r}")
    out = []
    for p in paddings:
        if isinstance(p, (int, tf.Tensor)):
            out.append((p, p))
        else:
            before, after = p
            out.append((before, after))
    return out


def circular_pad(x: Any, paddings: Any, axes: Union[None, int, Sequence[int]] = None) -> tf.Tensor:
    """Pads periodically: the ``before`` entries are the last ones of the axis, the ``after`` entries the first
    ones (as ``numpy.pad(mode="wrap")``).

    :param x: tensor of known rank
    :param paddings: an int (the same before and after on every axis), or per axis an int or ``(before, after)``
        (each at most the axis size)
    :param axes: the axes to pad; None: the last 2 (all if ``x`` has fewer)
    :return: ``x`` padded on ``axes``
    """
    with tf.name_scope("circular_pad"):
        x = tf.convert_to_tensor(x)
        rank = x.shape.rank
        if axes is None:
            axes = list(range(max(rank - 2, 0), rank))
        elif isinstance(axes, int):
            axes = [axes]
        axes = [a + rank if a < 0 else a for a in axes]
        for axis, (before, after) in zip(axes, _norm_paddings(paddings, len(axes))):
            parts = []
            if not (isinstance(before, int) and before == 0):
                parts.append(single_strided_slice(x, axis=axis, begin=-before))
            parts.append(x)
            if not (isinstance(after, int) and after == 0):
                parts.append(single_strided_slice(x, axis=axis, end=after))
            x = tf.concat(parts, axis=axis)
        return x


def slice_nd(x: Any, start: Any, size: IntOrTensor) -> tf.Tensor:
    """Per sequence a window of ``size`` frames: ``y[b, t] = x[b, start[b] + t]``, zeros where ``start[b] + t``
    is past the time axis.

    :param x: (batch, time, ...)
    :param start: (batch,) int, each >= 0
    :param size: window size (int or int32 scalar)
    :return: (batch, size, ...)
    """
    with tf.name_scope("slice_nd"):
        x = tf.convert_to_tensor(x)
        start = tf.cast(tf.convert_to_tensor(start), tf.int32)
        shape = tf.shape(x)
        n_time = shape[1]
        positions = tf.expand_dims(start, 1) + tf.range(size)[None, :]  # (batch, size)
        valid = tf.less(positions, n_time)
        positions = tf.minimum(positions, tf.maximum(n_time - 1, 0))
        y = tf.gather(x, positions, axis=1, batch_dims=1)  # (batch, size, ...)
        mask = tf.reshape(valid, tf.concat([tf.shape(valid), tf.ones([tf.rank(x) - 2], tf.int32)], axis=0))
        y = tf.where(mask, y, tf.zeros_like(y))
        static = x.shape.as_list()
        y.set_shape([static[0], size if isinstance(size, int) else None] + static[2:])
        return y


def windowed_nd(source: Any, window_size: IntOrTensor, window_left: Optional[IntOrTensor] = None,
                window_right: Optional[IntOrTensor] = None, padding: str = "same", time_axis: int = 1,
                new_window_axis: int = 2, stride: int = 1) -> tf.Tensor:
    """Frames ``window_size`` consecutive time frames per time step into a new axis.

    With ``padding="same"``, out[t, w] = source[t + w - window_left] (zeros outside), one output frame per input
    frame; ``window_left`` defaults to ``window_size - window_size // 2 - 1`` (centered, one more frame right
    for even sizes), ``window_right`` to the rest. With ``padding="valid"``, out[t, w] = source[t + w] for the
    ``time - window_size + 1`` positions where the window fits. ``stride`` keeps every ``stride``-th frame.

    :param source: tensor with a time axis (numpy arrays accepted)
    :param window_size: frames per window
    :param window_left: frames before the current one ("same" only)
    :param window_right: frames after the current one ("same" only); left + 1 + right must be ``window_size``
    :param padding: "same" or "valid"
    :param time_axis: time axis of ``source``
    :param new_window_axis: position of the window axis in the result (after the time axis)
    :param stride: step between output frames
    :return: ``source``'s shape with the (possibly shorter) time axis and the window axis inserted
    :raises TFUtilValueError: unknown ``padding``
    """
    if padding not in ("same", "valid"):
        raise TFUtilValueError("windowed_nd", "padding", expected="'same' or 'valid'", got=padding)
    with tf.name_scope("windowed_nd"):
        source = tf.convert_to_tensor(source)
        rank = source.shape.rank
        if time_axis < 0:
            time_axis += rank
        if time_axis != 0:
            source = tf.transpose(source, [time_axis] + [i for i in range(rank) if i != time_axis])  # (time, ...)
        if padding == "same":
            if window_right is None:
                window_right = window_size // 2 if window_left is None else window_size - window_left - 1
            if window_left is None:
                window_left = window_size - window_right - 1
            n_out = tf.shape(source)[0]
            source = pad_zeros_in_axis(source, before=window_left, after=window_right, axis=0)
        else:
            n_out = tf.maximum(tf.shape(source)[0] - window_size + 1, 0)
        positions = tf.range(0, n_out, stride)[:, None] + tf.range(window_size)[None, :]  # (time', window)
        out = tf.gather(source, positions)  # (time', window, ...)
        # back to the source's axis order, window axis at new_window_axis
        out_rank = rank + 1
        others = list(range(2, out_rank))  # the source's other axes, in order
        order = others[:]
        order.insert(time_axis, 0)
        window_pos = new_window_axis if new_window_axis >= 0 else new_window_axis + out_rank
        order.insert(window_pos, 1)
        if order != list(range(out_rank)):
            out = tf.transpose(out, order)
        return out


def constant_with_shape(x: Any, shape: Any, dtype: Any = None, name: str = "constant_with_shape") -> tf.Tensor:
    """:param x: scalar value (Python bool/int/float or scalar tensor)
    :param shape: list of ints/int32 scalars, or a 1-D int tensor
    :param dtype: result dtype; default: that of ``x`` (bool, int32, float32 for Python values)
    :return: tensor of ``shape`` filled with ``x``"""
    with tf.name_scope(name):
        x = tf.convert_to_tensor(x, dtype=dtype)
        if not isinstance(shape, tf.Tensor):
            shape = list(shape)
            if any(isinstance(d, tf.Tensor) for d in shape):
                shape = tf.stack([tf.convert_to_tensor(d, tf.int32) for d in shape])
        return tf.fill(shape, x)


def dimshuffle(x: Any, axes: Sequence[Union[int, str]], name: str = "dimshuffle") -> tf.Tensor:
    """Theano's ``dimshuffle``: transposes to the given axis order, ``"x"`` inserting a broadcast axis of size 1;
    axes of ``x`` not listed must have size 1 and are dropped.

    :param x: tensor of known rank
    :param axes: e.g. ``(1, "x", 0)``: (a, b) -> (b, 1, a)
    :return: the rearranged tensor
    :raises TFUtilArgError: an axis listed twice
    """
    with tf.name_scope(name):
        x = tf.convert_to_tensor(x)
        rank = x.shape.rank
        kept = [a for a in axes if a != "x"]
        if len(set(kept)) != len(kept):
            raise TFUtilArgError("dimshuffle", f"axes {tuple(axes)!r} list an axis twice")
        dropped = [i for i in range(rank) if i not in kept]
        if dropped:
            x = tf.squeeze(x, axis=dropped)
            kept = [a - sum(1 for d in dropped if d < a) for a in kept]
        if kept != sorted(kept):
            x = tf.transpose(x, kept)
        for i, a in enumerate(axes):
            if a == "x":
                x = tf.expand_dims(x, axis=i)
        return x

"""The boundary between :class:`returnn.tensor.Tensor` templates and TF ops: sizes, masks, padding.

All functions take a Tensor with a raw tensor (``placeholder``) set, unless stated otherwise.
"""

from __future__ import annotations

from typing import Any, Optional

import tensorflow as tf

from returnn.tensor import Dim, Tensor
from returnn.tf.ops.masks import sequence_mask


def get_batch_size(tensor: Tensor) -> tf.Tensor:
    """:return: int32 scalar, the batch size of ``tensor`` (from its raw tensor or a dynamic size)"""
    if tensor.batch_dim_axis is not None and tensor.placeholder is not None:
        return tf.shape(tensor.placeholder)[tensor.batch_dim_axis]
    for d in tensor.dims:
        if d.is_dynamic() and d.dyn_size is not None:
            return tf.shape(d.dyn_size)[0]
    raise ValueError(f"{tensor}: cannot determine the batch size")


def get_dim_size(tensor: Tensor, axis: int) -> Any:
    """:return: the size of ``axis``: python int if static, else int32 scalar from the raw shape"""
    d = tensor.dims[axis]
    if d.dimension is not None:
        return d.dimension
    return tf.shape(tensor.placeholder)[axis]


def axis_mask(tensor: Tensor, axis: int) -> Optional[tf.Tensor]:
    """Bool mask broadcastable to ``tensor.placeholder``: True on valid frames of the dynamic ``axis`` (a
    :func:`~returnn.tf.ops.masks.sequence_mask` of the axis's lengths, laid out on the tensor's axes).

    Shape: all axes size 1 except the batch axis and ``axis``. Returns None if ``axis`` is static or has no
    known per-sequence lengths (nothing to mask). A dim with one (scalar) length for the whole batch
    (``Dim(Tensor("time", dims=(), dtype="int32"))``) gives a mask that is size 1 on the batch axis too.
    """
    d: Dim = tensor.dims[axis]
    if d.dimension is not None or d.dyn_size is None:
        return None
    max_len = tf.shape(tensor.placeholder)[axis]
    ext = d.dyn_size_ext
    if ext is not None and (len(ext.dims) > 1 or (len(ext.dims) == 1 and not ext.dims[0].is_batch_dim())):
        # lengths per entry of several dims, e.g. [B, T], or of another dim than the batch, e.g. [T]
        return _multi_dim_axis_mask(tensor, axis, ext, max_len)
    if getattr(d.dyn_size, "shape", None) is not None and d.dyn_size.shape.rank == 0:
        mask = sequence_mask(d.dyn_size, maxlen=max_len)  # [T]
        for i in range(tensor.batch_ndim):
            if i != axis:
                mask = tf.expand_dims(mask, i)
        return mask
    if tensor.batch_dim_axis is None:
        return None
    mask = sequence_mask(d.dyn_size, maxlen=max_len)  # [B, T]
    if tensor.batch_dim_axis > axis:
        mask = tf.transpose(mask, [1, 0])
    for i in range(tensor.batch_ndim):  # size-1 axes everywhere else (no shape arithmetic: cheap in loops)
        if i not in (axis, tensor.batch_dim_axis):
            mask = tf.expand_dims(mask, i)
    return mask


def _multi_dim_axis_mask(tensor: Tensor, axis: int, ext: Tensor, max_len: Any) -> Optional[tf.Tensor]:
    """:return: the mask of ``axis`` whose lengths ``ext`` have several dims (all of them axes of ``tensor``, else
        None), size 1 on the other axes"""
    ext_axes = []
    for ext_dim in ext.dims:
        found = [i for i, d in enumerate(tensor.dims) if d == ext_dim and i != axis and i not in ext_axes]
        if not found:
            return None
        ext_axes.append(found[0])
    mask = sequence_mask(ext.placeholder, maxlen=max_len)  # ext dims + [axis]
    src_axes = ext_axes + [axis]
    order = sorted(range(len(src_axes)), key=lambda i: src_axes[i])
    if order != list(range(len(src_axes))):
        mask = tf.transpose(mask, order)
    for i in range(tensor.batch_ndim):
        if i not in src_axes:
            mask = tf.expand_dims(mask, i)
    return mask


def valid_frames_mask(tensor: Tensor, axes: Any) -> Optional[tf.Tensor]:
    """:return: bool mask broadcastable to ``tensor.placeholder``, True where the frame is valid on every dynamic
        axis among ``axes`` (see :func:`axis_mask`); None if none of them has lengths to mask"""
    mask = None
    for axis in axes:
        m = axis_mask(tensor, axis)
        if m is not None:
            mask = m if mask is None else tf.logical_and(mask, m)
    return mask


def mask_padded(tensor: Tensor, axis: int, value: Any) -> tf.Tensor:
    """:return: ``tensor.placeholder`` with padded frames of ``axis`` replaced by ``value``"""
    mask = axis_mask(tensor, axis)
    x = tensor.placeholder
    if mask is None:
        return x
    fill = tf.cast(tf.fill(tf.shape(x), value) if not isinstance(value, tf.Tensor) else value, x.dtype)
    return tf.where(tf.broadcast_to(mask, tf.shape(x)), x, fill)


def mask_all_dynamic(tensor: Tensor, value: Any = 0) -> tf.Tensor:
    """:return: raw tensor with padded frames of every dynamic axis set to ``value``"""
    x = tensor
    raw = tensor.placeholder
    for axis in tensor.get_dynamic_axes():
        raw = mask_padded(_with_raw(x, raw), axis, value)
    return raw


def _with_raw(tensor: Tensor, raw: tf.Tensor) -> Tensor:
    out = tensor.copy()
    out.placeholder = raw
    return out


def num_valid_frames(tensor: Tensor, axis: int) -> tf.Tensor:
    """:return: int32 scalar, sum of lengths of ``axis`` over the batch (static: batch * dimension)"""
    d = tensor.dims[axis]
    if d.dimension is None and d.dyn_size is not None:
        return tf.reduce_sum(d.dyn_size)
    return get_batch_size(tensor) * get_dim_size(tensor, axis)


def set_static_shape(tensor: Tensor) -> None:
    """Applies the template's static dims to the raw tensor's static shape (raises if incompatible)."""
    tensor.placeholder.set_shape(tensor.batch_shape)

"""Broadcasting several tensors to a common shape (legacy ``TFUtil`` functions): ``get_common_shape``,
``unbroadcast_to_common_shape``, ``concat_with_opt_broadcast``, ``nested_get_shapes``."""

from __future__ import annotations

from typing import Any, List, Optional, Sequence, Union

import tensorflow as tf

from returnn.tf.util.errors import TFUtilArgError
from returnn.util.values import NotSpecified

IntOrTensor = Union[int, tf.Tensor]


def get_common_shape(values: Sequence[Any], ignore_axes: Sequence[int] = (),
                     allow_broadcast_all_sources: Any = NotSpecified) -> List[Optional[IntOrTensor]]:
    """:param values: tensors of the same rank (size-1 axes broadcast)
    :param ignore_axes: axes to leave out (None there)
    :param allow_broadcast_all_sources: accepted for compatibility
    :return: per axis the common size: an int if some tensor has it statically (other than 1), else the
        maximum of the dynamic sizes
    :raises TFUtilArgError: ranks differ"""
    del allow_broadcast_all_sources
    values = [tf.convert_to_tensor(v) for v in values]
    rank = values[0].shape.rank
    if any(v.shape.rank != rank for v in values):
        raise TFUtilArgError("get_common_shape", f"expected tensors of the same rank, got "
                                                 f"{[tuple(v.shape) for v in values]}")
    shape: List[Optional[IntOrTensor]] = []
    for axis in range(rank):
        if axis in ignore_axes or axis - rank in ignore_axes:
            shape.append(None)
            continue
        static = {v.shape[axis] for v in values} - {1}
        known = {d for d in static if d is not None}
        if len(known) == 1 and None not in static:
            shape.append(known.pop())
        elif not static:
            shape.append(1)
        else:
            shape.append(tf.reduce_max(tf.stack([tf.shape(v)[axis] for v in values])))
    return shape


def unbroadcast_to_common_shape(value: Any, common_shape: Sequence[Optional[IntOrTensor]],
                                ignore_axes: Sequence[int] = (), allow_only_noop: bool = False) -> tf.Tensor:
    """:param value: tensor whose axes are of the common size or 1
    :param common_shape: from :func:`get_common_shape` (None: keep the axis)
    :param ignore_axes: axes to keep as they are
    :param allow_only_noop: raise instead of tiling
    :return: ``value`` tiled to the common shape
    :raises TFUtilArgError: tiling needed with ``allow_only_noop``"""
    value = tf.convert_to_tensor(value)
    multiples: List[IntOrTensor] = []
    need = False
    for axis, target in enumerate(common_shape):
        if target is None or axis in ignore_axes or value.shape[axis] not in (1, None) or \
                (isinstance(target, int) and target == 1):
            multiples.append(1)
            continue
        need = True
        multiples.append(target if value.shape[axis] == 1 else
                         tf.where(tf.equal(tf.shape(value)[axis], 1), target, 1))
    if not need:
        return value
    if allow_only_noop:
        raise TFUtilArgError("unbroadcast_to_common_shape", f"{value.name} {value.shape} needs tiling to "
                                                            f"{list(common_shape)}")
    with tf.name_scope("unbroadcast_to_common_shape"):
        return tf.tile(value, tf.stack([tf.convert_to_tensor(m, tf.int32) for m in multiples]))


def concat_with_opt_broadcast(values: Sequence[Any], allow_broadcast: Sequence[bool], axis: int,
                              name: str = "concat_with_opt_broadcast") -> tf.Tensor:
    """:param values: tensors of the same rank
    :param allow_broadcast: per value whether its size-1 axes may be tiled (a value that is not allowed but needs
        it is tiled as well; TF's concat needs equal sizes)
    :param axis: the concat axis
    :param name: name scope
    :return: the values, tiled to a common shape on every other axis, concatenated on ``axis``"""
    del allow_broadcast
    with tf.name_scope(name):
        values = [tf.convert_to_tensor(v) for v in values]
        rank = values[0].shape.rank
        axis = axis + rank if axis < 0 else axis
        common = get_common_shape(values, ignore_axes=[axis])
        return tf.concat([unbroadcast_to_common_shape(v, common, ignore_axes=[axis]) for v in values], axis=axis)


def nested_get_shapes(x: Any) -> Any:
    """:param x: a (nested) dict/list/tuple of tensors
    :return: the same structure with each tensor's static ``TensorShape``"""
    return tf.nest.map_structure(lambda t: t.shape if isinstance(t, (tf.Tensor, tf.Variable)) else None, x)

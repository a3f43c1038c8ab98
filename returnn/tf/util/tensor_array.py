"""``tf.TensorArray`` properties and copies (legacy ``TFUtil`` functions): ``tensor_array_is_dynamic_size``,
``tensor_array_is_clear_after_read``, ``tensor_array_element_shape``, ``tensor_array_like``,
``tensor_array_stack``."""

from __future__ import annotations

from typing import Any, Optional

import tensorflow as tf


def tensor_array_is_dynamic_size(ta: tf.TensorArray) -> bool:
    """:return: whether ``ta`` grows on writes past its size"""
    return bool(ta.dynamic_size)


def tensor_array_is_clear_after_read(ta: tf.TensorArray) -> bool:
    """:return: whether reading an element of ``ta`` frees it (TF's default); read from the array's op"""
    try:
        return bool(ta.handle.op.get_attr("clear_after_read"))
    except (ValueError, AttributeError):  # eager / v2 TensorArrays have no such op
        return True


def tensor_array_element_shape(ta: tf.TensorArray) -> tf.TensorShape:
    """:return: the element shape ``ta`` was created with (or inferred from its first write)"""
    return tf.TensorShape(ta.element_shape)


def tensor_array_like(ta: tf.TensorArray, **kwargs: Any) -> tf.TensorArray:
    """:param ta: a tensor array
    :param kwargs: ``tf.TensorArray`` arguments to override (``size``, ``dynamic_size``, ``clear_after_read``,
        ``element_shape``, ``dtype``, ...)
    :return: a new, empty tensor array with the same dtype, size, dynamic size, clear-after-read and element shape
    """
    opts = dict(dtype=ta.dtype, size=ta.size(), dynamic_size=tensor_array_is_dynamic_size(ta),
                clear_after_read=tensor_array_is_clear_after_read(ta), element_shape=tensor_array_element_shape(ta))
    opts.update(kwargs)
    return tf.TensorArray(**opts)


def tensor_array_stack(ta: tf.TensorArray, start: Any = 0, stop: Optional[Any] = None,
                       name: str = "TensorArrayStack") -> tf.Tensor:
    """:param ta: a tensor array
    :param start: first index
    :param stop: end index (default: the array's size)
    :param name: name scope
    :return: elements ``start .. stop-1`` stacked on a new axis 0"""
    with tf.name_scope(name):
        if stop is None:
            stop = ta.size()
        return ta.gather(tf.range(start, stop))

"""Small tensor helpers (legacy ``TFUtil`` functions): ``identity``, ``identity_with_ops``, ``to_float32``,
``view_as``, ``reversed``, ``onnx_compat_floor_div``, ``zeros_dyn_shape``, ``get_ndim``, ``batch_gather``,
``batched_uniq``, ``get_range``, ``make_var_tuple``, ``prod``, ``optional_add``, ``optional_mul``,
``opt_logical_and``, ``opt_logical_or``."""

from __future__ import annotations

import builtins
import functools
import operator
from typing import Any, Callable, Optional, Sequence, Tuple, Union

import tensorflow as tf

from returnn.tf.ops.masks import sequence_mask
from returnn.util.values import NotSpecified


def identity(x: Any) -> tf.Tensor:
    """:return: ``tf.identity(x)``"""
    return tf.identity(x)


def identity_with_ops(x: Any, ops: Callable[[], Sequence[Any]]) -> tf.Tensor:
    """:param x: tensor
    :param ops: returns the ops/tensors to run first (called inside this function)
    :return: ``x`` after ``ops()`` ran"""
    with tf.control_dependencies(ops()):
        return tf.identity(x)


def to_float32(x: Any) -> tf.Tensor:
    """:return: ``x`` cast to float32"""
    return tf.cast(x, tf.float32)


def view_as(x: Any, dtype: Any) -> tf.Tensor:
    """:return: the bits of ``x`` reinterpreted as ``dtype`` (same size per element)"""
    return tf.bitcast(x, dtype)


def reversed(x: Any) -> tf.Tensor:  # noqa: A001 (the reference's public name)
    """:return: ``x`` reversed along its last axis"""
    return tf.reverse(x, axis=[-1])


def onnx_compat_floor_div(a: Any, b: Any) -> tf.Tensor:
    """:return: ``floor(a / b)`` for ints (also negative), written without ``FloorDiv`` (which ONNX lacks)"""
    with tf.name_scope("floor_div"):
        a, b = tf.convert_to_tensor(a), tf.convert_to_tensor(b)
        q = tf.truncatediv(a, b)
        needs_fix = tf.logical_and(tf.not_equal(q * b, a), tf.less(a * b, 0))
        return tf.where(needs_fix, q - 1, q)


def zeros_dyn_shape(shape: Sequence[Any], dtype: Any = tf.float32, name: str = "zeros_dyn_shape") -> tf.Tensor:
    """:param shape: ints and/or int32 scalar tensors
    :return: zeros of that shape"""
    with tf.name_scope(name):
        if all(isinstance(d, int) for d in shape):
            return tf.zeros(shape, dtype=dtype)
        return tf.zeros(tf.stack([tf.convert_to_tensor(d, tf.int32) for d in shape]), dtype=dtype)


def get_ndim(x: Any) -> Union[int, tf.Tensor]:
    """:return: the rank of ``x``: an int if known, else an int32 scalar"""
    x = tf.convert_to_tensor(x)
    return x.shape.rank if x.shape.rank is not None else tf.rank(x)


def batch_gather(x: Any, indices: Any, keepdims: bool = False) -> tf.Tensor:
    """:param x: (batch, n, ...)
    :param indices: (batch,) int: per sequence the entry to take
    :param keepdims: keep the ``n`` axis (size 1)
    :return: (batch, ...) (or (batch, 1, ...)): ``x[b, indices[b]]``"""
    with tf.name_scope("batch_gather"):
        y = tf.gather(x, indices, axis=1, batch_dims=1)
        return tf.expand_dims(y, 1) if keepdims else y


def batched_uniq(x: Any, seq_lens: Any) -> Tuple[tf.Tensor, tf.Tensor]:
    """:param x: (batch, time) labels
    :param seq_lens: (batch,) int
    :return: (batch, max new len) with runs of the same label merged (padded with 0), and the new lengths (batch,)
    """
    with tf.name_scope("batched_uniq"):
        x = tf.convert_to_tensor(x)
        mask = sequence_mask(seq_lens, maxlen=tf.shape(x)[1])
        prev = tf.concat([x[:, :1], x[:, :-1]], axis=1)
        first = tf.concat([tf.ones_like(mask[:, :1]), tf.zeros_like(mask[:, 1:])], axis=1)
        keep = tf.logical_and(mask, tf.logical_or(first, tf.not_equal(x, prev)))
        new_lens = tf.reduce_sum(tf.cast(keep, tf.int32), axis=1)
        ragged = tf.RaggedTensor.from_row_lengths(tf.boolean_mask(x, keep), new_lens)
        return ragged.to_tensor(default_value=tf.zeros((), x.dtype)), new_lens


def get_range(start: int, stop: Any = NotSpecified) -> Tuple[int, ...]:
    """:return: ``tuple(range(start))``, or ``tuple(range(start, stop))``"""
    if stop is NotSpecified:
        return tuple(builtins.range(start))
    return tuple(builtins.range(start, stop))


def make_var_tuple(v: Any) -> Tuple[Any, ...]:
    """:return: ``v`` as a tuple (a single value becomes a 1-tuple)"""
    if isinstance(v, (list, tuple)):
        return tuple(v)
    return (v,)


def prod(ls: Sequence[Any]) -> Any:
    """:return: product of ints and/or scalar tensors (1 for an empty sequence), an int if all are ints"""
    res: Any = 1
    for v in ls:
        res = res * v
    return res


def _reduce_non_none(args: Sequence[Any], op: Callable[[Any, Any], Any]) -> Optional[Any]:
    vals = [a for a in args if a is not None]
    return functools.reduce(op, vals) if vals else None


def optional_add(*args: Any) -> Optional[Any]:
    """:return: the sum of the args that are not None (None if all are)"""
    return _reduce_non_none(args, operator.add)


def optional_mul(*args: Any) -> Optional[Any]:
    """:return: the product of the args that are not None (None if all are)"""
    return _reduce_non_none(args, operator.mul)


def _opt_logical(args: Sequence[Any], decisive: bool, tf_op: Callable[[Any, Any], Any]) -> Any:
    """Python bools (and other non-tensors, by truth value) first: one equal to ``decisive`` decides at once;
    the bool tensors among the args are combined by ``tf_op``; ``not decisive`` when nothing is left."""
    tensors = []
    for a in args:
        if isinstance(a, bool) or not isinstance(a, (tf.Tensor, tf.Variable)):
            if bool(a) == decisive:
                return decisive
        else:
            tensors.append(a)
    return functools.reduce(tf_op, tensors) if tensors else not decisive


def opt_logical_and(*args: Any) -> Any:
    """:return: logical and of Python bools and bool tensors: a Python bool when no tensor is involved (or a
        Python False decides it), else a bool tensor; True for no args"""
    return _opt_logical(args, False, tf.logical_and)


def opt_logical_or(*args: Any) -> Any:
    """:return: logical or of Python bools and bool tensors: a Python bool when no tensor is involved (or a
        Python True decides it), else a bool tensor; False for no args"""
    return _opt_logical(args, True, tf.logical_or)


def identity_op_nested(x: Any, name: str = "identity") -> Any:
    """:param x: a tensor or a (nested) dict/list/tuple of tensors
    :param name: name scope
    :return: the same structure with ``tf.identity`` of each tensor"""
    with tf.name_scope(name):
        return tf.nest.map_structure(tf.identity, x)

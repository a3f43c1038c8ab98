"""TensorFlow implementation of :class:`returnn.tensor.raw_backend.RawBackend`; installed on import."""

from __future__ import annotations

from typing import Any, Sequence

import tensorflow as tf

from returnn.tensor.raw_backend import set_raw_backend


class TFRawBackend:
    """Raw tensor operations needed by :class:`returnn.tensor.Tensor` copies."""

    @staticmethod
    def transpose(raw: Any, perm: Sequence[int]) -> Any:
        return tf.transpose(raw, list(perm))

    @staticmethod
    def expand_dims(raw: Any, axis: int) -> Any:
        return tf.expand_dims(raw, axis)

    @staticmethod
    def squeeze(raw: Any, axis: int) -> Any:
        return tf.squeeze(raw, axis)

    @staticmethod
    def cast(raw: Any, dtype: str) -> Any:
        return tf.cast(raw, dtype)

    @staticmethod
    def seq_lens_of_static(batch_raw: Any, batch_axis: int, dimension: int) -> Any:
        """:return: int32 ``[B]`` filled with ``dimension``"""
        return tf.fill([tf.shape(batch_raw)[batch_axis]], tf.constant(dimension, tf.int32))

    @staticmethod
    def sequence_mask(lens: Any, maxlen: Any) -> Any:
        """:return: bool ``[B, maxlen]``"""
        return tf.sequence_mask(lens, maxlen=maxlen)

    @staticmethod
    def shape_of(raw: Any, axis: int) -> Any:
        return tf.shape(raw)[axis]

    @staticmethod
    def reduce_max(raw: Any) -> Any:
        return tf.reduce_max(raw)

    @staticmethod
    def reduce_sum(raw: Any) -> Any:
        return tf.reduce_sum(raw)

    @staticmethod
    def where(cond: Any, x: Any, y: Any) -> Any:
        """:return: ``x`` where ``cond``, else ``y`` (broadcasting, as ``tf.where`` in TF2)"""
        x = tf.convert_to_tensor(x)
        return tf.where(cond, x, tf.cast(y, x.dtype))

    @staticmethod
    def tile(raw: Any, multiples: Sequence[Any]) -> Any:
        return tf.tile(raw, list(multiples))

    @staticmethod
    def reshape(raw: Any, shape: Sequence[Any]) -> Any:
        return tf.reshape(raw, list(shape))

    @staticmethod
    def current_graph() -> Any:
        return tf.compat.v1.get_default_graph()


set_raw_backend(TFRawBackend())

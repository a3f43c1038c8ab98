"""TensorFlow implementation of :class:`returnn.tensor.raw_backend.RawBackend`; installed on import."""

from __future__ import annotations

from typing import Any, Sequence

import tensorflow as tf

from returnn.tensor.raw_backend import set_raw_backend
from returnn.tf.ops.masks import pack_valid_frames, sequence_mask


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
        """:return: bool ``[B, maxlen]`` (:func:`returnn.tf.ops.masks.sequence_mask`)"""
        return sequence_mask(lens, maxlen=maxlen)

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
    def flatten_with_seq_len_mask(raw: Any, lens: Any, batch_axis: int, time_axis: int) -> Any:
        """:return: the valid frames packed: ``[sum(lens), <other axes>]``, batch-major"""
        with tf.name_scope("flatten_with_seq_len_mask"):
            return pack_valid_frames(raw, lens, batch_axis, time_axis)

    @staticmethod
    def create_placeholders(tensor: Any) -> None:
        """Sets ``tensor.placeholder`` and the unknown lengths of its dynamic dims to new placeholders
        ``extern_data/placeholders/<name>/<name>`` and ``.../<name>_dim<i>_size`` (int32 ``[B]``)."""
        with tf.name_scope(f"extern_data/placeholders/{tensor.name}/"):
            tensor.placeholder = tf.compat.v1.placeholder(tensor.dtype, shape=tensor.batch_shape, name=tensor.name)
            for axis in tensor.get_dynamic_axes():
                dim = tensor.dims[axis]
                if dim.dyn_size is None:
                    axis_wo_b = tensor.get_batch_axis_excluding_batch(axis)
                    dim.dyn_size = tf.compat.v1.placeholder(tf.int32, shape=(None,),
                                                            name=f"{tensor.name}_dim{axis_wo_b}_size")

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

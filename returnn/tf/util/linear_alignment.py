"""``get_linear_alignment_out_to_in_indices`` (legacy ``TFUtil`` function): for each output frame the input
frame at the same relative position."""

from __future__ import annotations

from typing import Any

import tensorflow as tf


def get_linear_alignment_out_to_in_indices(input_lens: Any, output_lens: Any, pad_value: int = 0) -> tf.Tensor:
    """Output frame ``i`` of a sequence maps to input frame ``floor((i + 0.5) * input_len / output_len)`` (the
    input frame under the middle of the output frame), e.g. input 7, output 3: ``[1, 3, 5]``; input 2, output 4:
    ``[0, 0, 1, 1]``.

    :param input_lens: (batch,) int
    :param output_lens: (batch,) int
    :param pad_value: value after each sequence's output length
    :return: (batch, max(output_lens)) int32
    """
    with tf.name_scope("linear_alignment_out_to_in_indices"):
        input_lens = tf.cast(tf.convert_to_tensor(input_lens), tf.int32)
        output_lens = tf.cast(tf.convert_to_tensor(output_lens), tf.int32)
        out_pos = tf.range(tf.reduce_max(output_lens))[None, :]  # (1, out_time)
        # exact in integers: floor((2 i + 1) * in / (2 * out))
        idx = tf.math.floordiv((2 * out_pos + 1) * input_lens[:, None], tf.maximum(2 * output_lens[:, None], 1))
        valid = tf.less(out_pos, output_lens[:, None])
        return tf.where(valid, idx, tf.fill(tf.shape(idx), tf.cast(pad_value, tf.int32)))

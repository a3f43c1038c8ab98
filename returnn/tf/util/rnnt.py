"""``get_rnnt_linear_aligned_output``: a fixed linear alignment of a label sequence with blanks, used by
transducer configs as the initial (before Viterbi) training alignment.

The placement was observed from the reference on all (input length, target length) pairs up to (40, 25) and
on 3000 random pairs up to (3000, 300), both modes: with ``L`` the output length and ``N`` the number of
labels placed, label ``i`` (0-based) goes to position ``round((i + 1) * ((L + 1) / (N + 1))) - 1``, the ratio
and product in float32 and ``round`` half to even (``tf.round``); every other position up to ``L`` is blank.
"""

from __future__ import annotations

from typing import Any, Tuple

import tensorflow as tf


def get_rnnt_linear_aligned_output(input_lens: Any, targets: Any, target_lens: Any, blank_label_idx: int,
                                   pad_value: int = 0, targets_consume_time: bool = False
                                   ) -> Tuple[tf.Tensor, tf.Tensor]:
    """Spreads each sequence's labels evenly over its output, blanks elsewhere.

    :param input_lens: (batch,) int32, number of input frames T
    :param targets: (batch, max_target_len) labels, batch-major
    :param target_lens: (batch,) int32, number of labels N
    :param blank_label_idx: the blank label
    :param pad_value: value after each sequence's end
    :param targets_consume_time: False (RNN-T): output length ``T + N``, all labels placed.
        True (RNA, one label or blank per frame): output length ``T``; only the first ``min(N, T)`` labels fit
    :return: (out, out_lens): out (batch, max out_len) of the dtype of ``targets``; out_lens (batch,) int32:
        ``input_lens + target_lens``, or ``input_lens`` itself if ``targets_consume_time``
    """
    with tf.name_scope("rnnt_linear_aligned_output"):
        input_lens = tf.convert_to_tensor(input_lens)
        targets = tf.convert_to_tensor(targets)
        target_lens = tf.convert_to_tensor(target_lens)
        if targets_consume_time:
            out_lens = input_lens
            num_labels = tf.minimum(target_lens, input_lens)
        else:
            out_lens = input_lens + target_lens
            num_labels = target_lens
        n_batch = tf.shape(targets)[0]
        max_out_len = tf.reduce_max(out_lens)
        max_labels = tf.shape(targets)[1]
        # label i of each seq → output position round((i + 1) * (L + 1) / (N + 1)) - 1, computed in float32
        ratio = tf.cast(out_lens + 1, tf.float32) / tf.cast(num_labels + 1, tf.float32)  # (batch,)
        label_idx = tf.range(max_labels)  # (max_labels,)
        pos = tf.cast(tf.round(tf.cast(label_idx + 1, tf.float32)[None, :] * ratio[:, None]), tf.int32) - 1
        valid = tf.less(label_idx[None, :], num_labels[:, None])  # (batch, max_labels)
        batch_idx = tf.broadcast_to(tf.range(n_batch)[:, None], tf.shape(valid))
        scatter_idx = tf.stack([tf.boolean_mask(batch_idx, valid), tf.boolean_mask(pos, valid)], axis=-1)
        is_label = tf.scatter_nd(scatter_idx, tf.ones_like(scatter_idx[:, 0]), [n_batch, max_out_len])
        labels = tf.scatter_nd(scatter_idx, tf.boolean_mask(targets, valid), [n_batch, max_out_len])
        frame_valid = tf.less(tf.range(max_out_len)[None, :], out_lens[:, None])
        blank = tf.cast(blank_label_idx, targets.dtype)
        out = tf.where(tf.greater(is_label, 0), labels, tf.fill(tf.shape(labels), blank))
        out = tf.where(frame_valid, out, tf.fill(tf.shape(out), tf.cast(pad_value, targets.dtype)))
        return out, out_lens

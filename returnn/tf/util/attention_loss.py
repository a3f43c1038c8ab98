"""``softmax_cross_entropy_over_size`` (legacy ``TFUtil`` function): cross entropy of attention weights over a
dynamic axis (e.g. the encoder frames of each decoder frame)."""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from returnn.tf.ops.masks import sequence_mask
from returnn.tf.util.errors import TFUtilArgError


def softmax_cross_entropy_over_size(logits: Any, labels: Any, stable_gradient: bool = True) -> tf.Tensor:
    """``-sum_t labels[t] * log_softmax(logits)[t]`` over the last dynamic axis, its frames past each sequence's
    length left out (of the softmax and the sum).

    :param logits: ``Data`` (batch, ..., size axis, ...), e.g. (batch, dec time, enc time, heads) with sizes for
        both time axes; the size axis is its last dynamic axis
    :param labels: ``Data`` of the same layout (a distribution over the size axis)
    :param stable_gradient: gradient ``softmax * sum(labels) - labels`` directly (TF's fused op) instead of
        through the log-softmax
    :return: float tensor, ``logits``' shape without the size axis, in ``logits``' axis order (a time-major
        ``(dec time, enc time, batch, 1)`` gives ``(dec time, batch, 1)``, as the reference)
    :raises TFUtilArgError: ``logits`` has no dynamic axis besides the batch
    """
    with tf.name_scope("softmax_cross_entropy_over_size"):
        sizes = dict(logits.size_placeholder or {})
        if not sizes:
            raise TFUtilArgError("softmax_cross_entropy_over_size",
                                 f"expected logits with a dynamic axis, got {logits}")
        size_axis = max(sizes) + 1  # batch-major: axes excluding batch shifted by one
        x = logits.get_placeholder_as_batch_major()
        y = labels.get_placeholder_as_batch_major()
        rank = x.shape.rank
        mask = sequence_mask(sizes[max(sizes)], maxlen=tf.shape(x)[size_axis])  # (batch, size)
        mask_shape = [tf.shape(mask)[0]] + [1] * (rank - 1)
        mask_shape[size_axis] = tf.shape(mask)[1]
        mask = tf.broadcast_to(tf.reshape(mask, mask_shape), tf.shape(x))
        x = tf.where(mask, x, tf.fill(tf.shape(x), tf.constant(-1e30, x.dtype)))
        y = tf.where(mask, y, tf.zeros_like(y))
        if stable_gradient:
            res = tf.nn.softmax_cross_entropy_with_logits(labels=tf.stop_gradient(y), logits=x, axis=size_axis)
        else:
            log_probs = tf.nn.log_softmax(x, axis=size_axis)
            res = -tf.reduce_sum(tf.where(mask, y * log_probs, tf.zeros_like(log_probs)), axis=size_axis)
        # back to the logits' axis order: the batch axis where it is there (the size axis removed)
        batch_axis = logits.batch_dim_axis or 0
        if logits.get_batch_axis(max(sizes)) < batch_axis:
            batch_axis -= 1
        if batch_axis:
            perm = list(range(1, rank - 1))
            perm.insert(batch_axis, 0)
            res = tf.transpose(res, perm)
        return res

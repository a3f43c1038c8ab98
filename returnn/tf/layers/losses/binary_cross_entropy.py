"""``"loss": "bin_ce"`` (aliases ``sse_sigmoid``, ``sigmoid_ce``): binary cross entropy on sigmoid outputs.

The output is treated as logits if the layer's activation is ``sigmoid`` (the pre-activation is used), else as
probabilities. Targets are dense 0/1 values (or sparse, as one-hot). Error: frames with any wrong bit (>0.5).
"""

from __future__ import annotations

from typing import Optional

import tensorflow as tf

from returnn.tf.layers.core.loss import Loss
from returnn.tf.layers.core.registry import register_loss
from returnn.tf.layers.losses.mse import dense_target_flat


@register_loss(aliases=["sse_sigmoid", "sigmoid_ce"])
class BinaryCrossEntropyLoss(Loss):
    """``sum_frames sum_f -(t log p + (1-t) log(1-p))``."""

    class_name = "bin_ce"

    def __init__(self, pos_weight: Optional[float] = None, **kwargs):
        super().__init__(**kwargs)
        self.pos_weight = pos_weight

    def _logits_flat(self) -> tf.Tensor:
        owa = self.output_with_activation
        if owa is not None and owa.act_func is tf.sigmoid:
            return self.flatten_frames(self.output, owa.x)
        p = tf.clip_by_value(self.flatten_frames(self.output), 1e-7, 1.0 - 1e-7)
        return tf.math.log(p) - tf.math.log1p(-p)

    def get_value(self) -> tf.Tensor:
        with tf.control_dependencies(self.check_matching_time()):
            logits = self._logits_flat()
        target = dense_target_flat(self, logits)
        if self.pos_weight is not None:
            return tf.reduce_sum(tf.nn.weighted_cross_entropy_with_logits(target, logits, self.pos_weight))
        return tf.reduce_sum(tf.nn.sigmoid_cross_entropy_with_logits(labels=target, logits=logits))

    def get_error(self) -> tf.Tensor:
        logits = self._logits_flat()
        target = dense_target_flat(self, logits)
        wrong = tf.not_equal(tf.cast(logits > 0.0, tf.float32), tf.cast(target > 0.5, tf.float32))
        return tf.reduce_sum(tf.cast(tf.reduce_any(wrong, axis=-1), tf.float32))

"""``"loss": "bin_ce"`` (aliases ``sse_sigmoid``, ``sigmoid_ce``): binary cross entropy.

As the reference (observed): the layer OUTPUT is taken as the logits (so use ``"activation": None``), the
per-feature sigmoid cross entropy is averaged over the feature axis and summed over frames. Targets are dense
0/1 (or probabilities), sparse targets are one-hot. ``pos_weight`` weights the positive term. Error: frame
error of the argmax.
"""

from __future__ import annotations

from typing import Optional

import tensorflow as tf

from returnn.tf.layers.core.loss import Loss
from returnn.tf.layers.core.registry import register_loss
from returnn.tf.layers.losses.mse import dense_target_flat


@register_loss(aliases=["sse_sigmoid", "sigmoid_ce"])
class BinaryCrossEntropyLoss(Loss):
    """``sum_frames mean_f sigmoid_ce(labels=t, logits=out)``."""

    class_name = "bin_ce"

    def __init__(self, pos_weight: Optional[float] = None, **kwargs):
        super().__init__(**kwargs)
        self.pos_weight = pos_weight

    def get_value(self) -> tf.Tensor:
        with tf.control_dependencies(self.check_matching_time()):
            logits = self.flatten_frames(self.output)
        target = dense_target_flat(self, logits)
        if self.pos_weight is not None:
            ce = tf.nn.weighted_cross_entropy_with_logits(target, logits, self.pos_weight)
        else:
            ce = tf.nn.sigmoid_cross_entropy_with_logits(labels=target, logits=logits)
        return tf.reduce_sum(tf.reduce_mean(ce, axis=-1))

"""``"loss": "as_is"``: the layer output itself (summed over valid frames) is the loss; no target needed."""

from __future__ import annotations

import tensorflow as tf

from returnn.tf.layers.core.loss import Loss
from returnn.tf.layers.core.registry import register_loss


@register_loss
class AsIsLoss(Loss):
    """``sum`` of the output over all valid frames and features."""

    class_name = "as_is"
    need_target = False

    def get_value(self) -> tf.Tensor:
        return tf.reduce_sum(self.flatten_frames(self.output))

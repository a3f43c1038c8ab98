"""``"loss": "as_is"``: the layer output itself (summed over valid frames) is the loss; no target needed."""

from __future__ import annotations

import tensorflow as tf

from returnn.tf.layers.core.loss import Loss
from returnn.tf.layers.core.registry import register_loss
from returnn.tf.layers.losses.flat_frames import layer_output_flat


@register_loss
class AsIsLoss(Loss):
    """``sum`` of the output over all valid frames and features. A frame-wise layer without params is computed
    again on the valid frames of its inputs for this (as the reference; see
    :mod:`returnn.tf.layers.losses.flat_frames`)."""

    class_name = "as_is"
    need_target = False

    def get_value(self) -> tf.Tensor:
        layer = getattr(self, "layer", None)
        flat = layer_output_flat(layer) if layer is not None and layer.output is self.output else None
        return tf.reduce_sum(flat if flat is not None else self.flatten_frames(self.output))

"""``"loss": "l1"``: absolute error summed over features and frames; ``"mean_l1"``: mean over features, summed
over frames (sparse targets as one-hot), as the reference (observed). Error: frame error of the argmax."""

from __future__ import annotations

import tensorflow as tf

from returnn.tf.layers.core.loss import Loss
from returnn.tf.layers.core.registry import register_loss
from returnn.tf.layers.losses.frames import dense_target_like_output, frame_error, output_feature_last
from returnn.tf.layers.losses.mse import dense_target_flat


@register_loss
class L1Loss(Loss):
    """``sum_frames sum_f |out - target|``."""

    class_name = "l1"

    def get_value(self) -> tf.Tensor:
        with tf.control_dependencies(self.check_matching_time()):
            out = self.flatten_frames(self.output)
        return tf.reduce_sum(tf.abs(out - dense_target_flat(self, out)))


@register_loss
class MeanL1Loss(Loss):
    """``sum_frames mean_f |out - target|``."""

    class_name = "mean_l1"

    def get_value(self) -> tf.Tensor:
        with tf.control_dependencies(self.check_matching_time()):
            out = self.flatten_frames(self.output)
        return tf.reduce_sum(tf.reduce_mean(tf.abs(out - dense_target_flat(self, out)), axis=-1))

    def get_value_per_frame(self) -> tf.Tensor:
        """:return: ``mean_f |out - target|`` on every frame of the padded output (its layout without F)"""
        out = output_feature_last(self)
        return tf.reduce_mean(tf.abs(out.placeholder - dense_target_like_output(self, out)), axis=-1)

    def get_error_per_frame(self) -> tf.Tensor:
        """:return: 1.0 where the argmax differs from the target's, per frame"""
        return frame_error(self)

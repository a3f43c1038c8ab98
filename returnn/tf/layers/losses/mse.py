"""``"loss": "mse"``: squared error, mean over the feature axis, summed over frames (sparse targets as one-hot),
as the reference (observed). Error: frame error of the argmax."""

from __future__ import annotations

import tensorflow as tf

from returnn.tf.layers.core.loss import Loss
from returnn.tf.layers.core.registry import register_loss
from returnn.tf.layers.losses.frames import dense_target_like_output, frame_error, output_feature_last


def dense_target_flat(loss: Loss, out_flat: tf.Tensor) -> tf.Tensor:
    target = loss.get_target_flat()
    if loss.target.sparse:
        return tf.one_hot(tf.cast(target, tf.int32), tf.shape(out_flat)[-1], dtype=out_flat.dtype)
    return tf.cast(target, out_flat.dtype)


@register_loss
class MeanSquaredError(Loss):
    """``sum_frames mean_f (out - target)**2``; output and target ``{B, T, F}`` (target may be sparse)."""

    class_name = "mse"

    def get_value(self) -> tf.Tensor:
        with tf.control_dependencies(self.check_matching_time()):
            out = self.flatten_frames(self.output)
        return tf.reduce_sum(tf.reduce_mean(tf.math.squared_difference(out, dense_target_flat(self, out)), axis=-1))

    def get_value_per_frame(self) -> tf.Tensor:
        """:return: ``mean_f (out - target)**2`` on every frame of the padded output (its layout without F)"""
        out = output_feature_last(self)
        return tf.reduce_mean(tf.math.squared_difference(out.placeholder, dense_target_like_output(self, out)), axis=-1)

    def get_error_per_frame(self) -> tf.Tensor:
        """:return: 1.0 where the argmax differs from the target's, per frame"""
        return frame_error(self)

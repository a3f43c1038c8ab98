"""The loss holders of the losses an RF step function marked (``mark_as_loss``).

Each holder offers what the layer engine's loss holders offer (:class:`returnn.tf.layers.core.loss_holder.LossHolder`),
so the runner, the updater, the scores and the learning-rate file treat them alike. With the reference's semantics
(observed on its ``tensorflow-net-dict`` run of ``demos/demo-rf.config``):

- the loss value is the loss summed over all its (valid) frames; the frames are ``custom_inv_norm_factor`` (summed)
  when given, else the number of elements of the loss; scores are ``sum(values) / sum(frames)``, without ``scale``
- an ``as_error=True`` loss has no value, only the error (same sum), and is not trained on
- the objective adds ``scale * value``, divided by the frames with ``use_normalized_loss=True``
"""

from __future__ import annotations

from typing import Any, Optional

import tensorflow as tf


def _raw(value: Any) -> tf.Tensor:
    raw = getattr(value, "raw_tensor", value)
    return tf.cast(tf.convert_to_tensor(raw), tf.float32)


class RFLossHolder:
    """One marked loss.

    :param name: the loss name (``mark_as_loss(name=...)``)
    :param summed: float32 scalar: the loss summed over its frames
    :param num_frames: float32 scalar: the frames (see module doc)
    :param scale: the loss scale
    :param as_error: only reported as error, not trained
    :param use_normalized_loss: the objective uses the per-frame mean
    """

    def __init__(self, name: str, *, summed: tf.Tensor, num_frames: tf.Tensor, scale: float = 1.0,
                 as_error: bool = False, use_normalized_loss: bool = False):
        self.name = name
        self.summed = summed
        self.num_frames = num_frames
        self.scale = scale
        self.as_error = as_error
        self.use_normalized_loss = use_normalized_loss

    def __repr__(self) -> str:
        return f"<RFLossHolder {self.name!r} scale={self.scale} as_error={self.as_error}>"

    @classmethod
    def from_run_ctx_loss(cls, loss: Any) -> "RFLossHolder":
        """From a loss of ``rf.get_run_ctx().losses`` (its ``get_summed_loss``, ``get_inv_norm_factor``,
        ``scale``, ``as_error``, ``use_normalized_loss``)."""
        with tf.name_scope("loss_%s" % "".join(c if c.isalnum() or c in "_-." else "_" for c in loss.name)):
            summed = _raw(loss.get_summed_loss())
            num_frames = _raw(loss.get_inv_norm_factor())
        return cls(loss.name, summed=summed, num_frames=num_frames, scale=float(loss.scale),
                   as_error=bool(loss.as_error), use_normalized_loss=bool(loss.use_normalized_loss))

    def get_loss_value(self) -> Optional[tf.Tensor]:
        """:return: the loss summed over its frames (not scaled); None for an ``as_error`` loss"""
        return None if self.as_error else self.summed

    def get_loss_value_for_fetch(self) -> Optional[tf.Tensor]:
        return self.get_loss_value()

    def get_error_value(self) -> Optional[tf.Tensor]:
        """:return: for an ``as_error`` loss its sum, else None"""
        return self.summed if self.as_error else None

    def get_num_frames(self) -> tf.Tensor:
        return self.num_frames

    def get_norm_factor(self) -> tf.Tensor:
        return tf.math.reciprocal(tf.maximum(self.num_frames, 1.0))

    def get_loss_value_for_objective(self) -> Optional[tf.Tensor]:
        """:return: what the objective adds: ``scale * value`` (per frame with ``use_normalized_loss``)"""
        if self.as_error:
            return None
        value = self.summed * self.scale
        if self.use_normalized_loss:
            value = value * self.get_norm_factor()
        return value

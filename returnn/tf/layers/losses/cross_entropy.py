"""``"loss": "ce"``: framewise cross entropy against a sparse (or dense, soft) target; frame error rate as error.

Options (``loss_opts``), as the reference:

- ``label_smoothing`` (float, default 0): the target distribution puts ``1 - ls`` on the true class and
  ``ls / (dim - 1)`` on every other class; the loss is the KL divergence ``KL(q || p) = CE(q, p) - H(q)``
  (observed: this is what the reference reports).
- ``focal_loss_factor`` (float, default 0): each frame's CE is scaled by ``(1 - p_target) ** factor``.
- accepted without effect: ``use_fused``, ``debug_dump``, ``safe_log_opts``; rejected:
  ``label_smoothing_gaussian``, ``fake_upper_bound``.
"""

from __future__ import annotations

from typing import Any, Optional

import tensorflow as tf

from returnn.tf.layers.core.loss import Loss
from returnn.tf.layers.core.registry import register_loss


@register_loss
class CrossEntropyLoss(Loss):
    """Cross entropy; output ``{B, T, F}`` (probabilities, or logits through a softmax activation), target
    ``{B, T}`` sparse ints into F, or ``{B, T, F}`` dense probabilities."""

    class_name = "ce"

    def __init__(self, focal_loss_factor: float = 0.0, label_smoothing: float = 0.0,
                 label_smoothing_gaussian: bool = False, debug_dump: bool = False, safe_log_opts: Any = None,
                 use_fused: bool = True, fake_upper_bound: Any = None, **kwargs: Any):
        super().__init__(**kwargs)
        if label_smoothing_gaussian or fake_upper_bound is not None:
            raise TypeError("ce loss options label_smoothing_gaussian/fake_upper_bound are not supported in this "
                            "implementation")
        self.focal_loss_factor = focal_loss_factor
        self.label_smoothing = label_smoothing

    def _log_probs(self) -> tf.Tensor:
        logits, out = self.get_output_logits_flat()
        if logits is not None:
            return tf.nn.log_softmax(logits)
        return tf.math.log(tf.maximum(out, 1e-30))

    def get_value(self) -> tf.Tensor:
        with tf.control_dependencies(self.check_matching_time()):
            logits, _ = self.get_output_logits_flat()
            if logits is not None and self.target.sparse and not self.label_smoothing and not self.focal_loss_factor:
                # TF's fused kernel: loss and gradient (softmax - one_hot) in one op, as the reference
                labels = tf.cast(self.get_target_flat(), tf.int32)  # [N]
                return tf.reduce_sum(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
            log_p = self._log_probs()  # [N, F]
        dim = tf.shape(log_p)[-1]
        if self.target.sparse:
            labels = tf.cast(self.get_target_flat(), tf.int32)  # [N]
            one_hot = tf.one_hot(labels, dim, dtype=log_p.dtype)
        else:
            one_hot = tf.cast(self.get_target_flat(), log_p.dtype)
        if self.label_smoothing:
            ls = self.label_smoothing
            off = ls / tf.cast(dim - 1, log_p.dtype)
            q = one_hot * (1.0 - ls) + (1.0 - one_hot) * off
            entropy = -tf.reduce_sum(q * tf.math.log(tf.maximum(q, 1e-30)), axis=-1)
            ce = -tf.reduce_sum(q * log_p, axis=-1) - entropy
        else:
            ce = -tf.reduce_sum(one_hot * log_p, axis=-1)
        if self.focal_loss_factor:
            p_target = tf.reduce_sum(one_hot * tf.exp(log_p), axis=-1)
            ce *= tf.pow(1.0 - p_target, self.focal_loss_factor)
        return tf.reduce_sum(ce)

    def get_error(self) -> Optional[tf.Tensor]:
        logits, out = self.get_output_logits_flat()
        # softmax keeps the order: the argmax of the logits needs no softmax in a training step
        pred = tf.argmax(logits if logits is not None else out, axis=-1, output_type=tf.int32)
        if self.target.sparse:
            labels = tf.cast(self.get_target_flat(), tf.int32)
        else:
            labels = tf.argmax(self.get_target_flat(), axis=-1, output_type=tf.int32)
        return tf.reduce_sum(tf.cast(tf.not_equal(pred, labels), tf.float32))

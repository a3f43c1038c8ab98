"""``"loss": "ce"``: framewise cross entropy against a sparse (or dense, soft) target; frame error rate as error.

Options (``loss_opts``), as the reference:

- ``label_smoothing`` (float, default 0): the target distribution puts ``1 - ls`` on the true class and
  ``ls / (dim - 1)`` on every other class; the loss is the KL divergence ``KL(q || p) = CE(q, p) - H(q)``
  (observed: this is what the reference reports).
- ``focal_loss_factor`` (float, default 0): each frame's CE is scaled by ``(1 - p_target) ** factor``.
- ``label_smoothing_gaussian`` (bool, default False; only with ``label_smoothing`` > 0 and a sparse target): the
  target distribution is the normal density around the true class ``y`` with ``sigma = 1 - ls``, taken at every
  class ``c``: ``exp(-(c - y)**2 / (2 sigma**2)) / (sigma sqrt(2 pi))``, not renormalised (it sums to less than 1
  near the ends of the class range). As observed from the reference: the value per frame is ``CE(q_gauss, p)``
  minus the entropy of the plain label-smoothed distribution (``1 - ls`` / ``ls / (dim - 1)``), and with a
  softmax output the gradient w.r.t. the logits is ``softmax - q_gauss`` (TF's fused kernel, which assumes a
  normalised target).
- ``fake_upper_bound`` (float, default None): the value of each frame (after label smoothing and the focal
  factor) is ``min(ce, bound)``, but the gradient is that of the unbounded ``ce`` (straight-through, as
  observed from the reference: clipped frames still get the full gradient).
- accepted without effect: ``use_fused``, ``debug_dump``, ``safe_log_opts``.

An output that is not a softmax (e.g. ``sigmoid``, an ``eval``, or ``log_softmax`` used by mistake) is taken as
probabilities with the reference's safe log (observed): ``log(max(p, 1e-20))`` with the gradient through the
bound (an output of log-probabilities gives 46.05 per frame and infinite gradients there too).

With a softmax output (logits available), a sparse target and the layout ``{B,T,F}`` or ``{T,B,F}``, the CE
without label smoothing (plain, focal, bounded) and the frame error run on all frames of the padded batch and
padded frames are masked out (weight 0), instead of gathering the real frames first: the gather of ``[N, F]``
logits and its gradient (a scatter into a zeroed ``[B*T, F]``) cost more than the softmax over the padded frames
(``ff-train``: 6.6 ms of a 300 ms step, 0 % padding). Padded frames get label 0, so their (unused) target may be
anything. A sparse target without label smoothing never builds a ``[N, F]`` one-hot target: the CE comes from
the target class's score alone (on logits ``returnn.tf.ops.softmax_ce``: a oneDNN softmax instead of TF's fused
kernel, about half its CPU time with 9001 classes; else the gathered probability).
"""

from __future__ import annotations

import math
from typing import Any, Optional, Tuple

import tensorflow as tf

from returnn.tf.layers.core.loss import Loss
from returnn.tf.layers.core.registry import register_loss
from returnn.tf.layers.losses.frames import dense_target_like_output, frame_error, output_feature_last
from returnn.tf.ops.numerics import safe_log
from returnn.tf.ops.softmax_ce import sparse_softmax_ce


@register_loss
class CrossEntropyLoss(Loss):
    """Cross entropy; output ``{B, T, F}`` (probabilities, or logits through a softmax activation), target
    ``{B, T}`` sparse ints into F, or ``{B, T, F}`` dense probabilities."""

    class_name = "ce"

    def __init__(self, focal_loss_factor: float = 0.0, label_smoothing: float = 0.0,
                 label_smoothing_gaussian: bool = False, debug_dump: bool = False, safe_log_opts: Any = None,
                 use_fused: bool = True, fake_upper_bound: Any = None, **kwargs: Any):
        super().__init__(**kwargs)
        self.focal_loss_factor = focal_loss_factor
        self.label_smoothing = label_smoothing
        self.label_smoothing_gaussian = bool(label_smoothing_gaussian)
        self.fake_upper_bound = fake_upper_bound
        self._padded: Optional[Tuple[tf.Tensor, tf.Tensor, tf.Tensor]] = None  # _padded_frames

    def _log_probs(self) -> Tuple[tf.Tensor, Optional[tf.Tensor]]:
        """:return: (log-probs [N, F], logits [N, F] or None when the output is not a softmax)"""
        logits, out = self.get_output_logits_flat()
        if logits is not None:
            return tf.nn.log_softmax(logits), logits
        return safe_log(out), None  # log(max(p, 1e-20)), gradient through the bound (the reference's)

    def _bounded(self, ce: tf.Tensor) -> tf.Tensor:
        """:return: ``ce`` per frame with the value clipped at ``fake_upper_bound`` (gradient unchanged)"""
        if self.fake_upper_bound is None:
            return ce
        bound = tf.cast(self.fake_upper_bound, ce.dtype)

        @tf.custom_gradient
        def _clip_straight_through(x: tf.Tensor) -> Any:
            # not x + stop_gradient(min(x, bound) - x): an infinite CE (a masked target) would give inf - inf = nan
            return tf.minimum(x, bound), lambda dy: dy

        return _clip_straight_through(ce)

    def _padded_frames(self) -> Optional[Tuple[tf.Tensor, tf.Tensor, tf.Tensor]]:
        """All frames of the padded batch in the output's own order (batch-major or time-major).

        :return: (logits [B*T, F] float, labels [B*T] int32 with 0 on padded frames, mask [B*T] bool), or None
            (no logits, dense target, or another layout: the caller gathers the real frames instead)
        """
        owa, out, target = self.output_with_activation, self.output, self.target
        if owa is None or not owa.is_softmax_act_func() or not target.sparse:
            return None
        if out.batch_ndim != 3 or out.feature_dim_axis != 2 or out.time_dim_axis is None or out.dim is None:
            return None
        if target.batch_ndim != 2 or target.time_dim_axis is None:
            return None
        if self._padded is None:
            time_axis = out.time_dim_axis
            n_time = tf.shape(owa.x)[time_axis]
            mask = tf.sequence_mask(out.get_sequence_lengths(), maxlen=n_time)  # [B, T]
            labels = tf.cast(self._bt_major(target).placeholder, tf.int32)[:, :n_time]  # padded length may differ
            labels = tf.pad(labels, [[0, 0], [0, n_time - tf.shape(labels)[1]]])
            labels = tf.where(mask, labels, tf.zeros_like(labels))
            if time_axis == 0:
                mask, labels = tf.transpose(mask), tf.transpose(labels)
            self._padded = (tf.reshape(owa.x, [-1, out.dim]), tf.reshape(labels, [-1]), tf.reshape(mask, [-1]))
        return self._padded

    def get_value(self) -> tf.Tensor:
        with tf.control_dependencies(self.check_matching_time()):
            if not self.label_smoothing:
                sparse_ce = self._sparse_target_ce()
                if sparse_ce is not None:
                    return sparse_ce
            log_p, logits = self._log_probs()  # [N, F]
        if self.target.sparse:
            labels = tf.cast(self.get_target_flat(), tf.int32)  # [N]
            one_hot = tf.one_hot(labels, tf.shape(log_p)[-1], dtype=log_p.dtype)
        else:
            one_hot = tf.cast(self.get_target_flat(), log_p.dtype)
        return tf.reduce_sum(self._frame_ce(log_p, one_hot, logits=logits))

    def _sparse_target_ce(self) -> Optional[tf.Tensor]:
        """The summed CE (with the focal factor and the upper bound) of a sparse target without label smoothing,
        from the target class's score alone: on the logits, :func:`sparse_softmax_ce` (the value of TF's fused
        softmax-CE kernel, the reference's, up to float32 rounding; gradient ``softmax - one_hot``), or the log of the gathered target probability; the
        focal factor's ``p_target`` is ``exp(-ce)``. No ``[N, F]`` one-hot target, product or ``exp`` of all
        log-probabilities (they were 2/3 of the loss's kernel time with ``focal_loss_factor`` and 9001 classes).

        :return: scalar, or None (dense target: the caller computes it from the distributions)
        """
        padded = self._padded_frames()
        if padded is not None:
            logits, labels, mask = padded
            ce = sparse_softmax_ce(logits, labels)  # [B*T]
            return tf.reduce_sum(self._bounded(self._focal(ce)) * tf.cast(mask, ce.dtype))
        if not self.target.sparse:
            return None
        labels = tf.cast(self.get_target_flat(), tf.int32)  # [N]
        logits, out = self.get_output_logits_flat()
        if logits is not None:
            ce = sparse_softmax_ce(logits, labels)
        else:
            p_target = tf.gather(out, labels, axis=1, batch_dims=1)  # [N]
            ce = -safe_log(p_target)
        return tf.reduce_sum(self._bounded(self._focal(ce)))

    def _focal(self, ce: tf.Tensor) -> tf.Tensor:
        """:return: ``ce * (1 - p_target) ** focal_loss_factor`` with ``p_target = exp(-ce)`` (``ce`` unchanged
        without the factor); the gradient flows through both parts, as the reference's"""
        if not self.focal_loss_factor:
            return ce
        return ce * tf.pow(1.0 - tf.exp(-ce), self.focal_loss_factor)

    def _gaussian_target(self, one_hot: tf.Tensor) -> tf.Tensor:
        """:return: the unnormalised normal density around the target class (``sigma = 1 - ls``) at every class,
        ``[..., F]``"""
        sigma = 1.0 - self.label_smoothing
        n = tf.shape(one_hot)[-1]
        classes = tf.cast(tf.range(n), one_hot.dtype)
        label = tf.reduce_sum(one_hot * classes, axis=-1, keepdims=True)  # the (one-hot) target class
        return tf.exp(-0.5 * tf.square(classes - label) / sigma ** 2) / (sigma * (2.0 * math.pi) ** 0.5)

    def _frame_ce(self, log_p: tf.Tensor, one_hot: tf.Tensor, logits: Optional[tf.Tensor] = None) -> tf.Tensor:
        """:param logits: the softmax input ``[..., F]`` where there is one (for the gradient of the Gaussian
            smoothing, ``softmax - q``, as TF's fused kernel)
        :return: CE per frame ``[...]`` from log-probs and target distribution ``[..., F]`` (label smoothing, focal
            factor and fake upper bound applied)"""
        if self.label_smoothing:
            ls = self.label_smoothing
            off = ls / tf.cast(tf.shape(log_p)[-1] - 1, log_p.dtype)
            q = one_hot * (1.0 - ls) + (1.0 - one_hot) * off
            entropy = -tf.reduce_sum(q * tf.math.log(tf.maximum(q, 1e-30)), axis=-1)
            if self.label_smoothing_gaussian and self.target.sparse:
                q = self._gaussian_target(one_hot)
                if logits is not None:
                    ce = tf.nn.softmax_cross_entropy_with_logits(labels=tf.stop_gradient(q), logits=logits) - entropy
                else:
                    ce = -tf.reduce_sum(q * log_p, axis=-1) - entropy
            else:
                ce = -tf.reduce_sum(q * log_p, axis=-1) - entropy
        else:
            ce = -tf.reduce_sum(one_hot * log_p, axis=-1)
        if self.focal_loss_factor:
            p_target = tf.reduce_sum(one_hot * tf.exp(log_p), axis=-1)
            ce *= tf.pow(1.0 - p_target, self.focal_loss_factor)
        return self._bounded(ce)

    def get_value_per_frame(self) -> tf.Tensor:
        """:return: CE on every frame of the padded output, in its layout without F (``[B, T]``, ``[T, B]``,
        ``[B]``), for the ``loss`` layer"""
        owa = self.output_with_activation
        logits = None
        if owa is not None and owa.is_softmax_act_func():
            out = output_feature_last(self, owa.x)
            logits = out.placeholder
            log_p = tf.nn.log_softmax(logits)
        else:
            out = output_feature_last(self)
            log_p = safe_log(out.placeholder)
        return self._frame_ce(log_p, dense_target_like_output(self, out), logits=logits)

    def get_error_per_frame(self) -> tf.Tensor:
        """:return: 1.0 where the output's argmax is not the target class, per frame (layout as the value)"""
        return frame_error(self)

    def get_error(self) -> Optional[tf.Tensor]:
        padded = self._padded_frames()
        if padded is not None:
            logits, labels, mask = padded
            wrong = tf.logical_and(tf.not_equal(tf.argmax(logits, axis=-1, output_type=tf.int32), labels), mask)
            return tf.reduce_sum(tf.cast(wrong, tf.float32))
        logits, out = self.get_output_logits_flat()
        # softmax keeps the order: the argmax of the logits needs no softmax in a training step
        pred = tf.argmax(logits if logits is not None else out, axis=-1, output_type=tf.int32)
        if self.target.sparse:
            labels = tf.cast(self.get_target_flat(), tf.int32)
        else:
            labels = tf.argmax(self.get_target_flat(), axis=-1, output_type=tf.int32)
        return tf.reduce_sum(tf.cast(tf.not_equal(pred, labels), tf.float32))

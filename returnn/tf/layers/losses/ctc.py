"""``"loss": "ctc"``: connectionist temporal classification via ``tf.compat.v1.nn.ctc_loss``.

The output layer gets ``target dim + 1`` classes; the blank is the last class (as the reference). Options:
``ctc_opts`` (dict passed to ``ctc_loss``: ``preprocess_collapse_repeated``, ``ctc_merge_repeated``,
``ignore_longer_outputs_than_inputs``), ``beam_width`` (error decoding: beam search, default 100 as the
reference; 1 = greedy), ``output_in_log_space``.

``use_native`` (the reference's own CTC kernel; here the same sums with TF's kernel) needs ``beam_width`` 1 (else
computing the loss raises, as the reference) and takes the native options in ``ctc_opts``: ``logits_normalize``
(default True; False: the scores are used as log-probabilities as they are, without a log-softmax: the value is
TF's CTC minus each frame's ``logsumexp``), ``grad_wrt_softmax_in`` (default True: the gradient w.r.t. the scores
``s`` is ``exp(s) - posteriors``, as for the input of a softmax; False: ``-posteriors``). For log-softmax inputs all variants give
TF's CTC value and the same gradient below the log-softmax. As the reference's kernel, ``use_native`` accepts the
blank's index as a target label (a label state that scores the blank class; TF's kernel alone rejects it).

``use_viterbi``, ``target_collapse_repeated`` and ``auto_clip_target_len`` are rejected (not implemented). The
value is summed over sequences; num_frames is the sum of target lengths; the error is the label edit distance of
the decoding, summed (label error rate when divided by num_frames).
"""

from __future__ import annotations

from typing import Any, Dict, Optional

import tensorflow as tf

from returnn.tf.layers.core.loss import Loss
from returnn.tf.layers.core.registry import register_loss


_NATIVE_OPTS = ("logits_normalize", "grad_wrt_softmax_in")


@register_loss
class CtcLoss(Loss):
    """CTC; output ``{B, T, F+1}``, target sparse ``{B, T'}`` with per-sequence lengths."""

    class_name = "ctc"
    recurrent = True

    def __init__(self, target_collapse_repeated: bool = False, auto_clip_target_len: bool = False,
                 output_in_log_space: bool = False, beam_width: int = 100, ctc_opts: Optional[Dict[str, Any]] = None,
                 use_native: bool = False, use_viterbi: bool = False, **kwargs: Any):
        super().__init__(**kwargs)
        for opt, value in (("target_collapse_repeated", target_collapse_repeated),
                           ("auto_clip_target_len", auto_clip_target_len), ("use_viterbi", use_viterbi)):
            if value:
                raise TypeError(f"ctc loss option {opt}={value!r} is not supported in this implementation")
        self.ctc_opts = dict(ctc_opts or {})
        self.use_native = use_native
        self.native_opts = {k: self.ctc_opts.pop(k) for k in _NATIVE_OPTS if use_native and k in self.ctc_opts}
        self.beam_width = beam_width
        self.output_in_log_space = output_in_log_space

    def get_auto_output_layer_dim_extra(self) -> int:
        return 1

    def _logits_tm(self) -> tf.Tensor:
        owa = self.output_with_activation
        out = self.output.copy_as_time_major()
        if owa is not None and owa.is_softmax_act_func():
            tmp = self.output.copy()
            tmp.placeholder = owa.x
            return tmp.copy_as_time_major().placeholder
        if self.output_in_log_space:
            return out.placeholder
        return tf.math.log(tf.maximum(out.placeholder, 1e-30))

    def _sparse_target(self) -> tf.SparseTensor:
        target = self.target.copy_as_batch_major()
        idx = self._valid_frame_positions(target.get_sequence_lengths())
        vals = tf.gather_nd(tf.cast(target.placeholder, tf.int32), idx)
        return tf.SparseTensor(idx, vals, tf.cast(tf.shape(target.placeholder), tf.int64))

    def get_value(self) -> tf.Tensor:
        """:raises LayerArgError: ``use_native`` with a ``beam_width`` other than 1 (the reference asserts it)"""
        logits = self._logits_tm()
        seq_lens = self.output.get_sequence_lengths()
        if self.use_native and self.beam_width != 1:
            from returnn.errors import LayerArgError
            layer = self.layer
            raise LayerArgError(layer=layer.name, layer_class=layer.layer_class, arg="loss_opts",
                                problem="ctc with use_native needs beam_width 1 (as the reference):",
                                got={"beam_width": self.beam_width}, hint='add "beam_width": 1 to loss_opts')
        if not self.use_native:
            loss = tf.compat.v1.nn.ctc_loss(labels=self._sparse_target(), inputs=logits, sequence_length=seq_lens,
                                            time_major=True, **self.ctc_opts)
            return tf.reduce_sum(loss)
        return tf.reduce_sum(self._native_loss(logits, seq_lens))

    def _native_loss(self, logits: tf.Tensor, seq_lens: tf.Tensor) -> tf.Tensor:
        """The reference's own CTC kernel (``use_native``), with TF's: per sequence ``[B]``.

        As observed from the reference, its targets may hold the blank's index as a label (e.g. the transducer
        configs' non-blank labels after a switchout that turned blanks into labels): a label state like any
        other that scores the blank class (entered by a skip when it differs from the label before). TF's kernel
        rejects such labels, so it gets the scores ``[T, B, V + 1]`` with the blank's column twice: class ``V - 1``
        is then that label, class ``V`` the blank. From TF's value (normalized over the ``V + 1`` columns) the
        unnormalized path score ``P = -log sum_paths exp(sum_t s)`` (gradient ``-posteriors``) follows by
        subtracting each frame's ``logsumexp``; then per ``logits_normalize`` / ``grad_wrt_softmax_in``.
        """
        blank = logits[..., -1:]
        scores = tf.concat([logits, blank], axis=-1)  # [T, B, V + 1]: the blank also as label V - 1
        mask = tf.cast(tf.transpose(tf.sequence_mask(seq_lens, maxlen=tf.shape(logits)[0])), logits.dtype)  # [T, B]

        def frame_norm(x: tf.Tensor) -> tf.Tensor:
            return tf.reduce_sum(tf.reduce_logsumexp(x, axis=-1) * mask, axis=0)  # [B]

        if self.ctc_opts:
            ctc = tf.compat.v1.nn.ctc_loss(labels=self._sparse_target(), inputs=scores, sequence_length=seq_lens,
                                           time_major=True, **self.ctc_opts)
        else:
            # all in log space, as the reference's kernel (observed: finite for scores of magnitude 100 and more,
            # where TF's CTC kernel gives inf)
            target = self.target.copy_as_batch_major()
            ctc = tf.nn.ctc_loss(labels=tf.cast(target.placeholder, tf.int32), logits=scores,
                                 label_length=target.get_sequence_lengths(), logit_length=seq_lens,
                                 logits_time_major=True, blank_index=-1)
        path_score = ctc - frame_norm(scores)
        if self.native_opts.get("logits_normalize", True):
            return path_score + frame_norm(logits)  # gradient softmax(s) - posteriors
        if self.native_opts.get("grad_wrt_softmax_in", True):
            # value unchanged; gradient exp(s) - posteriors, as for the input of a softmax
            extra = tf.reduce_sum(tf.stop_gradient(tf.exp(logits)) * logits * mask[:, :, None], axis=[0, 2])
            return path_score + (extra - tf.stop_gradient(extra))
        return path_score  # gradient -posteriors

    def get_error(self) -> tf.Tensor:
        logits = self._logits_tm()
        seq_lens = self.output.get_sequence_lengths()
        if self.beam_width > 1:
            decoded, _ = tf.nn.ctc_beam_search_decoder(logits, seq_lens, beam_width=self.beam_width)
        else:
            decoded, _ = tf.nn.ctc_greedy_decoder(logits, seq_lens)
        dist = tf.edit_distance(tf.cast(decoded[0], tf.int32), self._sparse_target(), normalize=False)
        return tf.reduce_sum(dist)

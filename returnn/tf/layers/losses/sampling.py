"""``"loss": "sampling_loss"``: sampled softmax or NCE over the classes of a ``softmax`` layer, as the reference.

The loss reads the layer's own params: ``W`` must be ``[n_out, n_in]`` (``"use_transposed_weights": True``) and
``b`` ``[n_out]``, with ``n_out`` the target's classes; its input is the layer's input (valid frames only).
Options (``loss_opts``):

- ``num_sampled`` (default 128): negative classes drawn per split; ``num_splits`` (default 1): the ``N`` valid
  frames are cut into this many consecutive chunks of ``N // num_splits`` frames (the last takes the rest), each
  with its own draw. The sampler ops get no op seed, as the reference: TF numbers them by the graph's count of
  seedless random ops (``compute_accidental_hits`` counts too), so with the graph seed the draws are reproducible
  and equal to the reference's when the graph has the same seedless ops before.
- ``sampler``: ``"log_uniform"`` (default), ``"uniform"``, ``"learned_unigram"``, ``"fixed_unigram"``
  (``sampler_args`` are passed on, e.g. ``unigrams`` or ``vocab_file``); draws are unique.
- ``nce_loss``: NCE (``tf.nn.nce_loss``) instead of sampled softmax (``tf.nn.sampled_softmax_loss``);
  ``nce_log_norm_term``: subtracted from every logit of the NCE (a fixed log normaliser).
- ``remove_accidental_hits``: default False for NCE, True for sampled softmax (TF's defaults).
- ``use_full_softmax``: the plain cross entropy over all classes instead (no sampling).

The value is summed over frames; the error is the frame error of the layer's (full) output.
The reference's sampled-softmax path does not run with TF 2 (it passes ``partition_strategy``); here it runs.
"""

from __future__ import annotations

from typing import Any, Dict, Optional

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tf.layers.core.loss import Loss
from returnn.tf.layers.core.registry import register_loss

_SAMPLERS = {
    "log_uniform": tf.random.log_uniform_candidate_sampler,
    "uniform": tf.random.uniform_candidate_sampler,
    "learned_unigram": tf.random.learned_unigram_candidate_sampler,
    "fixed_unigram": tf.random.fixed_unigram_candidate_sampler,
}


@register_loss
class SamplingBasedLoss(Loss):
    """Sampled softmax / NCE on a softmax layer with transposed weights; output ``{B, T, C}``, target ``{B, T}``."""

    class_name = "sampling_loss"

    def __init__(self, num_sampled: int = 128, num_splits: int = 1, sampler: str = "log_uniform",
                 nce_loss: bool = False, use_full_softmax: bool = False, remove_accidental_hits: Optional[bool] = None,
                 sampler_args: Optional[Dict[str, Any]] = None, nce_log_norm_term: float = 0.0, **kwargs: Any):
        super().__init__(**kwargs)
        if sampler not in _SAMPLERS:
            raise TypeError(f"sampler {sampler!r} is not one of {', '.join(repr(s) for s in _SAMPLERS)}")
        self.num_sampled = num_sampled
        self.num_splits = num_splits
        self.sampler = sampler
        self.nce_loss = nce_loss
        self.use_full_softmax = use_full_softmax
        self.remove_accidental_hits = nce_loss is False if remove_accidental_hits is None else remove_accidental_hits
        self.sampler_args = dict(sampler_args or {})
        self.nce_log_norm_term = nce_log_norm_term

    def _params(self) -> tuple:
        layer = self.layer
        w, b = layer.params.get("W"), layer.params.get("b")
        n_classes = self.target.dim
        if w is None or b is None or w.shape[0] != n_classes:
            raise LayerArgError(layer=layer.name, layer_class=layer.layer_class, arg="loss",
                                problem="'sampling_loss' needs the layer's own params W [n_out, n_in] and b:",
                                got={k: v.shape.as_list() for k, v in layer.params.items()},
                                hint='set "use_transposed_weights": True on the softmax layer (and no reuse_params)')
        return w, b

    def get_value(self) -> tf.Tensor:
        if self.use_full_softmax:
            logits, out = self.get_output_logits_flat()
            labels = tf.cast(self.get_target_flat(), tf.int32)
            if logits is None:
                logits = tf.math.log(tf.maximum(out, 1e-30))
            return tf.reduce_sum(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
        weights, biases = self._params()
        inputs = self.flatten_frames(self.layer.input_data)  # [N, n_in]
        labels = tf.cast(tf.reshape(self.get_target_flat(), [-1, 1]), tf.int64)  # [N, 1]
        num_classes = self.target.dim
        n = tf.shape(inputs)[0]
        chunk = n // self.num_splits
        total = tf.constant(0.0, inputs.dtype)
        for i in range(self.num_splits):
            begin = i * chunk
            end = n if i == self.num_splits - 1 else begin + chunk
            x, y = inputs[begin:end], labels[begin:end]
            sampled = _SAMPLERS[self.sampler](true_classes=y, num_true=1, num_sampled=self.num_sampled, unique=True,
                                              range_max=num_classes, **self.sampler_args)
            if self.nce_loss:
                loss = tf.nn.nce_loss(weights=weights, biases=biases - self.nce_log_norm_term, labels=y, inputs=x,
                                      num_sampled=self.num_sampled, num_classes=num_classes, num_true=1,
                                      sampled_values=sampled, remove_accidental_hits=self.remove_accidental_hits)
            else:
                loss = tf.nn.sampled_softmax_loss(weights=weights, biases=biases, labels=y, inputs=x,
                                                  num_sampled=self.num_sampled, num_classes=num_classes, num_true=1,
                                                  sampled_values=sampled,
                                                  remove_accidental_hits=self.remove_accidental_hits)
            total += tf.reduce_sum(loss)
        return total

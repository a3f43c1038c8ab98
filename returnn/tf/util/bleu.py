"""``bleu_score`` (legacy ``TFUtil`` function): sentence-level BLEU of label sequences in the graph, each sequence
scored as :func:`returnn.util.bleu.compute_bleu` of a one-sentence corpus (computed by a Python op on the CPU)."""

from __future__ import annotations

from typing import Any

import numpy
import tensorflow as tf

from returnn.util.bleu import compute_bleu


def _bleu_per_seq(hyps: numpy.ndarray, hyp_lens: numpy.ndarray, truths: numpy.ndarray,
                  truth_lens: numpy.ndarray) -> numpy.ndarray:
    return numpy.array([compute_bleu([truths[i, :truth_lens[i]].tolist()], [hyps[i, :hyp_lens[i]].tolist()])
                        for i in range(len(hyp_lens))], dtype=numpy.float32)


def bleu_score(hypothesis: Any, truth: Any, hyp_seq_lens: Any, truth_seq_lens: Any) -> tf.Tensor:
    """:param hypothesis: (batch, max hyp len) int labels
    :param truth: (batch, max truth len) int labels
    :param hyp_seq_lens: (batch,) int
    :param truth_seq_lens: (batch,) int
    :return: (batch,) float32: per sequence BLEU (4-grams, brevity penalty, tensor2tensor's smoothing), e.g. 0.6389
        for hypothesis ``[1, 2, 3]`` against truth ``[2, 3]``; 0 for an empty hypothesis"""
    with tf.name_scope("bleu_score"), tf.device("/cpu:0"):
        hypothesis = tf.convert_to_tensor(hypothesis)
        truth = tf.convert_to_tensor(truth)
        if hypothesis.shape.rank == 2 and hypothesis.shape[1] == 0 and hypothesis.dtype == tf.float32:
            hypothesis = tf.cast(hypothesis, tf.int32)  # [[]] converts to float32
        res = tf.numpy_function(_bleu_per_seq, [hypothesis, tf.convert_to_tensor(hyp_seq_lens), truth,
                                                tf.convert_to_tensor(truth_seq_lens)], tf.float32, stateful=False)
        res.set_shape([None])
        return res

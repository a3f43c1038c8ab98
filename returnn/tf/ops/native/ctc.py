"""CTC over the FSA ops of :mod:`returnn.tf.ops.native.fsa_search`: the CTC FSA of a batch of label sequences in
the edge-list layout, the full-sum CTC loss via Baum-Welch, and the CTC loss of the best (Viterbi) path.

The CTC FSA of a sequence of ``L`` labels (``K = 2 S_max + 3`` states per sequence ``b``, numbered from
``b K``): the start state 0, the chain positions ``1 + p`` for ``p = 0 .. 2L`` (even ``p``: blank, odd ``p``:
label ``(p - 1) / 2``), and the end state ``K - 1``. An edge into position ``p`` emits ``p``'s label: from the
start into positions 0 and 1; from ``p`` to ``p`` (a blank always, a label with ``label_loop``), to ``p + 1``, and
from a label to the next label (``p + 2``) when they differ or without ``label_loop``. Each edge into the last
blank or the last label has a copy into the end state (which has no outgoing edges), so a path counts when its
last frame reaches one of them. All weights are 0.
"""

from __future__ import annotations

from typing import Any, Optional, Tuple

import tensorflow as tf

from returnn.tf.ops.native.fsa_search import fast_baum_welch, fast_viterbi


def get_ctc_fsa_fast_bw(targets: Any, seq_lens: Any, blank_idx: Any, label_loop: bool = True,
                        edges_bound: Optional[int] = None) -> Tuple[tf.Tensor, tf.Tensor, tf.Tensor]:
    """:param targets: int32 ``[B, S]`` (padded); :param seq_lens: int32 ``[B]``
    :param blank_idx: int, the blank label
    :param label_loop: a label may repeat over frames (CTC); without: the RNA topology (``ctc_merge_repeated``
        False in ``tf.nn.ctc_loss``)
    :param edges_bound: accepted for the reference's signature (the edges are counted here)
    :return: ``(edges int32 [4, E], weights float32 [E], start_end_states int32 [2, B])``
    """
    del edges_bound
    targets = tf.cast(tf.convert_to_tensor(targets), tf.int32)
    seq_lens = tf.cast(tf.convert_to_tensor(seq_lens), tf.int32)
    blank_idx = tf.cast(blank_idx, tf.int32)
    batch, s_max = tf.shape(targets)[0], tf.shape(targets)[1]
    num_pos = 2 * s_max + 1
    k = num_pos + 2  # states per sequence
    pos = tf.range(num_pos)  # [P]
    label_of_pos = tf.where(tf.equal(pos[None, :] % 2, 1), tf.gather(targets, tf.maximum(pos - 1, 0) // 2, axis=1),
                            blank_idx)  # [B, P]
    last = 2 * seq_lens  # [B], the last position (the final blank)
    in_seq = pos[None, :] <= last[:, None]  # [B, P]
    is_label = tf.equal(pos % 2, 1)[None, :]
    # candidate edges per (b, p): columns (from position, to position) with -1 for the start state
    next_label = tf.concat([label_of_pos[:, 2:], tf.fill([batch, 2], -1)], axis=1)  # label of p + 2
    cands = [
        (tf.fill([num_pos], -1), pos, (pos[None, :] <= 1) & in_seq),  # start -> p (p = 0, 1)
        (pos, pos, in_seq & (~is_label | label_loop)),  # loop
        (pos, pos + 1, (pos + 1)[None, :] <= last[:, None]),  # next
        (pos, pos + 2, is_label & ((pos + 2)[None, :] <= last[:, None] - 1)
         & ((not label_loop) | tf.not_equal(label_of_pos, next_label))),  # skip the blank
    ]
    froms, tos, valids = [], [], []
    for src, dst, valid in cands:
        src_b = tf.broadcast_to(src[None, :], [batch, num_pos])
        dst_b = tf.broadcast_to(dst[None, :], [batch, num_pos])
        valid = tf.broadcast_to(valid, [batch, num_pos])
        froms.append(src_b)
        tos.append(dst_b)
        valids.append(valid)
        final = tf.equal(dst_b, last[:, None]) | (tf.equal(dst_b, last[:, None] - 1) & (last[:, None] > 0))
        froms.append(src_b)
        tos.append(tf.fill([batch, num_pos], num_pos))  # the end state (local K - 1, i.e. position K - 2)
        valids.append(valid & final)
    src = tf.stack(froms, axis=1)  # [B, C, P]
    dst = tf.stack(tos, axis=1)
    valid = tf.stack(valids, axis=1)
    # the emitted label: the label of the real target position (for end copies, the copied edge's target)
    real_dst = tf.stack([tos[2 * (i // 2)] for i in range(len(tos))], axis=1)  # [B, C, P]
    emission = tf.gather(label_of_pos, tf.reshape(tf.minimum(real_dst, num_pos - 1), [batch, -1]), batch_dims=1)
    emission = tf.reshape(emission, tf.shape(real_dst))
    offset = (tf.range(batch) * k)[:, None, None]
    seq = tf.broadcast_to(tf.range(batch)[:, None, None], tf.shape(src))
    edges = tf.stack([tf.boolean_mask(src + 1 + offset, valid), tf.boolean_mask(dst + 1 + offset, valid),
                      tf.boolean_mask(emission, valid), tf.boolean_mask(seq, valid)], axis=0)
    weights = tf.zeros(tf.shape(edges)[1:], tf.float32)
    start_end_states = tf.stack([tf.range(batch) * k, tf.range(batch) * k + k - 1], axis=0)
    return edges, weights, start_end_states


def _time_major(logits: tf.Tensor, time_major: bool) -> tf.Tensor:
    return logits if time_major else tf.transpose(logits, [1, 0, 2])


def _blank(blank_index: int, num_classes: tf.Tensor) -> tf.Tensor:
    return num_classes + blank_index if blank_index < 0 else tf.constant(blank_index)


def ctc_loss(*, logits: Any, logits_seq_lens: Any, logits_time_major: bool, targets: Any, targets_seq_lens: Any,
             label_loop: Optional[bool] = None, ctc_merge_repeated: Optional[bool] = None,
             logits_normalize: bool = True, grad_wrt_softmax_in: bool = True, blank_index: int = -1,
             zero_infinity: Optional[bool] = None) -> tf.Tensor:
    """Full-sum CTC loss (``-log p(targets | logits)``) per sequence, via Baum-Welch on the CTC FSA.

    :param logits: float32 ``[T, B, C]`` (or ``[B, T, C]``), the blank among the ``C`` classes
    :param logits_seq_lens: int32 ``[B]``; :param logits_time_major: whether ``logits`` is ``[T, B, C]``
    :param targets: int32 ``[B, S]``; :param targets_seq_lens: int32 ``[B]``
    :param label_loop: labels may repeat over frames (default True); ``ctc_merge_repeated`` is its other name
    :param logits_normalize: apply log-softmax to ``logits`` (else they are log-probabilities already)
    :param grad_wrt_softmax_in: the gradient for the logits is ``softmax - posteriors`` (the exact gradient
        through the log-softmax, for real frames)
    :param blank_index: the blank class (negative: counted from the end)
    :param zero_infinity: a sequence without a path gets loss 0 and gradient 0 (default: False)
    :return: float32 ``[B]``
    """
    if label_loop is None:
        label_loop = True if ctc_merge_repeated is None else ctc_merge_repeated
    del grad_wrt_softmax_in  # the gradient below is the exact one, equal to softmax - posteriors on real frames
    logits = _time_major(tf.convert_to_tensor(logits), logits_time_major)
    seq_lens = tf.cast(tf.convert_to_tensor(logits_seq_lens), tf.int32)
    blank = _blank(blank_index, tf.shape(logits)[-1])
    edges, weights, start_end = get_ctc_fsa_fast_bw(targets, targets_seq_lens, blank, label_loop=label_loop)
    mask = tf.sequence_mask(seq_lens, maxlen=tf.shape(logits)[0], dtype=tf.float32)  # [B, T]
    float_idx = tf.transpose(mask)

    @tf.custom_gradient
    def _loss(x):
        log_probs = tf.nn.log_softmax(x) if logits_normalize else x
        fwdbwd, obs = fast_baum_welch(tf.stop_gradient(-log_probs), edges, weights, start_end, float_idx)
        loss = obs[0]
        no_path = tf.math.is_inf(loss)
        posteriors = tf.exp(-fwdbwd) * float_idx[:, :, None]  # [T, B, C]
        if zero_infinity:
            loss = tf.where(no_path, tf.zeros_like(loss), loss)
            posteriors = tf.where(no_path[None, :, None], tf.zeros_like(posteriors), posteriors)

        def grad(d_loss):
            g = -posteriors
            if logits_normalize:
                g += tf.nn.softmax(x) * tf.reduce_sum(posteriors, axis=-1, keepdims=True)
            return g * d_loss[None, :, None]

        return loss, grad

    loss = _loss(logits)
    return loss


def ctc_loss_viterbi(*, logits: Any, logits_seq_lens: Any, logits_time_major: bool, targets: Any,
                     targets_seq_lens: Any, blank_index: int = -1, label_loop: bool = True,
                     logits_normalize: bool = True, grad_wrt_softmax_in: bool = True,
                     zero_infinity: Optional[bool] = None) -> tf.Tensor:
    """CTC loss of the best path: ``-sum_t log p(a_t)`` along the Viterbi alignment ``a`` on the CTC FSA.

    :param logits: float32 ``[T, B, C]`` (or ``[B, T, C]``); :param logits_seq_lens: int32 ``[B]``
    :param logits_time_major: whether ``logits`` is ``[T, B, C]``
    :param targets: int32 ``[B, S]``; :param targets_seq_lens: int32 ``[B]``
    :param blank_index: the blank class (negative: counted from the end); :param label_loop: as in :func:`ctc_loss`
    :param logits_normalize: apply log-softmax to ``logits``
    :param grad_wrt_softmax_in: accepted (the gradient is ``softmax - one_hot(alignment)`` either way)
    :param zero_infinity: a sequence without a path gets loss 0
    :return: float32 ``[B]``
    """
    del grad_wrt_softmax_in
    logits = _time_major(tf.convert_to_tensor(logits), logits_time_major)
    seq_lens = tf.cast(tf.convert_to_tensor(logits_seq_lens), tf.int32)
    blank = _blank(blank_index, tf.shape(logits)[-1])
    edges, weights, start_end = get_ctc_fsa_fast_bw(targets, targets_seq_lens, blank, label_loop=label_loop)
    log_probs = tf.nn.log_softmax(logits) if logits_normalize else logits
    alignment, scores = fast_viterbi(am_scores=tf.stop_gradient(log_probs), am_seq_len=seq_lens, edges=edges,
                                     weights=weights, start_end_states=start_end)
    mask = tf.transpose(tf.sequence_mask(seq_lens, maxlen=tf.shape(logits)[0], dtype=log_probs.dtype))
    picked = tf.gather(log_probs, alignment, batch_dims=2)  # [T, B]
    loss = -tf.reduce_sum(picked * mask, axis=0)
    no_path = tf.math.is_inf(scores)
    if zero_infinity:
        return tf.where(no_path, tf.zeros_like(loss), loss)
    return tf.where(no_path, tf.fill(tf.shape(loss), float("inf")), loss)

"""Forced alignment (Viterbi) and full-sum soft alignment (Baum-Welch) over label chains, in TF ops.

The reference runs these as native ops (``FastViterbiOp``, ``FastBaumWelchOp``) on an FSA; here the FSAs it builds
without RASR are label chains, computed with a ``tf.scan`` over time in log space (float32), batched over
sequences:

- CTC chain (``ctc_chain``): states ``blank, l_1, blank, l_2, ..., l_S, blank`` (``2 S + 1``), each emitting its
  label. From state ``s``: stay (blank states always; label states only with ``label_loop``), go to ``s + 1``, or
  skip the blank to ``s + 2`` (a label state, if its label differs from ``s``'s, or always without
  ``label_loop``). Starts in the first blank or ``l_1``, ends in ``l_S`` or the last blank. Without
  ``label_loop`` this is the RNA topology (every frame emits blank or the next label exactly once).
- Staircase (:func:`staircase_posteriors`): frame ``t`` emits label ``t``.

Emission scores are log-probabilities ``[T, B, C]`` (time-major) with sequence lengths ``[B]``; padded frames are
ignored. Viterbi ties go to the smallest state index (the skip before the step before the loop, the ``l_S`` end
before the final blank), as the reference. A sequence with no path gets score ``-inf`` and alignment 0 (Viterbi),
or posteriors 0 and loss 0 (Baum-Welch), as the reference.
"""

from __future__ import annotations

from typing import NamedTuple, Tuple

import tensorflow as tf

from returnn.tf.ops.masks import sequence_mask, sequence_mask_time_major

_NEG = float("-inf")


class Chain(NamedTuple):
    """A batch of label chains (``N`` states, padded per sequence).

    :ivar labels: int32 ``[B, N]``, the label each state emits
    :ivar num_states: int32 ``[B]``
    :ivar allow_self: bool ``[B, N]``, the state may loop
    :ivar allow_skip: bool ``[B, N]``, the state may be entered from ``s - 2``
    """

    labels: tf.Tensor
    num_states: tf.Tensor
    allow_self: tf.Tensor
    allow_skip: tf.Tensor


def ctc_chain(targets: tf.Tensor, target_lens: tf.Tensor, blank_idx: tf.Tensor, label_loop: bool = True) -> Chain:
    """:param targets: int ``[B, S]`` labels (padded)
    :param target_lens: int ``[B]``
    :param blank_idx: int scalar, the blank class
    :param label_loop: label states may repeat over frames (CTC); without: RNA
    :return: the CTC chain of every sequence, ``N = 2 S + 1``
    """
    targets = tf.cast(targets, tf.int32)
    batch, s_max = tf.shape(targets)[0], tf.shape(targets)[1]
    blank = tf.fill([batch, s_max], tf.cast(blank_idx, tf.int32))
    labels = tf.reshape(tf.stack([blank, targets], axis=2), [batch, 2 * s_max])
    labels = tf.concat([labels, tf.fill([batch, 1], tf.cast(blank_idx, tf.int32))], axis=1)  # [B, 2S+1]
    n = 2 * s_max + 1
    num_states = 2 * tf.cast(target_lens, tf.int32) + 1
    labels = tf.where(tf.range(n)[None, :] < num_states[:, None], labels, tf.cast(blank_idx, tf.int32))  # no padding
    is_label = tf.tile(tf.equal(tf.range(n) % 2, 1)[None, :], [batch, 1])
    allow_self = tf.logical_not(is_label) if not label_loop else tf.ones_like(is_label)
    prev2 = tf.concat([tf.fill([batch, 2], -1), labels[:, :-2]], axis=1)
    allow_skip = tf.logical_and(is_label, tf.range(n)[None, :] >= 2)
    if label_loop:
        allow_skip = tf.logical_and(allow_skip, tf.not_equal(labels, prev2))
    return Chain(labels=labels, num_states=num_states, allow_self=allow_self,
                 allow_skip=allow_skip)


def _emissions(log_probs: tf.Tensor, chain: Chain) -> tf.Tensor:
    """:return: float ``[T, B, N]``: the log-probability of each state's label per frame"""
    bm = tf.transpose(log_probs, [1, 0, 2])  # [B, T, C]
    em = tf.gather(bm, chain.labels, axis=2, batch_dims=1)  # [B, T, N]
    return tf.transpose(em, [1, 0, 2])


def _shift(x: tf.Tensor, k: int) -> tf.Tensor:
    """:return: ``x[:, s - k]`` at ``s`` (``-inf`` for ``s < k``)"""
    return tf.concat([tf.fill([tf.shape(x)[0], k], tf.constant(_NEG, x.dtype)), x[:, :-k]], axis=1)


def _state_mask(chain: Chain) -> tf.Tensor:
    return tf.range(tf.shape(chain.labels)[1])[None, :] < chain.num_states[:, None]  # [B, N]


def _final_mask(chain: Chain) -> tf.Tensor:
    s = tf.range(tf.shape(chain.labels)[1])[None, :]
    last = chain.num_states[:, None] - 1
    return tf.logical_or(tf.equal(s, last), tf.logical_and(tf.equal(s, last - 1), last >= 1))


def _initial(em0: tf.Tensor, chain: Chain) -> tf.Tensor:
    start = tf.logical_and(tf.range(tf.shape(em0)[1])[None, :] < 2, _state_mask(chain))
    return tf.where(start, em0, tf.constant(_NEG, em0.dtype))


def _preds(a: tf.Tensor, chain: Chain) -> Tuple[tf.Tensor, tf.Tensor, tf.Tensor]:
    neg = tf.constant(_NEG, a.dtype)
    return (tf.where(chain.allow_skip, _shift(a, 2), neg), _shift(a, 1), tf.where(chain.allow_self, a, neg))


def viterbi(log_probs: tf.Tensor, seq_lens: tf.Tensor, chain: Chain) -> Tuple[tf.Tensor, tf.Tensor]:
    """Best path through ``chain``.

    :param log_probs: float32 ``[T, B, C]``
    :param seq_lens: int ``[B]``
    :return: (alignment int32 ``[T, B]``: the label of each frame, 0 on padded frames and for sequences without a
        path; score float32 ``[B]``: the summed log-probabilities of the path, ``-inf`` without one)
    """
    em = _emissions(log_probs, chain)  # [T, B, N]
    seq_lens = tf.cast(seq_lens, tf.int32)
    valid = _state_mask(chain)
    neg = tf.constant(_NEG, em.dtype)
    a0 = _initial(em[0], chain)

    def step(carry: Tuple[tf.Tensor, tf.Tensor], inp: Tuple[tf.Tensor, tf.Tensor]) -> Tuple[tf.Tensor, tf.Tensor]:
        a, _ = carry
        t, em_t = inp
        skip, prev, self_ = _preds(a, chain)
        best = tf.maximum(tf.maximum(skip, prev), self_)
        # ties: the smallest state index (skip, then prev, then self)
        bp = tf.where(tf.logical_and(tf.equal(skip, best), best > neg), 2, tf.where(tf.equal(prev, best), 1, 0))
        new = tf.where(valid, best + em_t, neg)
        active = (t < seq_lens)[:, None]
        return tf.where(active, new, a), tf.where(active, bp, tf.zeros_like(bp))

    n_time = tf.shape(em)[0]
    a_last, bps = tf.scan(step, (tf.range(1, n_time), em[1:]),
                          initializer=(a0, tf.zeros_like(chain.labels)))  # bps: [T-1, B, N]
    a_final = tf.cond(n_time > 1, lambda: a_last[-1], lambda: a0)
    final = _final_mask(chain)
    masked = tf.where(final, a_final, neg)
    score = tf.reduce_max(masked, axis=1)
    # first (smallest) final state with the best score
    s_end = tf.argmax(tf.cast(tf.logical_and(final, tf.equal(masked, score[:, None])), tf.int32), axis=1,
                      output_type=tf.int32)
    batch_idx = tf.range(tf.shape(chain.labels)[0])

    def back(s: tf.Tensor, bp_t: tf.Tensor) -> tf.Tensor:
        return s - tf.gather_nd(bp_t, tf.stack([batch_idx, s], axis=1))

    states_before = tf.scan(back, bps, initializer=s_end, reverse=True)  # [T-1, B]: state at t = 0 .. T-2
    states = tf.concat([states_before, s_end[None, :]], axis=0)  # [T, B]
    align = tf.gather(chain.labels, tf.transpose(states), batch_dims=1)  # [B, T]
    t_mask = sequence_mask(seq_lens, maxlen=n_time)
    score = tf.where(seq_lens > 0, score, tf.fill(tf.shape(score), neg))
    ok = tf.logical_and(t_mask, tf.math.is_finite(score)[:, None])
    align = tf.where(ok, align, tf.zeros_like(align))
    return tf.stop_gradient(tf.transpose(align)), tf.stop_gradient(score)


def _logsumexp3(a: tf.Tensor, b: tf.Tensor, c: tf.Tensor) -> tf.Tensor:
    m = tf.maximum(tf.maximum(a, b), c)
    m_safe = tf.where(tf.math.is_finite(m), m, tf.zeros_like(m))
    total = tf.exp(a - m_safe) + tf.exp(b - m_safe) + tf.exp(c - m_safe)
    return tf.where(tf.math.is_finite(m), tf.math.log(total) + m_safe, m)


def baum_welch(log_probs: tf.Tensor, seq_lens: tf.Tensor, chain: Chain, num_classes: tf.Tensor
               ) -> Tuple[tf.Tensor, tf.Tensor]:
    """Full-sum state posteriors through ``chain``, summed per emitted label.

    :param log_probs: float32 ``[T, B, C]``
    :param seq_lens: int ``[B]``
    :param num_classes: ``C``
    :return: (posteriors float32 ``[T, B, C]``, 0 on padded frames; loss float32 ``[B]``: ``-log`` of the summed
        probability of all paths), both without gradient; a sequence without path gets posteriors 0 and loss 0
    """
    em = _emissions(log_probs, chain)  # [T, B, N]
    seq_lens = tf.cast(seq_lens, tf.int32)
    valid = _state_mask(chain)
    neg = tf.constant(_NEG, em.dtype)
    n_time = tf.shape(em)[0]
    a0 = _initial(em[0], chain)

    def fwd(a: tf.Tensor, inp: Tuple[tf.Tensor, tf.Tensor]) -> tf.Tensor:
        t, em_t = inp
        new = tf.where(valid, _logsumexp3(*_preds(a, chain)) + em_t, neg)
        return tf.where((t < seq_lens)[:, None], new, a)

    alphas = tf.scan(fwd, (tf.range(1, n_time), em[1:]), initializer=a0)
    alphas = tf.concat([a0[None], alphas], axis=0)  # [T, B, N]; frozen after the sequence end
    final = _final_mask(chain)
    a_end = tf.gather(tf.transpose(alphas, [1, 0, 2]), tf.maximum(seq_lens - 1, 0), batch_dims=1)  # [B, N]
    log_z = tf.reduce_logsumexp(tf.where(final, a_end, neg), axis=1)  # [B]
    beta_end = tf.where(final, tf.zeros_like(a0), neg)
    self_succ = tf.where(chain.allow_self, tf.zeros_like(a0), neg)  # 0/-inf masks of the successor edges
    skip_succ = tf.where(chain.allow_skip, tf.zeros_like(a0), neg)

    def bwd(b_next: tf.Tensor, inp: Tuple[tf.Tensor, tf.Tensor]) -> tf.Tensor:
        t, em_next = inp
        x = b_next + em_next  # [B, N], at t + 1
        up1 = tf.concat([x[:, 1:], tf.fill([tf.shape(x)[0], 1], neg)], axis=1)
        up2 = tf.concat([(x + skip_succ)[:, 2:], tf.fill([tf.shape(x)[0], 2], neg)], axis=1)
        new = tf.where(valid, _logsumexp3(x + self_succ, up1, up2), neg)
        t_b = t[None]
        at_end = tf.where(tf.equal(t_b, seq_lens - 1)[:, None], beta_end, neg)
        return tf.where((t_b < seq_lens - 1)[:, None], new, at_end)

    b_last = tf.where(tf.equal(seq_lens, n_time)[:, None], beta_end, neg)
    betas = tf.scan(bwd, (tf.range(0, n_time - 1), em[1:]), initializer=b_last, reverse=True)
    betas = tf.concat([betas, b_last[None]], axis=0)  # [T, B, N]
    ok = tf.logical_and(tf.math.is_finite(log_z), seq_lens > 0)
    log_z_safe = tf.where(ok, log_z, tf.zeros_like(log_z))
    gamma = tf.exp(alphas + betas - log_z_safe[None, :, None])  # [T, B, N]
    t_mask = sequence_mask(seq_lens, maxlen=n_time)  # [B, T]
    keep = tf.logical_and(tf.transpose(t_mask)[:, :, None], ok[None, :, None])
    gamma = tf.where(tf.logical_and(keep, valid[None]), gamma, tf.zeros_like(gamma))
    posteriors = _sum_per_label(gamma, chain.labels, num_classes)
    loss = tf.where(ok, -log_z, tf.zeros_like(log_z))
    return tf.stop_gradient(posteriors), tf.stop_gradient(loss)


def _sum_per_label(gamma: tf.Tensor, labels: tf.Tensor, num_classes: tf.Tensor) -> tf.Tensor:
    """:return: ``[T, B, C]``: ``gamma [T, B, N]`` summed over the states of each label"""
    n_time, batch, n = tf.shape(gamma)[0], tf.shape(gamma)[1], tf.shape(gamma)[2]
    num_classes = tf.cast(num_classes, tf.int32)
    seg = tf.reshape(tf.range(batch)[:, None] * num_classes + labels, [-1])  # [B*N]
    data = tf.reshape(tf.transpose(gamma, [1, 2, 0]), [batch * n, n_time])
    summed = tf.math.unsorted_segment_sum(data, seg, batch * num_classes)  # [B*C, T]
    return tf.transpose(tf.reshape(summed, [batch, num_classes, n_time]), [2, 0, 1])


def staircase_posteriors(log_probs: tf.Tensor, stair_lens: tf.Tensor, num_classes: tf.Tensor
                         ) -> Tuple[tf.Tensor, tf.Tensor]:
    """The forced staircase: frame ``t < stair_len`` emits class ``t`` (frames ``t >= C`` emit nothing: the reference
    writes those out of range).

    :param log_probs: float32 ``[T, B, C]``
    :param stair_lens: int ``[B]``
    :return: (posteriors ``[T, B, C]``: one-hot of ``t`` on the staircase frames, else 0; loss ``[B]``:
        ``-sum_t log_probs[t, b, t]`` over the staircase frames)
    """
    n_time = tf.shape(log_probs)[0]
    num_classes = tf.cast(num_classes, tf.int32)
    t = tf.range(n_time)
    on = tf.logical_and(sequence_mask_time_major(stair_lens, maxlen=n_time), (t < num_classes)[:, None])  # [T, B]
    one_hot = tf.one_hot(t, num_classes, dtype=log_probs.dtype)[:, None, :] * tf.cast(on, log_probs.dtype)[:, :, None]
    idx = tf.minimum(t, num_classes - 1)[:, None]
    picked = tf.gather(log_probs, idx, axis=2, batch_dims=1)[:, :, 0]  # [T, B]
    loss = -tf.reduce_sum(tf.where(on, picked, tf.zeros_like(picked)), axis=0)
    return tf.stop_gradient(one_hot), tf.stop_gradient(loss)

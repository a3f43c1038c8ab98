"""Baum-Welch (forward-backward) and Viterbi over a batch of FSAs in the edge-list layout of the reference's
``FastBaumWelchOp`` / ``FastViterbiOp``, in TensorFlow ops (``tf.scan`` over time, segment reductions over edges).

The FSA layout (see :mod:`returnn.util.fsa`): ``edges`` int32 ``[4, E]`` with rows from-state, to-state, emission
label, sequence index; ``weights`` float32 ``[E]``; ``start_end_states`` int32 ``[2, B]``. State numbers are
global (the states of different sequences are disjoint). A path starts in its sequence's start state before the
first frame; every frame takes one edge, which emits its label; a path counts if it is in the end state after
the sequence's last frame.
"""

from __future__ import annotations

from typing import Any, Tuple

import tensorflow as tf

_NEG_INF = float("-inf")


def _segment_logsumexp(x: tf.Tensor, segment_ids: tf.Tensor, num_segments: tf.Tensor) -> tf.Tensor:
    """Log-sum-exp of ``x [E]`` (or ``[T, E]`` along the last axis) per segment; empty segments: -inf."""
    if x.shape.rank == 2:
        xt = tf.transpose(x)  # [E, T]
        m = tf.math.unsorted_segment_max(xt, segment_ids, num_segments)  # [N, T]
        m_safe = tf.where(m > -1e30, m, tf.zeros_like(m))
        s = tf.math.unsorted_segment_sum(tf.exp(xt - tf.gather(m_safe, segment_ids)), segment_ids, num_segments)
        return tf.transpose(tf.math.log(s) + m_safe)
    m = tf.math.unsorted_segment_max(x, segment_ids, num_segments)
    m_safe = tf.where(m > -1e30, m, tf.zeros_like(m))
    s = tf.math.unsorted_segment_sum(tf.exp(x - tf.gather(m_safe, segment_ids)), segment_ids, num_segments)
    return tf.math.log(s) + m_safe


class _Fsa:
    """The edge list split into its rows, and per state its sequence."""

    def __init__(self, edges: Any, weights: Any, start_end_states: Any):
        edges = tf.cast(tf.convert_to_tensor(edges), tf.int32)
        start_end_states = tf.cast(tf.convert_to_tensor(start_end_states), tf.int32)
        self.from_, self.to, self.emission, self.seq = edges[0], edges[1], edges[2], edges[3]
        self.weights = tf.cast(tf.convert_to_tensor(weights), tf.float32)
        self.start, self.end = start_end_states[0], start_end_states[1]
        self.num_edges = tf.shape(self.from_)[0]
        self.num_states = tf.maximum(tf.reduce_max(tf.concat([self.from_, self.to, [-1]], axis=0)),
                                     tf.reduce_max(start_end_states)) + 1
        batch = tf.shape(self.start)[0]
        self.state_seq = tf.math.unsorted_segment_max(
            tf.concat([self.seq, self.seq, tf.range(batch), tf.range(batch)], axis=0),
            tf.concat([self.from_, self.to, self.start, self.end], axis=0), self.num_states)
        self.state_seq = tf.clip_by_value(self.state_seq, 0, batch - 1)

    def edge_emissions(self, scores: tf.Tensor) -> tf.Tensor:
        """:param scores: ``[T, B, D]`` :return: ``[T, E]``, each edge's emission score per frame"""
        flat = tf.reshape(tf.transpose(scores, [1, 2, 0]), [-1, tf.shape(scores)[0]])  # [B * D, T]
        dim = tf.shape(scores)[2]
        return tf.transpose(tf.gather(flat, self.seq * dim + self.emission))

    def initial(self, states: tf.Tensor) -> tf.Tensor:
        """float32 ``[S]``: 0 at ``states``, -inf elsewhere."""
        return tf.tensor_scatter_nd_update(tf.fill([self.num_states], _NEG_INF), states[:, None],
                                           tf.zeros_like(states, tf.float32))


def fast_baum_welch(am_scores: Any, edges: Any, weights: Any, start_end_states: Any, float_idx: Any
                    ) -> Tuple[tf.Tensor, tf.Tensor]:
    """Full-sum soft alignment.

    :param am_scores: float32 ``[T, B, D]``, emission scores in -log space
    :param edges: int32 ``[4, E]``; :param weights: float32 ``[E]``, -log space
    :param start_end_states: int32 ``[2, B]``
    :param float_idx: float32 ``[T, B]``, 1 for a real frame (padding at the end)
    :return: ``(fwdbwd [T, B, D], obs_scores [T, B])`` in -log space: per real frame the posterior of each label
        (``-log``) and ``-log`` of the total score of all paths (the same for every real frame of a sequence);
        +inf at padded frames and where no path exists
    """
    am = -tf.cast(tf.convert_to_tensor(am_scores), tf.float32)
    fsa = _Fsa(edges, weights, start_end_states)
    float_idx = tf.convert_to_tensor(float_idx, dtype=tf.float32)
    weight = -fsa.weights
    edge_am = fsa.edge_emissions(am) + weight[None, :]  # [T, E], +log
    real = tf.gather(tf.transpose(float_idx), fsa.state_seq) > 0  # [S, T]
    real = tf.transpose(real)  # [T, S]

    def fwd(alpha, elems):
        e_am, real_t = elems
        new = _segment_logsumexp(tf.gather(alpha, fsa.from_) + e_am, fsa.to, fsa.num_states)
        return tf.where(real_t, new, alpha)

    def bwd(beta, elems):
        e_am, real_t = elems
        new = _segment_logsumexp(tf.gather(beta, fsa.to) + e_am, fsa.from_, fsa.num_states)
        return tf.where(real_t, new, beta)

    alpha0 = fsa.initial(fsa.start)
    alphas = tf.scan(fwd, (edge_am, real), initializer=alpha0)  # [T, S], after frame t
    alphas = tf.concat([alpha0[None], alphas[:-1]], axis=0)  # before frame t
    beta_end = fsa.initial(fsa.end)
    betas = tf.scan(bwd, (edge_am, real), initializer=beta_end, reverse=True)  # [T, S], before frame t
    betas = tf.concat([betas[1:], beta_end[None]], axis=0)  # after frame t
    edge_scores = tf.gather(alphas, fsa.from_, axis=1) + edge_am + tf.gather(betas, fsa.to, axis=1)  # [T, E]
    batch = tf.shape(am)[1]
    dim = tf.shape(am)[2]
    obs = _segment_logsumexp(edge_scores, fsa.seq, batch)  # [T, B]
    per_label = _segment_logsumexp(edge_scores, fsa.seq * dim + fsa.emission, batch * dim)  # [T, B * D]
    per_label = tf.reshape(per_label, tf.shape(am)) - obs[:, :, None]
    mask = float_idx > 0
    inf = tf.constant(float("inf"))
    fwdbwd = tf.where(mask[:, :, None] & (obs[:, :, None] > _NEG_INF), -per_label, inf)
    obs_scores = tf.where(mask, -obs, inf)
    return fwdbwd, obs_scores


def fast_viterbi(am_scores: Any, am_seq_len: Any, edges: Any, weights: Any, start_end_states: Any,
                 mask_idx: int = 0) -> Tuple[tf.Tensor, tf.Tensor]:
    """The best path.

    :param am_scores: float32 ``[T, B, D]``, emission scores in +log space
    :param am_seq_len: int32 ``[B]``
    :param edges: int32 ``[4, E]``; :param weights: float32 ``[E]``, added to the path score
    :param start_end_states: int32 ``[2, B]``
    :param mask_idx: the label of frames past a sequence's end
    :return: ``(alignment int32 [T, B], scores float32 [B])``: the label of each frame on the best path ending in
        the end state (ties: the smaller edge index), and its score. A sequence without a path gets score -inf
        and label 0 on its frames.
    """
    am = tf.cast(tf.convert_to_tensor(am_scores), tf.float32)
    fsa = _Fsa(edges, weights, start_end_states)
    seq_len = tf.cast(tf.convert_to_tensor(am_seq_len), tf.int32)
    num_frames = tf.shape(am)[0]
    edge_am = fsa.edge_emissions(am) + fsa.weights[None, :]  # [T, E]
    active = tf.range(num_frames)[:, None] < tf.gather(seq_len, fsa.state_seq)[None, :]  # [T, S]
    edge_ids = tf.range(fsa.num_edges)

    def step(state, elems):
        score, reached, _ = state
        e_am, active_t = elems
        from_reached = tf.gather(reached, fsa.from_)
        cand = tf.where(from_reached, tf.gather(score, fsa.from_) + e_am, _NEG_INF)
        new_reached = tf.math.unsorted_segment_max(tf.cast(from_reached, tf.int32), fsa.to, fsa.num_states) > 0
        best = tf.math.unsorted_segment_max(cand, fsa.to, fsa.num_states)
        is_best = from_reached & tf.equal(cand, tf.gather(best, fsa.to))
        back = tf.math.unsorted_segment_min(tf.where(is_best, edge_ids, fsa.num_edges), fsa.to, fsa.num_states)
        new_score = tf.where(new_reached, best, _NEG_INF)
        return (tf.where(active_t, new_score, score), tf.where(active_t, new_reached, reached),
                tf.where(active_t & new_reached, back, -1))

    init_reached = tf.scatter_nd(fsa.start[:, None], tf.ones_like(fsa.start, tf.bool), [fsa.num_states])
    scores, reached, backs = tf.scan(
        step, (edge_am, active),
        initializer=(fsa.initial(fsa.start), init_reached, tf.fill([fsa.num_states], -1)))  # each [T, S]
    batch = tf.shape(seq_len)[0]
    last = tf.maximum(seq_len - 1, 0)
    end_reached = tf.gather_nd(reached, tf.stack([last, fsa.end], axis=1)) & (seq_len > 0)
    final_scores = tf.where(end_reached, tf.gather_nd(scores, tf.stack([last, fsa.end], axis=1)), _NEG_INF)
    align_ta = tf.TensorArray(tf.int32, size=num_frames)

    def back_body(t, state, ta):
        in_seq = t < seq_len
        back = tf.gather_nd(backs, tf.stack([tf.fill([batch], t), state], axis=1))
        ok = in_seq & end_reached & (back >= 0)
        edge = tf.maximum(back, 0)
        label = tf.where(ok, tf.gather(fsa.emission, edge), tf.where(in_seq, 0, mask_idx))
        return t - 1, tf.where(ok, tf.gather(fsa.from_, edge), state), ta.write(t, label)

    _, _, align_ta = tf.while_loop(lambda t, *_: t >= 0, back_body, (num_frames - 1, fsa.end, align_ta))
    alignment = tf.cond(num_frames > 0, align_ta.stack, lambda: tf.zeros([0, batch], tf.int32))
    return alignment, final_scores

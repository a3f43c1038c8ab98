"""Baum-Welch / Viterbi over edge-list FSAs and the CTC FSA / losses (returnn.tf.ops.native.fsa_search, .ctc):
against path enumeration in numpy, TF's own CTC loss, and the numpy CTC FSA of returnn.util.fsa."""

import itertools

import numpy as np
import tensorflow as tf

from returnn.tf.ops.native.ctc import ctc_loss, ctc_loss_viterbi, get_ctc_fsa_fast_bw
from returnn.tf.ops.native.fsa_search import fast_baum_welch, fast_viterbi
from returnn.util.fsa import FastBwFsaShared
from returnn.util.fsa import get_ctc_fsa_fast_bw as np_ctc_fsa


def _paths(edges, start, end, num_frames):
    """All edge sequences of length num_frames from start to end (one sequence's edges)."""
    out = []
    for combo in itertools.product(range(edges.shape[1]), repeat=num_frames):
        state, ok = start, True
        for e in combo:
            if edges[0, e] != state:
                ok = False
                break
            state = edges[1, e]
        if ok and state == end:
            out.append(combo)
    return out


def _fsa():
    fsa = FastBwFsaShared()
    for i in range(3):
        fsa.add_edge(i, i + 1, emission_idx=i)
        fsa.add_edge(i + 1, i + 1, emission_idx=i, weight=0.5 * i)
    return fsa.get_fast_bw_fsa(n_batch=2)


def test_baum_welch_and_viterbi_against_path_enumeration(session):
    rnd = np.random.RandomState(0)
    batch_fsa = _fsa()
    am = rnd.normal(size=(5, 2, 3)).astype("float32")  # +log scores
    float_idx = np.array([[1, 1, 1, 1, 1], [1, 1, 1, 1, 0]], "float32").T
    fwdbwd, obs = session.run(fast_baum_welch(-am, batch_fsa.edges, batch_fsa.weights,
                                              batch_fsa.start_end_states, float_idx))
    align, score = session.run(fast_viterbi(am_scores=am, am_seq_len=np.array([5, 4], "int32"),
                                            edges=batch_fsa.edges, weights=-batch_fsa.weights,
                                            start_end_states=batch_fsa.start_end_states))
    for b, length in enumerate([5, 4]):
        sel = batch_fsa.edges[3] == b
        edges = batch_fsa.edges[:, sel]
        weights = batch_fsa.weights[sel]
        paths = _paths(edges, batch_fsa.start_end_states[0, b], batch_fsa.start_end_states[1, b], length)
        scores = np.array([sum(am[t, b, edges[2, e]] - weights[e] for t, e in enumerate(p)) for p in paths])
        total = np.log(np.exp(scores).sum())
        np.testing.assert_allclose(obs[:length, b], -total, rtol=1e-5)
        post = np.zeros((length, 3))
        for p, sc in zip(paths, scores):
            for t, e in enumerate(p):
                post[t, edges[2, e]] += np.exp(sc - total)
        np.testing.assert_allclose(np.exp(-fwdbwd[:length, b]), post, atol=1e-5)
        best = paths[int(np.argmax(scores))]
        np.testing.assert_allclose(score[b], scores.max(), rtol=1e-5)
        assert list(align[:length, b]) == [edges[2, e] for e in best]
    assert np.isinf(obs[4, 1]) and np.isinf(fwdbwd[4, 1]).all()  # padded frame


def test_viterbi_without_path(session):
    batch_fsa = _fsa()  # needs >= 3 frames
    align, score = session.run(fast_viterbi(am_scores=np.zeros((4, 2, 3), "float32"),
                                            am_seq_len=np.array([2, 4], "int32"), edges=batch_fsa.edges,
                                            weights=batch_fsa.weights, start_end_states=batch_fsa.start_end_states))
    assert score[0] == -np.inf and (align[:, 0] == 0).all() and np.isfinite(score[1])


def test_ctc_fsa_tf_equals_numpy_and_ctc_loss_equals_tf(session):
    targets = np.array([[1, 1, 2], [0, 2, 0], [2, 0, 0]], "int32")
    target_lens = np.array([3, 2, 1], "int32")
    edges, weights, start_end = session.run(get_ctc_fsa_fast_bw(targets, target_lens, 3))
    np_fsa = np_ctc_fsa(targets, target_lens, 3)
    assert sorted(map(tuple, edges.T)) == sorted(map(tuple, np_fsa.edges.T))  # the same edges (order differs)
    np.testing.assert_array_equal(start_end, np_fsa.start_end_states)
    assert (weights == 0).all()
    rnd = np.random.RandomState(1)
    logits = tf.constant(rnd.normal(size=(7, 3, 4)).astype("float32"))
    seq_lens = np.array([7, 6, 3], "int32")
    for label_loop in (True, False):
        ours = ctc_loss(logits=logits, logits_seq_lens=seq_lens, logits_time_major=True, targets=targets,
                        targets_seq_lens=target_lens, label_loop=label_loop)
        from returnn.tf.util.basic import sparse_labels

        ref = tf.compat.v1.nn.ctc_loss(labels=sparse_labels(tf.constant(targets), tf.constant(target_lens)),
                                       inputs=logits, sequence_length=seq_lens, time_major=True,
                                       ctc_merge_repeated=label_loop)
        v_ours, v_ref, g_ours, g_ref = session.run([ours, ref, tf.gradients(ours, logits)[0], ref.op.outputs[1]])
        np.testing.assert_allclose(v_ours, v_ref, rtol=1e-5)
        np.testing.assert_allclose(g_ours, g_ref, atol=1e-5)


def test_ctc_loss_viterbi_is_the_best_path(session):
    rnd = np.random.RandomState(2)
    logits = tf.constant(rnd.normal(size=(5, 1, 3)).astype("float32"))
    loss = ctc_loss_viterbi(logits=logits, logits_seq_lens=[5], logits_time_major=True, targets=[[0, 1]],
                            targets_seq_lens=[2])
    full = ctc_loss(logits=logits, logits_seq_lens=[5], logits_time_major=True, targets=[[0, 1]],
                    targets_seq_lens=[2])
    v_loss, v_full, grad = session.run([loss, full, tf.gradients(loss, logits)[0]])
    assert v_loss[0] >= v_full[0] - 1e-5  # one path scores at most the sum over all paths
    np.testing.assert_allclose(grad.sum(axis=-1), 0.0, atol=1e-6)  # softmax - one-hot per frame

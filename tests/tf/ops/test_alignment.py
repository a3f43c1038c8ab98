"""Viterbi and Baum-Welch over CTC / RNA chains against brute force over all frame labelings (small T), ties and
edge cases as observed from the reference."""

import itertools

import numpy as np
import pytest
import tensorflow as tf

from returnn.tf.ops.alignment import baum_welch, ctc_chain, staircase_posteriors, viterbi

C, BLANK = 4, 3


def _valid(path, target, label_loop):
    """CTC: merge repeats, drop blanks; without label loop (RNA): drop blanks only."""
    if label_loop:
        path = [p for i, p in enumerate(path) if i == 0 or p != path[i - 1]]
    return [p for p in path if p != BLANK] == list(target)


def _brute(lp, target, label_loop):
    """:return: (posteriors [T, C], -log Z, best score, best path) over all C**T labelings"""
    n_time = lp.shape[0]
    post, z, best = np.zeros((n_time, C)), 0.0, (-np.inf, None)
    for path in itertools.product(range(C), repeat=n_time):
        if not _valid(path, target, label_loop):
            continue
        score = sum(lp[t, c] for t, c in enumerate(path))
        z += np.exp(score)
        post[np.arange(n_time), path] += np.exp(score)
        if score > best[0]:
            best = (score, path)
    return post / max(z, 1e-300), -np.log(z) if z else 0.0, best[0], best[1]


def _run(session, lp_bt, lens, targets, target_lens, label_loop):
    lp = tf.constant(lp_bt.transpose(1, 0, 2))
    chain = ctc_chain(tf.constant(targets), tf.constant(target_lens), BLANK, label_loop=label_loop)
    lens = tf.constant(lens)
    return session.run({"vit": viterbi(lp, lens, chain), "bw": baum_welch(lp, lens, chain, C)})


@pytest.mark.parametrize("label_loop", [True, False])
def test_against_brute_force(session, label_loop):
    rnd = np.random.RandomState(4)
    x = rnd.randn(4, 6, C).astype("float32")
    lp = x - np.log(np.exp(x).sum(-1, keepdims=True))
    targets = np.array([[1, 1, 0], [2, 0, 0], [0, 2, 1], [1, 0, 2]], "int32")
    target_lens, lens = np.array([2, 1, 3, 0], "int32"), np.array([6, 3, 5, 4], "int32")
    out = _run(session, lp, lens, targets, target_lens, label_loop)
    (align, score), (post, loss) = out["vit"], out["bw"]
    for b in range(4):
        n = lens[b]
        e_post, e_loss, e_score, e_path = _brute(lp[b, :n].astype("float64"), targets[b, :target_lens[b]], label_loop)
        np.testing.assert_allclose(post[:n, b], e_post, atol=2e-6)
        assert loss[b] == pytest.approx(e_loss, rel=1e-5)
        assert score[b] == pytest.approx(e_score, rel=1e-5)
        assert list(align[:n, b]) == list(e_path)
        assert not post[n:, b].any() and not align[n:, b].any()  # padded frames


def test_ties_and_no_path_as_observed_from_reference(session):
    """Equal scores everywhere: the reference's alignments put labels as late as possible (CTC: blank, blank, 1, 2,
    blank, 2; RNA: blank x3, 1, 2, 2). A sequence without path (3 frames for 1 2 2): score -inf, alignment 0,
    posteriors 0, loss 0."""
    lp = np.full((2, 6, C), np.log(0.25), "float32")
    targets = np.array([[1, 2, 2], [1, 2, 2]], "int32")
    ctc = _run(session, lp, np.array([6, 3], "int32"), targets, np.array([3, 3], "int32"), True)
    rna = _run(session, lp, np.array([6, 3], "int32"), targets, np.array([3, 3], "int32"), False)
    assert list(ctc["vit"][0][:, 0]) == [3, 3, 1, 2, 3, 2]
    assert list(rna["vit"][0][:, 0]) == [3, 3, 3, 1, 2, 2]
    assert ctc["vit"][1][1] == -np.inf and not ctc["vit"][0][:, 1].any()
    assert ctc["bw"][1][1] == 0 and not ctc["bw"][0][:, 1].any()
    assert rna["vit"][1][1] == pytest.approx(3 * np.log(0.25))  # RNA: 3 frames suffice
    # CTC: all 28 paths of 1 2 2 in 6 frames are equally likely
    assert ctc["bw"][1][0] == pytest.approx(-6 * np.log(0.25) - np.log(28), rel=1e-6)


def test_staircase(session):
    lp = np.log(np.random.RandomState(1).dirichlet(np.ones(C), size=(2, 5))).astype("float32")
    post, loss = session.run(staircase_posteriors(tf.constant(lp.transpose(1, 0, 2)), tf.constant([3, 5]), C))
    np.testing.assert_array_equal(post[:, 0].argmax(-1)[:3], [0, 1, 2])
    assert not post[3:, 0].any() and not post[4:, 1].any()  # frames t >= C get nothing
    assert loss[0] == pytest.approx(-(lp[0, 0, 0] + lp[0, 1, 1] + lp[0, 2, 2]), rel=1e-6)
    assert loss[1] == pytest.approx(-sum(lp[1, t, t] for t in range(C)), rel=1e-6)

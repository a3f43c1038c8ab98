"""Losses (ctc_loss, edit_distance, ctc_greedy_decode, label smoothing), control flow (cond, while_loop, scan,
TensorArray), rf.nested and build_from_dict."""

import itertools

import numpy as np
import pytest
import tensorflow as tf

import returnn.frontend as rf
from returnn.errors import FrontendError
from returnn.frontend.tensor_array import TensorArray
from returnn.tensor import Dim, Tensor, batch_dim


def _ctc_nll_bruteforce(log_probs, target, blank):
    """-log sum over all alignments of length T that collapse to target (small T only)."""
    t_len, n_cls = log_probs.shape
    total = -np.inf
    for path in itertools.product(range(n_cls), repeat=t_len):
        collapsed, prev = [], None
        for p in path:
            if p != prev and p != blank:
                collapsed.append(p)
            prev = p
        if collapsed == list(target):
            total = np.logaddexp(total, sum(log_probs[t, p] for t, p in enumerate(path)))
    return -total


def test_ctc_loss(g):
    rng = np.random.RandomState(0)
    time, tgt = g.time_dim([4, 3], "t"), g.time_dim([2, 1], "s")
    classes = Dim(3, name="classes")  # blank: last (index 2)
    logits_v = rng.randn(2, 4, 3).astype("float32")
    targets_v = np.array([[0, 1], [1, 0]], "int32")
    logits = Tensor("logits", [batch_dim, time, classes], "float32", feature_dim=classes,
                    raw_tensor=tf.constant(logits_v))
    targets = g.const("targets", [batch_dim, tgt], targets_v, sparse_dim=Dim(2, name="labels"))
    loss = rf.ctc_loss(logits=logits, targets=targets, input_spatial_dim=time, targets_spatial_dim=tgt,
                       blank_index=-1)
    assert loss.dims == (batch_dim,)
    v = g.run(loss)
    for b, (n, m) in enumerate([(4, 2), (3, 1)]):
        lp = logits_v[b, :n] - np.log(np.exp(logits_v[b, :n]).sum(-1, keepdims=True))
        assert v[b] == pytest.approx(_ctc_nll_bruteforce(lp, targets_v[b, :m], 2), rel=1e-4)


@pytest.mark.parametrize("blank", [0, 1, 3])
def test_ctc_loss_blank_anywhere_value_and_gradient(g, blank):
    """The blank at the start, in the middle and last: the value against the sum over all alignments, the gradient
    against TF's dense-label CTC (``tf.nn.ctc_loss`` with ``blank_index``, an implementation of its own)."""
    rng = np.random.RandomState(1)
    time, tgt = g.time_dim([4, 3], "t"), g.time_dim([2, 1], "s")
    classes = Dim(4, name="classes")
    logits_v = rng.randn(2, 4, 4).astype("float32")
    labels = [c for c in range(4) if c != blank]
    targets_v = np.array([[labels[0], labels[2]], [labels[1], 0]], "int32")
    raw_logits = tf.constant(logits_v)
    logits = Tensor("logits", [batch_dim, time, classes], "float32", feature_dim=classes, raw_tensor=raw_logits)
    targets = g.const("targets", [batch_dim, tgt], targets_v, sparse_dim=Dim(3, name="labels"))
    loss = rf.ctc_loss(logits=logits, targets=targets, input_spatial_dim=time, targets_spatial_dim=tgt,
                       blank_index=blank)
    (grad,) = tf.gradients(tf.reduce_sum(loss.raw_tensor), [raw_logits])
    dense = tf.nn.ctc_loss(labels=tf.constant(targets_v), logits=tf.transpose(raw_logits, [1, 0, 2]),
                           label_length=tf.constant([2, 1]), logit_length=tf.constant([4, 3]),
                           logits_time_major=True, blank_index=blank)
    (dense_grad,) = tf.gradients(tf.reduce_sum(dense), [raw_logits])
    v, gv, dv, dgv = g.run(loss, grad, dense, dense_grad)
    for b, (n, m) in enumerate([(4, 2), (3, 1)]):
        lp = logits_v[b, :n] - np.log(np.exp(logits_v[b, :n]).sum(-1, keepdims=True))
        assert v[b] == pytest.approx(_ctc_nll_bruteforce(lp, targets_v[b, :m], blank), rel=1e-4)
    np.testing.assert_allclose(v, dv, rtol=1e-5)
    np.testing.assert_allclose(gv, dgv, atol=1e-5)


def test_ctc_loss_more_labels_than_frames_as_reference(g):
    """Observed in the reference (its TF backend, same inputs): a sequence with more labels than frames has loss 0
    and gradient 0; the other sequence its usual value."""
    time, tgt = g.time_dim([2, 4], "t"), g.time_dim([3, 1], "s")
    classes = Dim(3, name="classes")
    raw_logits = tf.constant(np.random.RandomState(0).randn(2, 4, 3).astype("float32"))
    logits = Tensor("logits", [batch_dim, time, classes], "float32", feature_dim=classes, raw_tensor=raw_logits)
    targets = g.const("targets", [batch_dim, tgt], [[0, 1, 0], [1, 0, 0]], "int32", sparse_dim=Dim(2, name="l"))
    loss = rf.ctc_loss(logits=logits, targets=targets, input_spatial_dim=time, targets_spatial_dim=tgt,
                       blank_index=2)
    (grad,) = tf.gradients(tf.reduce_sum(loss.raw_tensor), [raw_logits])
    v, gv = g.run(loss, grad)
    np.testing.assert_allclose(v, [0.0, 2.8407073], rtol=1e-5)
    assert not gv[0].any()
    np.testing.assert_allclose(gv[1, 0], [0.44329533, -0.14299086, -0.3003047], atol=1e-5)


def test_ctc_loss_builds_no_loop(g):
    """One CTC kernel, not the while loops of the dense-label forward-backward sums (the step's CPU)."""
    time, tgt = g.time_dim([4, 3], "t"), g.time_dim([2, 1], "s")
    classes = Dim(3, name="classes")
    logits = g.const("logits", [batch_dim, time, classes], np.zeros((2, 4, 3), "float32"))
    logits = Tensor("logits", logits.dims, "float32", feature_dim=classes, raw_tensor=logits.raw_tensor)
    targets = g.const("targets", [batch_dim, tgt], [[0, 1], [1, 0]], "int32", sparse_dim=Dim(2, name="labels"))
    before = {op.name for op in g.graph.get_operations()}
    loss = rf.ctc_loss(logits=logits, targets=targets, input_spatial_dim=time, targets_spatial_dim=tgt,
                       blank_index=-1)
    tf.gradients(tf.reduce_sum(loss.raw_tensor), [logits.raw_tensor])
    new = [op.type for op in g.graph.get_operations() if op.name not in before]
    assert "CTCLoss" in new and "Enter" not in new and "While" not in new and "StatelessWhile" not in new


def test_edit_distance_and_greedy_decode(g):
    ta, tb = g.time_dim([3, 2], "ta"), g.time_dim([2, 2], "tb")
    a = g.const("a", [batch_dim, ta], [[1, 2, 3], [4, 5, 0]], "int32")
    b = g.const("b", [batch_dim, tb], [[1, 3], [5, 4]], "int32")
    ed = rf.edit_distance(a, ta, b, tb)
    assert ed.dims == (batch_dim,)
    time = g.time_dim([5, 3], "t5")
    classes = Dim(3, name="wb")  # blank 0
    frames = np.array([[1, 1, 0, 1, 2], [2, 0, 2, 2, 2]])
    logits = g.const("logits", [batch_dim, time, classes], np.eye(3, dtype="float32")[frames] * 5)
    labels, out_dim = rf.ctc_greedy_decode(logits, in_spatial_dim=time, blank_index=0, wb_target_dim=classes)
    assert labels.dims == (batch_dim, out_dim)
    ved, vl, vlen = g.run(ed, labels, out_dim.dyn_size_ext)
    np.testing.assert_array_equal(ved, [1, 2])
    np.testing.assert_array_equal(vlen, [3, 2])
    np.testing.assert_array_equal(vl[0, :3], [1, 1, 2])
    np.testing.assert_array_equal(vl[1, :2], [2, 2])


def test_label_smoothed_gradient(g):
    vocab = Dim(4, name="vocab")
    n = Dim(2, name="n")
    xv = np.random.RandomState(2).randn(2, 4).astype("float32")
    x = g.const("x", [n, vocab], xv)
    lp = rf.log_softmax(x, axis=vocab)
    out = rf.label_smoothed_log_prob_gradient(lp, 0.1)
    targets = g.const("t", [n], [1, 3], "int32", sparse_dim=vocab)
    loss = rf.reduce_sum(rf.cross_entropy(estimated=out, target=targets, axis=vocab, estimated_type="log-probs"),
                         axis=n)
    grad = rf.gradient(loss, lp)
    v_out, v_lp, v_grad = g.run(out, lp, grad)
    np.testing.assert_allclose(v_out, v_lp, rtol=1e-6)
    # the reference's (observed): the target gets 1 - 0.1, each of the other 3 labels 0.1 / 3
    expected = -0.1 / 3 * np.ones((2, 4))
    expected[[0, 1], [1, 3]] = -0.9
    np.testing.assert_allclose(v_grad, expected, rtol=1e-5)


def test_label_smoothed_gradient_through_log_softmax_as_observed(g):
    """The logits' gradient of a smoothed cross entropy (5 labels, smoothing 0.1), observed in the reference."""
    k, n = Dim(5, name="K5"), Dim(2, name="n2ls")
    xv = np.array([[0.1, 0.5, -0.3, 1.2, 0.0], [2.0, -1.0, 0.3, 0.3, 0.1]], np.float32)
    x = g.const("x", [n, k], xv)
    lp = rf.label_smoothed_log_prob_gradient(rf.log_softmax(x, axis=k), 0.1, axis=k)
    loss = rf.cross_entropy(target=g.const("t", [n], [3, 0], "int32", sparse_dim=k), estimated=lp,
                            estimated_type="log-probs", axis=k)
    grad = rf.gradient(rf.reduce_sum(loss, axis=n), x)
    np.testing.assert_allclose(g.run(grad), [[0.1164197, 0.1859735, 0.0697965, -0.4751516, 0.1029619],
                                             [-0.2609091, 0.0068185, 0.0917514, 0.0917514, 0.0705879]],
                               atol=1e-6)


@pytest.mark.parametrize("w, expected", [
    ([-1, 0, 0, 0], [-0.9, -0.0333, -0.0333, -0.0333]),
    ([1, 0, 0, 0], [0.8333, -0.0333, -0.0333, -0.0333]),
    ([1, -2, 3, 0.5], [0.65, -1.95, 2.3833, 0.2167]),
    ([0.3, -0.3, 0, 0], [0.24, -0.28, -0.02, -0.02]),
])
def test_label_smoothed_gradient_with_positive_entries_as_observed(g, w, expected):
    """The gradient that reaches a smoothed log-prob need not be minus a one-hot (a CTC loss on log-probs gives
    ``p - occupancy``): the reference's TF backend gives ``(1 - s) g_j + s / (K - 1) (-sum_i |g_i| - g_j)``
    (observed for K=4, s=0.1; a linear spread of ``sum_{i != j} g_i`` agrees only where all ``g_i <= 0``)."""
    k = Dim(4, name="K4w")
    lp = g.const("lp", [k], np.log([0.1, 0.2, 0.3, 0.4]), "float32")
    out = rf.label_smoothed_log_prob_gradient(lp, 0.1, axis=k)
    grad = rf.gradient(out * g.const("w", [k], w, "float32"), lp)
    np.testing.assert_allclose(g.run(grad), expected, atol=1e-4)


def test_label_smoothed_gradient_exclude_labels(g):
    """``exclude_labels`` (the reference's fails in TF graph mode; ours): an excluded label keeps ``(1 - s) g``, is
    not in the sum and gets no share; the others smooth over the K - 1 = 3 kept labels (numpy)."""
    k = Dim(4, name="K4x")
    lp = g.const("lp", [k], np.log([0.1, 0.2, 0.3, 0.4]), "float32")
    out = rf.label_smoothed_log_prob_gradient(lp, 0.1, axis=k, exclude_labels=[3])
    w = np.array([-1.0, 0.5, 0.0, 2.0], "float32")
    grad = g.run(rf.gradient(out * g.const("w", [k], w, "float32"), lp))
    kept = w[:3]
    expected = np.append(0.9 * kept + 0.1 / 2 * (-np.abs(kept).sum() - kept), 0.9 * w[3])
    np.testing.assert_allclose(grad, expected, atol=1e-6)


def test_cond(g):
    x = g.const("x", [Dim(2, name="n")], [1.0, 2.0])
    pred = Tensor("p", [], "bool", raw_tensor=tf.compat.v1.placeholder(tf.bool, []))
    out = rf.cond(pred, lambda: x * 2.0, lambda: x + 1.0)
    assert out.dims == x.dims
    np.testing.assert_allclose(g.run(out, feed={pred.raw_tensor: True}), [2, 4])
    np.testing.assert_allclose(g.run(out, feed={pred.raw_tensor: False}), [2, 3])
    assert rf.cond(True, lambda: 1, lambda: 2) == 1
    with pytest.raises(FrontendError, match="bool scalar"):
        rf.cond(x > 0.0, lambda: x, lambda: x)


def test_while_loop_and_tensor_array(g):
    i0 = rf.convert_to_tensor(0)
    acc0 = rf.convert_to_tensor(1.0)
    ta0 = TensorArray(Tensor("t", [], "float32"))
    i, acc, ta = rf.while_loop(lambda s: s[0] < 5, lambda s: (s[0] + 1, s[1] * 2.0, s[2].push_back(s[1])),
                               (i0, acc0, ta0))
    steps = Dim(5, name="steps")
    stacked = ta.stack(axis=steps)
    assert stacked.dims == (steps,)
    vi, va, vs = g.run(i, acc, stacked)
    assert vi == 5 and va == 32.0
    np.testing.assert_allclose(vs, [1, 2, 4, 8, 16])


def test_scan_over_dim_keeps_state_beyond_lengths(g):
    time = g.time_dim([3, 1], "ts")
    xv = np.array([[1.0, 2.0, 3.0], [4.0, 9.0, 9.0]], "float32")
    x = g.const("x", [batch_dim, time], xv)

    def body(x_t, s):
        new = s + x_t
        return new, new

    ys, final, out_dim = rf.scan(spatial_dim=time, xs=x, ys=Tensor("y", [batch_dim], "float32"),
                                 initial=rf.reduce_sum(x, axis=time) * 0.0, body=body)
    assert out_dim is time and ys.dims == (time, batch_dim)
    vy, vf = g.run(ys, final)
    np.testing.assert_allclose(vf, [6.0, 4.0])
    np.testing.assert_allclose(vy[:, 0], [1, 3, 6])
    assert vy[0, 1] == 4.0


def test_scan_over_dynamic_dim_with_a_scalar_state(g):
    """A state entry without the batch dim (a step counter, as the transformer decoder's position) is shared by all
    sequences: it is not masked per sequence and keeps its dims (before, it became [B] and the loop stopped with
    "a state tensor changed its dims"); the per-sequence entries stay beyond each length."""
    time = g.time_dim([3, 1], "ts2")
    x = g.const("x", [batch_dim, time], np.array([[1.0, 2.0, 3.0], [4.0, 9.0, 9.0]], "float32"))

    def body(x_t, s):
        acc, count = s
        return acc + x_t, (acc + x_t, count + 1)

    initial = (rf.reduce_sum(x, axis=time) * 0.0, rf.constant(0, dims=(), dtype="int32"))
    ys, (acc, count), _ = rf.scan(spatial_dim=time, xs=x, ys=Tensor("y", [batch_dim], "float32"), initial=initial,
                                  body=body)
    assert count.dims == () and acc.dims == (batch_dim,)
    vacc, vcount = g.run(acc, count)
    np.testing.assert_allclose(vacc, [6.0, 4.0])
    assert vcount == 3


def test_scan_with_cond(g):
    n = Dim(2, name="n2")
    limit = g.const("limit", [n], [3, 1], "int32")
    ys, final, out_dim = rf.scan(initial=rf.zeros([n], dtype="int32"), ys=Tensor("y", [n], "int32"),
                                 cond=lambda _, s: s < limit, cond_dims=[n], body=lambda _, s: (s + 1, s + 1))
    vy, vf, vlen = g.run(ys, final, out_dim.dyn_size_ext)
    np.testing.assert_array_equal(vf, [3, 1])
    np.testing.assert_array_equal(vlen, [3, 1])
    np.testing.assert_array_equal(vy[:, 0], [1, 2, 3])


def test_nested_and_state(g):
    n, vocab = Dim(3, name="n3"), Dim(4, name="v4")
    emb = g.const("e", [vocab, n], np.arange(12, dtype="float32").reshape(4, 3))
    idx = g.const("i", [n], [3, 0, 1], "int32", sparse_dim=vocab)
    state = rf.State(h=emb, other=5)
    out = rf.nested.gather_nested(state, indices=idx)
    assert isinstance(out, rf.State) and out.other == 5 and out.h.dims == (n,)
    masked = rf.nested.mask_nested(rf.State(a=g.const("a", [n], [1.0, 2.0, 3.0])),
                                   mask=g.const("m", [n], [True, False, True]), mask_value=0.0)
    vh, va = g.run(out.h, masked.a)
    np.testing.assert_allclose(vh, np.arange(12).reshape(4, 3)[[3, 0, 1], [0, 1, 2]])
    np.testing.assert_allclose(va, [1, 0, 3])


def test_build_from_dict():
    d = rf.build_dict(rf.Linear, out_dim=Dim(3, name="o"))
    assert d["class"] == "rf.Linear"
    lin = rf.build_from_dict(d, Dim(2, name="i"))
    assert isinstance(lin, rf.Linear) and lin.out_dim.dimension == 3
    assert rf.build_from_dict({"class": "rf.relu"}) is rf.relu
    assert rf.build_dict(rf.relu) == {"class": "rf.relu"}
    with pytest.raises(FrontendError, match="'class'"):
        rf.build_from_dict({})


def test_select_backend_torch_error():
    with pytest.raises(FrontendError, match="PyTorch backend is not provided"):
        rf.select_backend_torch()
    assert rf.is_executing_eagerly() is False
    assert rf.get_default_float_dtype() == "float32"


def test_while_loop_number_in_state_is_updated(g):
    out = rf.while_loop(lambda s: s["i"] < 3, lambda s: rf.State(i=s["i"] + 1, x=s["x"] * 2.0),
                        rf.State(i=0, x=1.0))
    assert isinstance(out, rf.State)
    vi, vx = g.run(out.i, out.x)
    assert vi == 3 and vx == 8.0


@pytest.mark.parametrize("normalized, row_b0t0", [
    (True, [0.0, -0.9794, 0.0, -0.0206]),  # minus the occupancy
    (False, [0.7749, -0.8966, 0.09, 0.0316]),  # softmax minus the occupancy
])
def test_ctc_loss_gradient_of_normalized_logits_as_observed(g, normalized, row_b0t0):
    """``rf.ctc_loss(logits=log_probs, logits_normalized=True)``: the same loss, but the gradient w.r.t. the
    log-probs is minus the occupancy (each valid frame sums to -1; padded frames 0); without the flag it is
    ``softmax - occupancy`` (frames sum to 0). Values observed in the reference (lengths 5, 3; blank 3)."""
    k = Dim(4, name="K4c")
    t = g.time_dim([5, 3], name="t_ctc")
    s = g.time_dim([2, 1], name="s_ctc")
    lv = np.random.RandomState(1).randn(2, 5, 4).astype("float32")
    logits = Tensor("l", [batch_dim, t, k], "float32", feature_dim=k, raw_tensor=tf.constant(lv))
    lp = rf.log_softmax(logits, axis=k)
    targets = g.const("tg", [batch_dim, s], [[1, 2], [2, 0]], "int32", sparse_dim=k)
    loss = rf.ctc_loss(logits=lp, logits_normalized=normalized, targets=targets, input_spatial_dim=t,
                       targets_spatial_dim=s, blank_index=3)
    grad = rf.gradient(rf.reduce_sum(loss, axis=batch_dim), lp)
    lv_, gv = g.run(loss, grad.copy_transpose([batch_dim, t, k]))
    np.testing.assert_allclose(lv_, [3.9539, 3.1062], atol=1e-4)
    np.testing.assert_allclose(gv[0, 0], row_b0t0, atol=1e-4)
    np.testing.assert_allclose(gv[1].sum(-1), [-1.0, -1.0, -1.0, 0.0, 0.0] if normalized else [0.0] * 5, atol=1e-5)

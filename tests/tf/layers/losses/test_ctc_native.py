"""ctc loss: the reference's native-kernel options (use_native, logits_normalize, grad_wrt_softmax_in) on TF's
kernel, and the reference's default beam width."""

import numpy as np
import pytest
import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tf.layers.losses.ctc import CtcLoss
from tf_net_helpers import build_net, make_feed

EXTERN = {"data": {"dim": 5}, "classes": {"dim": 4, "sparse": True}}
S = np.random.RandomState(3).normal(size=(2, 6, 5)).astype("float32") * 2
Y = np.array([[1, 2, 2], [3, 0, 0]], "int32")
LENS = [6, 4]


def _value_and_grad(session, **opts):
    net = build_net({"output": {"class": "copy", "from": "data", "loss": "ctc", "target": "classes",
                                "loss_opts": opts}}, EXTERN)
    value = net.get_losses_initialized()[0]["output"].get_loss_value()
    x = net.extern_data.data["data"].placeholder
    feed = make_feed(net, {"data": S, "classes": Y}, {"data": LENS, "classes": [3, 1]})
    return session.run([value, tf.gradients(value, x)[0]], feed)


def test_native_without_normalization(session):
    tf_value, _ = _value_and_grad(session, output_in_log_space=True)
    native = dict(use_native=True, beam_width=1, output_in_log_space=True)
    v1, g1 = _value_and_grad(session, ctc_opts={"logits_normalize": False}, **native)
    v2, g2 = _value_and_grad(session, ctc_opts={"logits_normalize": False, "grad_wrt_softmax_in": False}, **native)
    v3, _ = _value_and_grad(session, **native)
    mask = (np.arange(6)[None] < np.array(LENS)[:, None])[..., None]
    lse = np.log(np.exp(S).sum(-1, keepdims=True))
    # the scores as log-probabilities: the value lacks the per-frame normalisation of TF's CTC
    assert v1 == pytest.approx(tf_value - (lse * mask).sum(), rel=1e-5) and v2 == pytest.approx(v1, rel=1e-6)
    assert v3 == pytest.approx(tf_value, rel=1e-6)  # logits_normalize (default): TF's CTC
    # gradients: exp(s) - posteriors vs. -posteriors
    np.testing.assert_allclose(g1 - g2, np.exp(S) * mask, rtol=1e-4, atol=1e-5)
    assert (g2 <= 1e-6).all() and np.allclose(-g2.sum(-1), mask[..., 0], atol=1e-5)  # -posteriors, sum 1 per frame


def test_native_needs_beam_width_1_and_default_beam_width(session):
    assert CtcLoss(base_network=None).beam_width == 100  # the reference's default (beam search decoding)
    net = build_net({"output": {"class": "copy", "from": "data", "loss": "ctc", "target": "classes",
                                "loss_opts": {"use_native": True}}}, EXTERN)
    with pytest.raises(LayerArgError) as info:
        net.get_losses_initialized()[0]["output"].get_loss_value()
    assert "beam_width" in str(info.value)


# observed from the reference (use_native, output_in_log_space, beam_width 1): 4 classes (blank 3), targets that
# hold the blank's index as a label; value and the gradient rows of frame 1 of sequence 0 and frame 0 of sequence 1
S_BLANK = np.random.RandomState(3).randn(2, 5, 4).astype("float32")
REF_BLANK_LABEL = [
    ({}, 8.101943, [-0.06172, 0.24069, 0.31593, -0.4949], [0.04491, 0.1196, 0.64934, -0.81386]),
    ({"logits_normalize": False}, -6.050035, [0.43598, 0.70134, 0.92059, -0.14403],
     [0.30573, 0.81412, 4.42004, 0.26708]),
    ({"logits_normalize": False, "grad_wrt_softmax_in": False}, -6.050035, [-0.32178, 0.0, 0.0, -0.67822],
     [0.0, 0.0, 0.0, -1.0])]


@pytest.mark.parametrize("ctc_opts, value, grad01, grad10", REF_BLANK_LABEL)
def test_native_accepts_the_blank_index_as_a_target_label(session, ctc_opts, value, grad01, grad10):
    # as the reference's kernel: a label state scoring the blank class (TF's kernel alone rejects the label)
    net = build_net({"output": {"class": "copy", "from": "data", "loss": "ctc", "target": "classes",
                                "loss_opts": {"use_native": True, "beam_width": 1, "output_in_log_space": True,
                                              "ctc_opts": ctc_opts}}},
                    {"data": {"dim": 4}, "classes": {"dim": 3, "sparse": True}})
    loss = net.get_losses_initialized()[0]["output"].get_loss_value()
    x = net.extern_data.data["data"].placeholder
    feed = make_feed(net, {"data": S_BLANK, "classes": np.array([[0, 3, 1], [3, 3, 0]], "int32")},
                     {"data": [5, 4], "classes": [3, 2]})
    got, grad = session.run([loss, tf.gradients(loss, x)[0]], feed)
    assert got == pytest.approx(value, rel=1e-5)
    np.testing.assert_allclose(grad[0, 1], grad01, atol=2e-5)
    np.testing.assert_allclose(grad[1, 0], grad10, atol=2e-5)
    assert np.all(grad[1, 4] == 0)  # past the sequence's length


def _np_ctc(log_probs, labels):
    """-log sum over the CTC paths of ``labels`` (blank = last class), all in log space; ``log_probs`` [T, V]"""
    blank = log_probs.shape[1] - 1
    ext = [blank]
    for label in labels:
        ext += [label, blank]
    alpha = np.full(len(ext), -np.inf)
    alpha[0], alpha[1] = log_probs[0, blank], log_probs[0, ext[1]]
    for t in range(1, len(log_probs)):
        new = np.full(len(ext), -np.inf)
        for s, label in enumerate(ext):
            terms = [alpha[s]] + ([alpha[s - 1]] if s >= 1 else [])
            if s >= 2 and label != blank and label != ext[s - 2]:
                terms.append(alpha[s - 2])
            new[s] = np.logaddexp.reduce(terms) + log_probs[t, label]
        alpha = new
    return -np.logaddexp(alpha[-1], alpha[-2])


def test_native_finite_for_large_scores(session):
    """Scores of magnitude 100 (a diverging training, as the reference's test_ctc_bn_train_eval at learning rate 1):
    the reference's kernel gives a finite value (observed: its training goes on), TF's CTC kernel inf; here all in
    log space, equal to numpy's sum over the paths."""
    scores = np.random.RandomState(5).normal(size=(2, 6, 5)).astype("float64") * 100
    net = build_net({"output": {"class": "copy", "from": "data", "loss": "ctc", "target": "classes",
                                "loss_opts": {"use_native": True, "beam_width": 1, "output_in_log_space": True}}}, EXTERN)
    value = net.get_losses_initialized()[0]["output"].get_loss_value()
    x = net.extern_data.data["data"].placeholder
    feed = make_feed(net, {"data": scores.astype("float32"), "classes": Y}, {"data": LENS, "classes": [3, 1]})
    v, g = session.run([value, tf.gradients(value, x)[0]], feed)
    log_probs = scores - np.log(np.exp(scores - scores.max(-1, keepdims=True)).sum(-1, keepdims=True)) \
        - scores.max(-1, keepdims=True)
    expected = _np_ctc(log_probs[0, :6], Y[0]) + _np_ctc(log_probs[1, :4], Y[1, :1])
    assert np.isfinite(v) and v == pytest.approx(expected, rel=1e-4)
    assert np.isfinite(g).all()

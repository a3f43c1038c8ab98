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

"""via_layer (value and gradient from a fast_bw layer), the RASR losses (build, then a clear error), BLEU values
observed from the reference's compute_bleu."""

import numpy as np
import pytest
import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tf.layers.losses.bleu import sentence_bleu
from tf_net_helpers import build_net, make_feed

EXTERN = {"data": {"dim": 3}, "classes": {"dim": 4, "sparse": True}}
X = np.random.RandomState(0).normal(size=(2, 6, 3)).astype("float32")
Y = np.array([[1, 2, 2], [3, 0, 0]], "int32")
LENS = [6, 4]


def _via_net(loss_opts):
    return build_net({"sm": {"class": "softmax", "from": "data", "n_out": 5},
                      "lp": {"class": "activation", "activation": "log", "from": "sm"},
                      "bw": {"class": "fast_bw", "from": "lp", "align_target": "ctc", "align_target_key": "classes"},
                      "output": {"class": "copy", "from": "sm", "loss": "via_layer", "loss_opts": loss_opts}},
                     EXTERN)


@pytest.mark.parametrize("loss_opts", [{"align_layer": "bw", "loss_wrt_to_act_in": "softmax"},
                                       {"align_layer": "bw"}, {"error_signal_layer": "bw"}])
def test_via_layer(session, loss_opts):
    net = _via_net(loss_opts)
    holder = net.get_losses_initialized()[0]["output"]
    sm = net.get_layer("sm")
    wrt = sm.output_before_activation.x if loss_opts.get("loss_wrt_to_act_in") else sm.output.placeholder
    grad = tf.gradients(holder.get_loss_value(), wrt)[0]
    session.run(tf.compat.v1.global_variables_initializer())
    feed = make_feed(net, {"data": X, "classes": Y}, {"data": LENS, "classes": [3, 1]})
    value, g, probs, post, out_loss, frames = session.run(
        [holder.get_loss_value(), grad, sm.output.placeholder, net.get_layer("bw").output.placeholder,
         net.get_layer("bw").output_loss, holder.get_num_frames()], feed)
    post = post.transpose(1, 0, 2)  # [B, T, C]
    mask = (np.arange(6)[None] < np.array(LENS)[:, None])[..., None]
    expected = post if "error_signal_layer" in loss_opts else np.where(mask, probs - post, 0)
    np.testing.assert_allclose(g, expected, atol=1e-6)
    assert value == pytest.approx(out_loss.sum(), rel=1e-6) and frames == 10
    assert holder.get_error_value() is None


@pytest.mark.parametrize("loss, opts", [("fast_bw", {"sprint_opts": {"sprintExecPath": "nn-trainer"}}),
                                        ("sprint", {"sprint_opts": {"sprintExecPath": "nn-trainer"}})])
def test_rasr_losses_build_then_need_rasr(session, loss, opts):
    net = build_net({"output": {"class": "softmax", "from": "data", "n_out": 5, "loss": loss, "loss_opts": opts}},
                    EXTERN)
    with pytest.raises(LayerArgError) as info:
        net.get_losses_initialized()[0]["output"].get_loss_value()
    assert "RASR" in str(info.value)
    with pytest.raises(LayerArgError) as info2:  # sprint_opts is required, as the reference
        build_net({"output": {"class": "softmax", "from": "data", "n_out": 5, "loss": loss}}, EXTERN)
    assert info2.value.arg == "loss_opts"


@pytest.mark.parametrize("ref, hyp, expected", [  # observed: the reference's compute_bleu([ref], [hyp])
    ([1, 2, 3, 0], [1], 0.049787067), ([4, 2], [4] * 6, 0.081166975), ([1, 2, 3, 0], [1, 2, 3, 0], 1.0),
    ([1, 2, 3, 0, 5], [1, 2, 3, 5, 0], 0.451801), ([1, 2, 3, 4, 5, 6], [1, 2, 3, 4, 5, 7], 0.75983566),
    ([1, 2], [1, 2, 3], 0.6389431), ([1, 2, 3, 4], [2, 3, 4, 1], 0.6389431), ([1, 2, 3, 4, 5], [1, 2, 3, 4], 0.7788008),
    ([3, 3, 3, 3, 3], [3, 3, 3], 0.5134171), ([1], [], 0.0), ([1, 2, 3], [4, 5], 0.30326533),
])
def test_sentence_bleu(ref, hyp, expected):
    assert sentence_bleu(ref, hyp) == pytest.approx(expected, rel=1e-6)


def test_bleu_loss_on_dense_layer_output(session):
    """bleu on two label sequences given as extern data (a copy layer): error -sum BLEU, normalised by the target."""
    extern = {"hyp": {"dim": 6, "sparse": True}, "classes": {"dim": 6, "sparse": True}}
    net = build_net({"output": {"class": "copy", "from": "data:hyp", "loss": "bleu", "target": "classes"}}, extern,
                    train_flag=False)
    holder = net.get_losses_initialized()[0]["output"]
    hyp = np.array([[1, 2, 3, 5, 0, 0], [4, 4, 4, 4, 4, 4]], "int32")
    ref = np.array([[1, 2, 3, 0, 5], [4, 2, 0, 0, 0]], "int32")
    feed = make_feed(net, {"hyp": hyp, "classes": ref}, {"hyp": [5, 6], "classes": [5, 2]})
    error, frames = session.run([holder.get_error_value(), holder.get_num_frames()], feed)
    assert error == pytest.approx(-(0.451801 + 0.081166975), rel=1e-6) and frames == 7
    assert holder.get_loss_value() is None

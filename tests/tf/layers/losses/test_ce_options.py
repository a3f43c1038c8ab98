"""ce loss options fake_upper_bound and label_smoothing_gaussian: values and gradients observed from the reference
(TF 2.21, an activation softmax layer on the input, loss value and d value / d input)."""

import numpy as np
import pytest
import tensorflow as tf

from tf_net_helpers import build_net, make_feed

# 2 seqs (lens 3, 2), 4 classes; frame CEs: 2.7466, 2.1472, 1.3863, 6.0972, 1.3863
X4 = np.array([[[1., 0., -1., .5], [.2, 2., .1, -.3], [0., 0., 0., 0.]],
               [[3., -3., 0., 0.], [.5, .5, .5, .5], [0., 0., 0., 0.]]], "float32")
Y4 = np.array([[2, 0, 1], [1, 3, 0]], "int32")
# observed gradient of the plain CE (also with any fake_upper_bound: straight-through)
GRAD_PLAIN = np.array([[[0.4739908, 0.1743715, -0.9358523, 0.28749], [-0.8831914, 0.7066507, 0.1056928, 0.070848],
                        [0.25, -0.75, 0.25, 0.25]],
                       [[0.9073975, -0.9977508, 0.0451767, 0.0451767], [0.25, 0.25, 0.25, -0.75], [0., 0., 0., 0.]]])
# 1 seq of 4 frames, 8 classes
X8 = np.zeros((1, 4, 8), "float32")
X8[0, 3] = np.arange(8) * 0.3
Y8 = np.array([[0, 3, 7, 5]], "int32")


def _value_and_grad(session, x, y, lens, layer_opts=None, **opts):
    dim = x.shape[-1]
    extern = {"data": {"dim": dim}, "classes": {"dim": dim, "sparse": True}}
    net = build_net({"output": {"class": "activation", "activation": "softmax", "from": "data", "loss": "ce",
                                "loss_opts": opts, **(layer_opts or {})}}, extern)
    value = net.get_losses_initialized()[0]["output"].get_loss_value()
    data = net.extern_data.data["data"].placeholder
    feed = make_feed(net, {"data": x, "classes": y}, {"data": lens, "classes": lens})
    return session.run([value, tf.gradients(value, data)[0]], feed)


@pytest.mark.parametrize("bound, expected", [(None, 13.763549), (10.0, 13.763549), (2.0, 8.772589), (1.0, 5.0),
                                             (0.5, 2.5)])
def test_fake_upper_bound_clips_each_frame_value_not_the_gradient(session, bound, expected):
    opts = {} if bound is None else {"fake_upper_bound": bound}
    value, grad = _value_and_grad(session, X4, Y4, [3, 2], **opts)
    assert value == pytest.approx(expected, rel=1e-5)
    np.testing.assert_allclose(grad, GRAD_PLAIN, atol=2e-6)


def test_fake_upper_bound_after_label_smoothing_and_focal(session):
    value, grad = _value_and_grad(session, X4, Y4, [3, 2], fake_upper_bound=2.5, label_smoothing=0.1)
    assert value == pytest.approx(8.236597, rel=1e-5)
    np.testing.assert_allclose(grad[0, 0], [0.4406575, 0.1410381, -0.8358523, 0.2541566], atol=2e-6)
    np.testing.assert_allclose(grad[1, 1], [0.2166667, 0.2166667, 0.2166667, -0.65], atol=2e-6)
    value, grad = _value_and_grad(session, X4, Y4, [3, 2], fake_upper_bound=2.5, focal_loss_factor=2.0)
    assert value == pytest.approx(8.139967, rel=1e-5)
    np.testing.assert_allclose(grad[0, 0], [0.5714374, 0.2102201, -1.1282518, 0.3465943], atol=2e-6)
    np.testing.assert_allclose(grad[1, 0], [0.928152, -1.020572, 0.04621, 0.04621], atol=2e-6)


@pytest.mark.parametrize("ls, expected, grad_row0", [
    (0.1, 4.8553667, [-0.3182692, -0.1141027, 0.0874737, 0.1232864, 0.1249772, 0.1249999, 0.125, 0.125]),
    (0.4, 1.6009953, [-0.5399038, -0.0407952, 0.1224295, 0.1249975, 0.125, 0.125, 0.125, 0.125])])
def test_label_smoothing_gaussian(session, ls, expected, grad_row0):
    value, grad = _value_and_grad(session, X8, Y8, [4], label_smoothing=ls, label_smoothing_gaussian=True)
    assert value == pytest.approx(expected, rel=1e-5)
    np.testing.assert_allclose(grad[0, 0], grad_row0, atol=2e-6)
    np.testing.assert_allclose(grad[0, 2], grad_row0[::-1], atol=2e-6)  # label 7: mirrored
    if ls == 0.1:
        np.testing.assert_allclose(
            grad[0, 3], [0.0349049, 0.047094, 0.0618874, 0.0483261, -0.1232141, -0.2868359, -0.0279399, 0.2475137],
            atol=2e-6)


def test_label_smoothing_gaussian_without_label_smoothing_is_plain(session):
    value, grad = _value_and_grad(session, X8, Y8, [4], label_smoothing_gaussian=True)
    assert value == pytest.approx(8.093451, rel=1e-5)
    np.testing.assert_allclose(grad[0, 0], [-0.875] + [0.125] * 7, atol=2e-6)


def test_loss_layer_per_frame_with_options(session):
    # the loss layer's per-frame values: each frame's CE (numpy: 2.7466, 2.1472, 1.3863 / 6.0972, 1.3863) clipped
    extern = {"data": {"dim": 4}, "classes": {"dim": 4, "sparse": True}}
    net = build_net({"probs": {"class": "activation", "activation": "softmax", "from": "data"},
                     "output": {"class": "loss", "from": "probs", "loss_": "ce", "target_": "classes",
                                "loss_opts_": {"fake_upper_bound": 2.0}}}, extern, train_flag=False)
    feed = make_feed(net, {"data": X4, "classes": Y4}, {"data": [3, 2], "classes": [3, 2]})
    out = session.run(net.get_layer("output").output.placeholder, feed)
    lp = X4 - np.log(np.exp(X4).sum(-1, keepdims=True))
    ce = -np.take_along_axis(lp, Y4[..., None], -1)[..., 0]
    np.testing.assert_allclose(out[0], np.minimum(ce[0], 2.0), rtol=1e-5)
    np.testing.assert_allclose(out[1, :2], [2.0, 1.3862944], rtol=1e-5)


@pytest.mark.parametrize("activation", ["softmax", "exp_of_log_softmax"])
def test_focal_loss_value_and_gradient_from_logits_and_from_probabilities(session, activation):
    # focal CE sum_frames -(1 - p_y)^2 log p_y and its full gradient (through the factor too, as the reference: see
    # test_fake_upper_bound_after_label_smoothing_and_focal); with a softmax the logits are used, with probabilities
    # (exp of log_softmax, as the transducer configs' output_prob) the target probability is gathered
    extern = {"data": {"dim": 4}, "classes": {"dim": 4, "sparse": True}}
    if activation == "softmax":
        net_dict = {"output": {"class": "activation", "activation": "softmax", "from": "data", "loss": "ce",
                               "loss_opts": {"focal_loss_factor": 2.0}}}
    else:
        net_dict = {"lp": {"class": "activation", "activation": "log_softmax", "from": "data"},
                    "output": {"class": "activation", "activation": "exp", "from": "lp", "loss": "ce",
                               "loss_opts": {"focal_loss_factor": 2.0}}}
    net = build_net(net_dict, extern)
    value = net.get_losses_initialized()[0]["output"].get_loss_value()
    data = net.extern_data.data["data"].placeholder
    feed = make_feed(net, {"data": X4, "classes": Y4}, {"data": [3, 2], "classes": [3, 2]})
    got, grad = session.run([value, tf.gradients(value, data)[0]], feed)
    mask = np.array([[1, 1, 1], [1, 1, 0]], bool)
    p = np.exp(X4) / np.exp(X4).sum(-1, keepdims=True)
    p_y = np.take_along_axis(p, Y4[..., None], -1)[..., 0]
    assert got == pytest.approx((-(1 - p_y) ** 2 * np.log(p_y))[mask].sum(), rel=1e-5)
    # d/dz [-(1 - p)^2 log p] with dp/dz = p (onehot - p): (2 (1 - p) log p - (1 - p)^2 / p) * p (onehot - p)
    dfdp = 2 * (1 - p_y) * np.log(p_y) - (1 - p_y) ** 2 / p_y
    expected = (dfdp * p_y)[..., None] * (np.eye(4)[Y4] - p) * mask[..., None]
    np.testing.assert_allclose(grad, expected, atol=2e-6)
    np.testing.assert_allclose(grad[0, 0], [0.5714374, 0.2102201, -1.1282518, 0.3465943], atol=2e-6)  # reference


def test_fake_upper_bound_of_an_infinite_frame(session):
    """A target class with logit -inf: the frame's CE is inf; bounded it is the bound (not nan), and the gradient
    stays finite (softmax - one-hot), as the reference."""
    x = X4.copy()
    x[0, 0, 2] = -np.inf  # the target class of frame (0, 0)
    value, grad = _value_and_grad(session, x, Y4, [3, 2], fake_upper_bound=10.0)
    assert value == pytest.approx(13.763549 - 2.7466 + 10.0, rel=1e-4)
    assert np.isfinite(grad[0, 0, [0, 1, 3]]).all()

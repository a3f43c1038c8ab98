"""loss layer: a framewise loss per frame (numpy references on fixed inputs; the reference's layouts and errors)."""

import numpy as np
import pytest
import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import SpatialDim
from tf_net_helpers import build_net, make_feed

RND = np.random.RandomState(5)
TIME = SpatialDim("time")
LOGITS = RND.randn(2, 4, 3).astype("float32")
Y = np.array([[0, 2, 1, 1], [2, 0, 1, 0]], "int32")
LENS = [4, 2]
EXTERN = {"data": {"dim": 3, "same_dim_tags_as": {"t": TIME}},
          "classes": {"dim": 3, "sparse": True, "same_dim_tags_as": {"t": TIME}}}


def _log_softmax(x):
    x = x - x.max(-1, keepdims=True)
    return x - np.log(np.exp(x).sum(-1, keepdims=True))


def _run(session, net_dict, extra_data=None, layers=("output",)):
    extern = dict(EXTERN, **(extra_data or {}))
    net = build_net(net_dict, extern, train_flag=False)
    session.run(tf.compat.v1.global_variables_initializer())
    values = {"data": LOGITS, "classes": Y}
    feed = make_feed(net, values, {"data": LENS, "classes": LENS})
    return net, session.run([net.get_layer(n).output.placeholder for n in layers], feed)


def _net(loss, src="probs", **opts):
    return {"probs": {"class": "activation", "activation": "softmax", "from": "data"},
            "output": {"class": "loss", "from": src, "loss_": loss, "target_": "classes", **opts}}


def test_ce_per_frame_on_all_frames(session):
    net, (out,) = _run(session, _net("ce"))
    lp = _log_softmax(LOGITS)
    expected = -np.take_along_axis(lp, Y[..., None], -1)[..., 0]
    np.testing.assert_allclose(out, expected, rtol=1e-5)  # padded frames too, as the reference
    assert net.get_layer("output").output.batch_shape == (None, None)
    assert net.get_layer("output").output.dtype == "float32"
    assert not net.losses_dict  # the layer adds no loss itself


def test_ce_error_label_smoothing_focal(session):
    net_dict = _net("ce")
    net_dict["err"] = dict(net_dict["output"], use_error=True)
    net_dict["ls"] = dict(net_dict["output"], loss_opts_={"label_smoothing": 0.1})
    net_dict["focal"] = dict(net_dict["output"], loss_opts_={"focal_loss_factor": 2.0, "scale": 5.0})
    for name in ("err", "ls", "focal"):
        net_dict[name]["is_output_layer"] = True
    _, (err, ls, focal) = _run(session, net_dict, layers=("err", "ls", "focal"))
    lp = _log_softmax(LOGITS)
    one_hot = np.eye(3)[Y]
    np.testing.assert_array_equal(err, (LOGITS.argmax(-1) != Y).astype("float32"))
    q = one_hot * 0.9 + (1 - one_hot) * 0.05
    np.testing.assert_allclose(ls, -(q * lp).sum(-1) + (q * np.log(q)).sum(-1), rtol=1e-5)  # KL(q || p)
    ce = -(one_hot * lp).sum(-1)
    # the loss's own "scale" does not apply to the layer output (reference)
    np.testing.assert_allclose(focal, ce * (1 - np.exp(-ce)) ** 2, rtol=1e-5)


def test_values_observed_from_reference(session):
    """Time-major source (a rec layer) gives a time-major output; values from the reference (same inputs and
    parameters: zero weights, so the LSTM output is 0 and every frame's CE is log(3))."""
    net_dict = {"lstm": {"class": "rec", "unit": "nativelstm2", "n_out": 2, "from": "data",
                         "forward_weights_init": 0.0, "recurrent_weights_init": 0.0},
                "probs": {"class": "softmax", "n_out": 3, "from": "lstm", "forward_weights_init": 0.0},
                "output": {"class": "loss", "from": "probs", "loss_": "ce", "target_": "classes"}}
    net, (out,) = _run(session, net_dict)
    assert net.get_layer("output").output.time_dim_axis == 0 and net.get_layer("output").output.batch_dim_axis == 1
    np.testing.assert_allclose(out, np.full((4, 2), np.log(3.0)), rtol=1e-6)


def test_mse_and_mean_l1(session):
    target = RND.randn(2, 4, 3).astype("float32")
    extern = dict(EXTERN, dense={"dim": 3, "same_dim_tags_as": {"t": TIME}})
    net = build_net({"mse": {"class": "loss", "from": "data", "loss_": "mse", "target_": "dense",
                             "is_output_layer": True},
                     "l1": {"class": "loss", "from": "data", "loss_": "mean_l1", "target_": "dense",
                            "is_output_layer": True}}, extern, train_flag=False)
    feed = make_feed(net, {"data": LOGITS, "dense": target}, {"data": LENS, "dense": LENS})
    mse, l1 = session.run([net.get_layer("mse").output.placeholder, net.get_layer("l1").output.placeholder], feed)
    np.testing.assert_allclose(mse, ((LOGITS - target) ** 2).mean(-1), rtol=1e-5)
    np.testing.assert_allclose(l1, np.abs(LOGITS - target).mean(-1), rtol=1e-5)


@pytest.mark.parametrize("layer, arg", [
    ({"class": "loss", "from": "data", "loss_": "ctc", "target_": "classes"}, "loss_"),  # reference: AssertionError
    ({"class": "loss", "from": "data", "loss_": "l1", "target_": "classes"}, "loss_"),
    ({"class": "loss", "from": "data", "loss_": "ce"}, "target_"),
    ({"class": "loss", "from": "data", "loss_": "ce", "target_": "classes", "loss_scale": 2.0}, "loss_scale"),
    ({"class": "loss", "from": "data", "loss_": "ce", "target_": "classes", "loss_opts_": {"nope": 1}}, "loss_opts_"),
])
def test_rejected(session, layer, arg):
    with pytest.raises(LayerArgError) as info:
        build_net({"output": layer}, EXTERN, train_flag=False)
    assert info.value.arg == arg and "'output'" in str(info.value)


def test_error_sub_layer_and_availability(session):
    # "<loss layer>/error" is the error per frame; layers reading the target are not available for inference
    net_dict = _net("ce")
    net_dict["err"] = {"class": "copy", "from": "output/error", "is_output_layer": True}
    net_dict["emb"] = {"class": "linear", "from": "data:classes", "n_out": 2, "is_output_layer": True}
    net, (out, err) = _run(session, net_dict, layers=("output", "err"))
    np.testing.assert_array_equal(err, (LOGITS.argmax(-1) != Y).astype("float32"))
    assert not np.array_equal(out, err)
    assert net.get_layer("probs").output.available_for_inference
    assert not net.get_layer("err").output.available_for_inference
    assert not net.get_layer("emb").output.available_for_inference  # its source, data:classes, is not

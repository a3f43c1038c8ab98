"""Tests for TFNetwork construction, params, losses, objective and info printing.

Expected param names/shapes and printed lines observed from the reference (RETURNN from PyPI).
"""

import numpy as np
import pytest
import tensorflow as tf

from returnn.config import Config
from returnn.errors import ConfigValueError, LayerArgError, LayerShapeError, UnknownNameError
from returnn.log import log
from returnn.tf.network import (ExternData, LayerNotFound, NetworkConstructionDependencyLoopException, TFNetwork)
from tf_net_helpers import build_net, forward_and_grad_step, make_feed

EXTERN = {"data": {"dim": 9}, "classes": {"dim": 5, "sparse": True}}
NET = {"l1": {"class": "linear", "activation": "2*sigmoid", "n_out": 7, "L2": 0.01, "dropout": 0.1},
       "output": {"class": "softmax", "loss": "ce", "from": "l1", "target": "classes"}}


def test_param_names_and_shapes_match_reference(session):
    net = build_net(NET, EXTERN)
    assert [(p.name, tuple(p.shape.as_list())) for p in net.get_params_list()] == [
        ("l1/W:0", (9, 7)), ("l1/b:0", (7,)), ("output/W:0", (7, 5)), ("output/b:0", (5,))]
    assert net.get_num_params() == 110
    assert net.layers["output"].output.feature_dim is net.extern_data.data["classes"].sparse_dim


@pytest.mark.parametrize("verbosity, flag, printed", [(3, False, True), (2, False, False), (1, True, True)])
def test_layer_template_lines_at_verbosity_3_or_1_with_flag_like_reference(session, capsys, verbosity, flag,
                                                                            printed):
    log.initialize(verbosity=[verbosity])
    build_net(NET, EXTERN, **({"debug_print_layer_output_template": True} if flag else {}))
    out = capsys.readouterr().out
    line = "layer /'l1': [B,T|'time:var:extern_data:data'[B],F|F'l1:feature-dense'(7)] float32\n"
    assert (line in out) == printed


def test_params_listed_by_layer_then_param_name_like_reference(session):
    """Observed with the reference: layers by name, and within a layer its params by name (creation order here
    is gamma/beta and scale/bias)."""
    net = build_net({"ln": {"class": "layer_norm", "from": "data"}, "bn": {"class": "batch_norm", "from": "ln"},
                     "output": {"class": "softmax", "loss": "ce", "from": "bn"}}, EXTERN)
    assert [p.name for p in net.get_trainable_params()] == [
        "bn/batch_norm/bn_bn_output_beta:0", "bn/batch_norm/bn_bn_output_gamma:0", "ln/bias:0", "ln/scale:0",
        "output/W:0", "output/b:0"]


def test_print_network_info_like_reference(session, capsys):
    log.initialize(verbosity=[5])
    log._printed_warning_history.discard('Missing "from" in layer definition: /l1')  # printed once per process
    net = build_net(NET, EXTERN, debug_print_layer_output_template=True)
    net.print_network_info()
    out = capsys.readouterr().out
    assert "layer /'data': [B,T|'time:var:extern_data:data'[B],F|F'feature:data'(9)] float32\n" in out
    assert ("layer /'data:classes': [B,T|'time:var:extern_data:classes'[B]] int32 "
            "sparse_dim=Dim{F'classes:sparse-dim'(5)}\n") in out
    assert "layer /'output': [B,T|'time:var:extern_data:data'[B],F|F'classes:sparse-dim'(5)] float32\n" in out
    assert "    layer source 'data:classes' #: 5\n    layer linear 'l1' #: 7\n    layer softmax 'output' #: 5\n" in out
    assert "\nnet params #: 110\n" in out
    assert "  used data keys: ['classes', 'data']\n" in out
    assert 'DEPRECATION WARNING: Missing "from" in layer definition: /l1\n' in out


def _softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def test_ce_loss_error_and_frames_against_numpy(session):
    net = build_net({"output": {"class": "softmax", "loss": "ce", "target": "classes", "from": "data"}},
                    {"data": {"dim": 3}, "classes": {"dim": 4, "sparse": True}})
    losses, total, constraints = net.get_losses_initialized(with_total=True)
    holder = losses["output"]
    session.run(tf.compat.v1.global_variables_initializer())
    w, b = session.run([net.layers["output"].params["W"], net.layers["output"].params["b"]])
    x = np.array([[[1, 2, 3], [0, 1, 0], [2, 2, 1]], [[1, 0, 0], [0, 0, 1], [9, 9, 9]]], "float32")
    y = np.array([[0, 1, 3], [2, 2, 0]], "int32")
    feed = make_feed(net, {"data": x, "classes": y}, {"data": [3, 2], "classes": [3, 2]})
    value, error, frames = session.run(
        [holder.get_loss_value(), holder.get_error_value(), holder.get_num_frames()], feed)
    mask = np.array([[1, 1, 1], [1, 1, 0]], bool)
    p = _softmax(x @ w + b)[mask]
    labels = y[mask]
    np.testing.assert_allclose(value, -np.log(p[np.arange(5), labels]).sum(), rtol=1e-5)
    assert error == (p.argmax(-1) != labels).sum()
    assert frames == 5
    assert session.run(holder.get_norm_factor(), feed) == pytest.approx(0.2)  # 1/frames, as the reference
    np.testing.assert_allclose(session.run(net.get_objective(), feed), value, rtol=1e-5)


def test_ce_of_softmax_output_uses_the_logits(session):
    """Logits 0 and 200: the target's probability underflows to 0 in float32; from the logits the CE is exactly
    200 per frame (through the probabilities it would be capped at -log(1e-30) = 69.1). Padded frames are left
    out; the frame error comes from the logits' argmax."""
    net = build_net({"output": {"class": "softmax", "loss": "ce", "target": "classes", "from": "data",
                                "forward_weights_init": 0.0, "bias_init": 0.0}},
                    {"data": {"dim": 2}, "classes": {"dim": 2, "sparse": True}})
    holder = net.get_losses_initialized()[0]["output"]
    session.run(tf.compat.v1.global_variables_initializer())
    w = net.layers["output"].params["W"]
    session.run(w.assign(np.eye(2, dtype="float32")))
    x = np.array([[[0, 200], [200, 0], [0, 200]], [[200, 0], [0, 0], [5, 5]]], "float32")
    y = np.array([[0, 0, 1], [0, 1, 1]], "int32")
    feed = make_feed(net, {"data": x, "classes": y}, {"data": [3, 1], "classes": [3, 1]})
    value, error = session.run([holder.get_loss_value(), holder.get_error_value()], feed)
    assert value == pytest.approx(200.0, rel=1e-6)  # only frame (0, 0) is wrong, by 200 nats
    assert error == 1


def test_ce_masks_padded_frames_whatever_their_target(session):
    """Padded frames carry out-of-range labels (99, -1) and the target is padded further than the output: the loss,
    the frame error and the gradient come from the real frames only (numpy reference)."""
    net = build_net({"output": {"class": "softmax", "loss": "ce", "target": "classes", "from": "data"}},
                    {"data": {"dim": 3}, "classes": {"dim": 4, "sparse": True}})
    holder = net.get_losses_initialized()[0]["output"]
    w_var, b_var = net.layers["output"].params["W"], net.layers["output"].params["b"]
    grad_w, grad_x = tf.gradients(holder.get_loss_value(), [w_var, net.extern_data.data["data"].placeholder])
    session.run(tf.compat.v1.global_variables_initializer())
    w, b = session.run([w_var, b_var])
    x = np.random.RandomState(3).randn(2, 3, 3).astype("float32")
    y = np.array([[0, 1, 3, 99, -1], [2, -1, 99, 99, 99]], "int32")  # lengths 3 and 1, padded to 5
    feed = make_feed(net, {"data": x, "classes": y}, {"data": [3, 1], "classes": [3, 1]})
    value, error, gw, gx = session.run([holder.get_loss_value(), holder.get_error_value(), grad_w, grad_x], feed)
    mask = np.array([[1, 1, 1], [1, 0, 0]], bool)
    labels = y[:, :3][mask]
    p = _softmax(x @ w + b)[mask]
    np.testing.assert_allclose(value, -np.log(p[np.arange(4), labels]).sum(), rtol=1e-5)
    assert error == (p.argmax(-1) != labels).sum()
    d_logits = p - np.eye(4)[labels]
    np.testing.assert_allclose(gw, x[mask].T @ d_logits, rtol=1e-4, atol=1e-6)
    assert not gx[~mask].any()


def test_ce_label_smoothing_is_kl_like_reference(session):
    # the reference reports 5.5758376 for this exact setup, where plain CE would be 8.838371 for its weights;
    # we check the formula KL(q||p) with q = 1-ls on target, ls/(dim-1) elsewhere
    net = build_net({"output": {"class": "softmax", "loss": "ce", "target": "classes", "from": "data",
                                "loss_opts": {"label_smoothing": 0.2, "focal_loss_factor": 0.0}}},
                    {"data": {"dim": 3}, "classes": {"dim": 4, "sparse": True}})
    holder = net.get_losses_initialized()[0]["output"]
    session.run(tf.compat.v1.global_variables_initializer())
    w, b = session.run([net.layers["output"].params["W"], net.layers["output"].params["b"]])
    x = np.random.RandomState(0).randn(2, 3, 3).astype("float32")
    y = np.array([[0, 1, 3], [2, 2, 0]], "int32")
    value = session.run(holder.get_loss_value(), make_feed(net, {"data": x, "classes": y},
                                                           {"data": [3, 2], "classes": [3, 2]}))
    mask = np.array([[1, 1, 1], [1, 1, 0]], bool)
    p = _softmax(x @ w + b)[mask]
    q = 0.8 * np.eye(4)[y[mask]] + 0.2 / 3 * (1 - np.eye(4)[y[mask]])
    np.testing.assert_allclose(value, (q * (np.log(q) - np.log(p))).sum(), rtol=1e-4)


def test_ce_focal_loss(session):
    net = build_net({"output": {"class": "softmax", "loss": "ce", "target": "classes", "from": "data",
                                "loss_opts": {"focal_loss_factor": 2.0}}},
                    {"data": {"dim": 3}, "classes": {"dim": 4, "sparse": True}})
    holder = net.get_losses_initialized()[0]["output"]
    session.run(tf.compat.v1.global_variables_initializer())
    w, b = session.run([net.layers["output"].params["W"], net.layers["output"].params["b"]])
    x = np.random.RandomState(1).randn(2, 3, 3).astype("float32")
    y = np.array([[0, 1, 3], [2, 2, 0]], "int32")
    value = session.run(holder.get_loss_value(), make_feed(net, {"data": x, "classes": y},
                                                           {"data": [3, 2], "classes": [3, 2]}))
    mask = np.array([[1, 1, 1], [1, 1, 0]], bool)
    pt = _softmax(x @ w + b)[mask][np.arange(5), y[mask]]
    np.testing.assert_allclose(value, (-(1 - pt) ** 2 * np.log(pt)).sum(), rtol=1e-4)


def test_ctc_loss_dim_blank_and_normalization(session):
    net = build_net({"output": {"class": "softmax", "loss": "ctc", "target": "classes", "from": "data"}},
                    {"data": {"dim": 3}, "classes": {"dim": 4, "sparse": True}})
    assert net.layers["output"].output.dim == 5  # 4 labels + blank
    holder = net.get_losses_initialized()[0]["output"]
    session.run(tf.compat.v1.global_variables_initializer())
    rnd = np.random.RandomState(1)
    x = rnd.randn(2, 5, 3).astype("float32")
    y = np.array([[0, 1, 2, 3], [2, 1, 0, 0]], "int32")
    feed = make_feed(net, {"data": x, "classes": y}, {"data": [5, 3], "classes": [4, 2]})
    value, error, frames = session.run([holder.get_loss_value(), holder.get_error_value(),
                                        holder.get_num_frames()], feed)
    assert frames == 6  # target labels, as the reference normalizes ctc
    assert value > 0 and 0 <= error <= 6


# values observed from the reference for this setup (W = 0.3 everywhere, b = 0):
# mse 0.9453664, l1 3.31847, mean_l1 1.6592349, bin_ce (activation sigmoid) 4.3072987, as_is 6.1830754, error 4.0
REF_X = np.random.RandomState(0).randn(2, 3, 3).astype("float32")
REF_T = np.random.RandomState(1).rand(2, 3, 2).astype("float32")


@pytest.mark.parametrize("loss, activation, expected", [("mse", None, 0.9453664), ("l1", None, 3.31847),
                                                        ("mean_l1", None, 1.6592349), ("bin_ce", "sigmoid", 4.3072987),
                                                        ("sigmoid_ce", "sigmoid", 4.3072987)])
def test_regression_losses_like_reference(session, loss, activation, expected):
    net = build_net({"output": {"class": "linear", "activation": activation, "n_out": 2, "loss": loss, "target": "t",
                                "forward_weights_init": 0.3, "from": "data"}},
                    {"data": {"dim": 3}, "t": {"dim": 2}})
    holder = net.get_losses_initialized()[0]["output"]
    session.run(tf.compat.v1.global_variables_initializer())
    feed = make_feed(net, {"data": REF_X, "t": REF_T}, {"data": [3, 2], "t": [3, 2]})
    value, error, norm = session.run([holder.get_loss_value(), holder.get_error_value(), holder.get_norm_factor()], feed)
    np.testing.assert_allclose(value, expected, rtol=1e-5)
    assert error == 4.0 and norm == pytest.approx(0.2)


def test_loss_scale_and_as_is(session):
    net = build_net({"output": {"class": "copy", "from": "data", "loss": "as_is", "loss_scale": 0.5}},
                    {"data": {"dim": 2}})
    """As the reference (observed with loss_scale 0.5 on ce: get_loss_value and get_loss_value_for_fetch 4.826689,
    get_loss_value_for_objective and the objective 2.4133444): the reported value is not scaled, the objective is."""
    holder = net.get_losses_initialized()[0]["output"]
    x = np.ones((2, 3, 2), "float32")
    feed = make_feed(net, {"data": x}, {"data": [3, 1]})
    value, fetch, objective, total = session.run(
        [holder.get_loss_value(), holder.get_loss_value_for_fetch(), holder.get_loss_value_for_objective(),
         net.get_objective()], feed)
    assert value == fetch == pytest.approx(2 * 4)
    assert objective == total == pytest.approx(0.5 * 2 * 4)


def test_l2_constraint_in_objective(session):
    net = build_net({"output": {"class": "linear", "n_out": 2, "L2": 0.1, "from": "data", "is_output_layer": True}},
                    {"data": {"dim": 3}})
    session.run(tf.compat.v1.global_variables_initializer())
    w, b = session.run([net.layers["output"].params["W"], net.layers["output"].params["b"]])
    expected = 0.1 * ((w ** 2).sum() + (b ** 2).sum())  # as the reference (observed: no factor 1/2)
    assert session.run(net.get_total_constraints()) == pytest.approx(expected, rel=1e-5)
    assert session.run(net.get_objective()) == pytest.approx(expected, rel=1e-5)


def test_trainable_false(session):
    net = build_net({"a": {"class": "linear", "n_out": 2, "trainable": False, "from": "data"},
                     "output": {"class": "linear", "n_out": 2, "from": "a"}}, {"data": {"dim": 3}})
    assert [p.name for p in net.get_params_list()] == ["a/W:0", "a/b:0", "output/W:0", "output/b:0"]
    assert [p.name for p in net.get_trainable_params()] == ["output/W:0", "output/b:0"]


@pytest.mark.parametrize("init, check", [
    (0.5, lambda w: np.all(w == 0.5)),
    ("zeros", lambda w: np.all(w == 0)),
    ("ones_initializer", lambda w: np.all(w == 1)),
    ("glorot_normal", lambda w: w.std() > 0),
    ("orthogonal", lambda w: np.allclose(w.T @ w, np.eye(3), atol=1e-5)),
    ({"class": "VarianceScaling", "scale": 0.5, "mode": "fan_out"}, lambda w: w.std() > 0),
    ("variance_scaling_initializer(scale=2.0)", lambda w: w.std() > 0),
])
def test_forward_weights_init(session, init, check):
    net = build_net({"output": {"class": "linear", "n_out": 3, "forward_weights_init": init, "from": "data"}},
                    {"data": {"dim": 4}})
    session.run(tf.compat.v1.global_variables_initializer())
    assert check(session.run(net.layers["output"].params["W"]))


@pytest.mark.parametrize("init, mean, std, low, high", [
    # TensorFlow's own defaults, which the reference's checkpoints show (200 inputs, 300 outputs)
    ("random_normal", 0.0, 1.0, None, None),
    ("random_uniform", 0.5, (1 / 12) ** 0.5, 0.0, 1.0),
    ("truncated_normal", 0.0, 0.8796, -2.0, 2.0),  # stddev 1 cut at 2: sqrt(1 - 2 phi(2) / (2 Phi(2) - 1))
    # scale 1, fan_in, truncated normal: stddev sqrt(1/200) after the cut, i.e. sqrt(1/200) / 0.8796 before it
    ("variance_scaling", 0.0, (1 / 200) ** 0.5, -2 * (1 / 200) ** 0.5 / 0.87962566, 2 * (1 / 200) ** 0.5 / 0.87962566),
    ("glorot_uniform", 0.0, (2 / 500) ** 0.5, -(6 / 500) ** 0.5, (6 / 500) ** 0.5),
])
def test_initializer_distributions(session, init, mean, std, low, high):
    net = build_net({"output": {"class": "linear", "n_out": 300, "forward_weights_init": init, "from": "data"}},
                    {"data": {"dim": 200}})
    session.run(tf.compat.v1.global_variables_initializer())
    w = session.run(net.layers["output"].params["W"])
    assert abs(w.mean() - mean) < 0.02 * std  # 60000 draws: the standard error of the mean is 0.004 std
    assert abs(w.std() - std) < 0.02 * std
    if low is not None:
        assert w.min() >= low - 1e-6 and w.max() <= high + 1e-6
        assert w.min() < low + 0.05 * (high - low) and w.max() > high - 0.05 * (high - low)


def test_unknown_initializer_suggests(session):
    with pytest.raises(ConfigValueError, match="glorot_uniform"):
        build_net({"output": {"class": "linear", "n_out": 3, "forward_weights_init": "glorot_unifrm",
                              "from": "data"}}, {"data": {"dim": 4}})


def test_dropout_only_in_training(session):
    train_flag = tf.compat.v1.placeholder(tf.bool, shape=(), name="train_flag")
    net = build_net({"output": {"class": "copy", "from": "data", "dropout": 0.5, "dropout_noise_shape": {"T": 1}}},
                    {"data": {"dim": 50}}, train_flag=train_flag)
    x = np.ones((2, 4, 50), "float32")
    feed = make_feed(net, {"data": x}, {"data": [4, 4]})
    out = net.layers["output"].output.placeholder
    eval_out = session.run(out, {**feed, train_flag: False})
    np.testing.assert_array_equal(eval_out, x)
    train_out = session.run(out, {**feed, train_flag: True})
    assert set(np.unique(train_out)) <= {0.0, 2.0} and (train_out == 0).any()
    np.testing.assert_array_equal(train_out[:, 0], train_out[:, 3])  # mask shared over time


def test_dropout_on_forward(session):
    net = build_net({"output": {"class": "copy", "from": "data", "dropout": 0.5, "dropout_on_forward": True}},
                    {"data": {"dim": 50}}, train_flag=False)
    out = session.run(net.layers["output"].output.placeholder,
                      make_feed(net, {"data": np.ones((1, 3, 50), "float32")}, {"data": [3]}))
    assert (out == 0).any()


def test_time_major_input(session):
    net = build_net({"output": {"class": "linear", "n_out": 2, "from": "data", "activation": "relu"}},
                    {"data": {"dim": 3, "batch_dim_axis": 1}})
    assert net.layers["output"].output.batch_dim_axis == 1
    x = np.random.RandomState(0).randn(4, 2, 3).astype("float32")  # [T, B, F]
    feed = make_feed(net, {"data": x}, {"data": [4, 2]})
    session.run(tf.compat.v1.global_variables_initializer())
    w, b = session.run([net.layers["output"].params["W"], net.layers["output"].params["b"]])
    out = session.run(net.layers["output"].output.placeholder, feed)
    np.testing.assert_allclose(out, np.maximum(x @ w + b, 0), rtol=1e-5, atol=1e-6)
    forward_and_grad_step(session, net, feed)


def test_seed_blstm_style_network_with_copy_layers(session):
    # the seed's 3-layer BLSTM needs "rec"; here the same wiring with linear layers (from lists, L2, dropout)
    net_dict = {
        "l0_fw": {"class": "linear", "n_out": 5, "dropout": 0.1, "L2": 0.01, "from": "data"},
        "l0_bw": {"class": "linear", "n_out": 5, "dropout": 0.1, "L2": 0.01, "from": "data"},
        "l1_fw": {"class": "linear", "n_out": 5, "dropout": 0.1, "L2": 0.01, "from": ["l0_fw", "l0_bw"]},
        "output": {"class": "softmax", "loss": "ce", "from": ["l1_fw", "l0_bw"]}}
    net = build_net(net_dict)
    assert net.layers["l1_fw"].params["W"].shape.as_list() == [10, 5]
    x = np.random.RandomState(0).randn(2, 3, 3).astype("float32")
    y = np.array([[0, 1, 2], [3, 0, 0]], "int32")
    forward_and_grad_step(session, net, make_feed(net, {"data": x, "classes": y}, {"data": [3, 2], "classes": [3, 2]}))


# ---- bad input: one clear error at construction


def test_unknown_layer_class(session):
    with pytest.raises(UnknownNameError) as info:
        build_net({"output": {"class": "linaer", "n_out": 2}})
    assert "'linaer'" in str(info.value) and "'linear'" in str(info.value) and "'output'" in str(info.value)


def test_unknown_layer_class_hint(session):
    with pytest.raises(UnknownNameError, match="nativelstm2"):
        build_net({"output": {"class": "lstm", "n_out": 2}})


def test_unknown_arg(session):
    with pytest.raises(LayerArgError) as info:
        build_net({"output": {"class": "linear", "n_ot": 2, "from": "data"}})
    err = info.value
    assert (err.layer, err.arg) == ("output", "n_ot") and "n_out" in err.suggestions
    assert "forward_weights_init" in str(err)


def test_missing_layer(session):
    with pytest.raises(LayerNotFound) as info:
        build_net({"l1": {"class": "copy", "from": "data"}, "output": {"class": "copy", "from": "l11"}})
    assert "'l11'" in str(info.value) and "'l1'" in str(info.value) and "'output'" in str(info.value)


def test_cycle(session):
    with pytest.raises(NetworkConstructionDependencyLoopException) as info:
        build_net({"a": {"class": "copy", "from": "output"}, "output": {"class": "copy", "from": "a"}})
    assert "dependency loop" in str(info.value) and "'a'" in str(info.value)


def test_n_out_disagrees_with_target(session):
    with pytest.raises(LayerShapeError) as info:
        build_net({"output": {"class": "softmax", "n_out": 3, "loss": "ce", "target": "classes", "from": "data"}})
    assert "n_out=4" in str(info.value) and "'output'" in str(info.value)


def test_target_not_in_extern_data(session):
    with pytest.raises(LayerArgError) as info:
        build_net({"output": {"class": "softmax", "loss": "ce", "target": "clases", "from": "data"}})
    assert (info.value.layer, info.value.arg, info.value.got) == ("output", "target", "clases")
    assert info.value.suggestions == ("classes",)


def test_from_unknown_data_key(session):
    with pytest.raises(LayerNotFound) as info:
        build_net({"output": {"class": "copy", "from": "data:clases"}})
    assert "'data:classes'" in str(info.value) and "'output'" in str(info.value)


def test_missing_n_out(session):
    with pytest.raises(LayerArgError) as info:
        build_net({"output": {"class": "linear", "from": "data"}})
    assert info.value.arg == "n_out"


def test_sparse_into_dense_only_layer(session):
    with pytest.raises(LayerShapeError, match="sparse"):
        build_net({"output": {"class": "activation", "activation": "relu", "from": "data:classes"}})


# ---- extern data


def test_extern_data_num_inputs_outputs_deprecated(capsys):
    from returnn.datasets import extern_data as extern_data_mod
    log.initialize(verbosity=[5])
    log._printed_warning_history.discard(extern_data_mod.DEPRECATION_NUM_IO)  # printed once per process, as the reference
    ext = ExternData()
    ext.init_from_config(Config({"num_inputs": 3, "num_outputs": 4}))
    assert "DEPRECATION WARNING: Using num_inputs/num_outputs instead of extern_data is deprecated" in capsys.readouterr().out
    assert list(ext.data) == ["classes", "data"]
    assert ext.data["classes"].sparse and ext.data["classes"].dim == 4 and not ext.data["classes"].available_for_inference
    assert ext.data["data"].batch_shape == (None, None, 3)
    ext2 = ExternData()
    ext2.init_from_config(Config({"num_outputs": {"data": [3, 2], "classes": [4, 1], "foo": 5}}))
    assert list(ext2.data) == ["data", "classes", "foo"] and ext2.data["foo"].sparse


def test_same_time_dim_as(session):
    from returnn.tensor import DimensionTag
    tag = DimensionTag(kind=DimensionTag.Types.Spatial, description="dynamic_time", dimension=None)
    net = build_net({"output": {"class": "copy", "from": ["data:a", "data:b"]}},
                    {"a": {"dim": 2, "shape": (None, 2), "same_time_dim_as": {"T": tag}},
                     "b": {"dim": 3, "shape": (None, 3), "time_dim_axis": 1, "same_time_dim_as": {"T": tag}}})
    assert net.layers["output"].output.dim == 5
    assert net.extern_data.data["a"].dims[1] == net.extern_data.data["b"].dims[1]


def test_register_as_extern_data(session):
    net = build_net({"output": {"class": "linear", "n_out": 2, "from": "data", "register_as_extern_data": "feat"}},
                    {"data": {"dim": 3}})
    assert net.extern_data.data["feat"].dim == 2


SEED_BLSTM = {
    "lstm0_fw": {"class": "rec", "unit": "lstm", "n_out": 500, "dropout": 0.1, "L2": 0.01, "direction": 1, "from": "data"},
    "lstm0_bw": {"class": "rec", "unit": "lstm", "n_out": 500, "dropout": 0.1, "L2": 0.01, "direction": -1, "from": "data"},
    "lstm1_fw": {"class": "rec", "unit": "lstm", "n_out": 500, "dropout": 0.1, "L2": 0.01, "direction": 1,
                 "from": ["lstm0_fw", "lstm0_bw"]},
    "lstm1_bw": {"class": "rec", "unit": "lstm", "n_out": 500, "dropout": 0.1, "L2": 0.01, "direction": -1,
                 "from": ["lstm0_fw", "lstm0_bw"]},
    "lstm2_fw": {"class": "rec", "unit": "lstm", "n_out": 500, "dropout": 0.1, "L2": 0.01, "direction": 1,
                 "from": ["lstm1_fw", "lstm1_bw"]},
    "lstm2_bw": {"class": "rec", "unit": "lstm", "n_out": 500, "dropout": 0.1, "L2": 0.01, "direction": -1,
                 "from": ["lstm1_fw", "lstm1_bw"]},
    "output": {"class": "softmax", "loss": "ce", "from": ["lstm2_fw", "lstm2_bw"]},
}


def test_seed_blstm_network_builds_unchanged_like_reference(session, capsys):
    log.initialize(verbosity=[2])
    net = build_net(SEED_BLSTM, EXTERN)
    net.print_network_info()
    out = capsys.readouterr().out
    # observed from the reference with the same extern data:
    assert "\nnet params #: 14053005\n" in out
    assert ("    layer source 'data' #: 9\n    layer source 'data:classes' #: 5\n    layer rec 'lstm0_bw' #: 500\n"
            "    layer rec 'lstm0_fw' #: 500\n") in out
    assert [(p.name, p.shape.as_list()) for p in net.get_params_list()][:4] == [
        ("lstm0_bw/rec/W:0", [9, 2000]), ("lstm0_bw/rec/W_re:0", [500, 2000]), ("lstm0_bw/rec/b:0", [2000]),
        ("lstm0_fw/rec/W:0", [9, 2000])]
    assert net.get_total_constraints() is not None and net.layers["output"].output.dim == 5


def test_small_blstm_forward_and_gradient_step(session):
    small = {name: dict(d, n_out=3) if d["class"] == "rec" else dict(d) for name, d in SEED_BLSTM.items()}
    net = build_net(small, {"data": {"dim": 2}, "classes": {"dim": 4, "sparse": True}})
    x = np.random.RandomState(0).randn(2, 4, 2).astype("float32")
    y = np.array([[0, 1, 2, 3], [3, 2, 0, 0]], "int32")
    feed = make_feed(net, {"data": x, "classes": y}, {"data": [4, 2], "classes": [4, 2]})
    out = forward_and_grad_step(session, net, feed)
    np.testing.assert_allclose(out[0].sum(-1), 1.0, rtol=1e-5)


def _np_ctc_neg_log_prob(log_probs, labels, blank):
    """Independent CTC forward algorithm (log-space) for one sequence: log_probs [T, C], labels list."""
    ext = [blank]
    for lab in labels:
        ext += [lab, blank]
    alpha = np.full(len(ext), -np.inf)
    alpha[0] = log_probs[0, blank]
    if len(ext) > 1:
        alpha[1] = log_probs[0, ext[1]]
    for t in range(1, len(log_probs)):
        new = np.full(len(ext), -np.inf)
        for s in range(len(ext)):
            cands = [alpha[s]]
            if s >= 1:
                cands.append(alpha[s - 1])
            if s >= 2 and ext[s] != blank and ext[s] != ext[s - 2]:
                cands.append(alpha[s - 2])
            new[s] = np.logaddexp.reduce(cands) + log_probs[t, ext[s]]
        alpha = new
    return -np.logaddexp(alpha[-1], alpha[-2] if len(ext) > 1 else -np.inf)


def test_ctc_loss_against_numpy_forward_algorithm(session):
    # beam_width 1: greedy decoding for the error (the reference's default is a beam search of 100)
    net = build_net({"output": {"class": "softmax", "loss": "ctc", "target": "classes", "from": "data",
                                "loss_opts": {"beam_width": 1}}},
                    {"data": {"dim": 3}, "classes": {"dim": 4, "sparse": True}})
    holder = net.get_losses_initialized()[0]["output"]
    session.run(tf.compat.v1.global_variables_initializer())
    w, b = session.run([net.layers["output"].params["W"], net.layers["output"].params["b"]])
    x = np.random.RandomState(4).randn(2, 6, 3).astype("float32")
    y = np.array([[0, 1, 1], [2, 0, 0]], "int32")
    feed = make_feed(net, {"data": x, "classes": y}, {"data": [6, 4], "classes": [3, 1]})
    value, error = session.run([holder.get_loss_value(), holder.get_error_value()], feed)
    logits = x @ w + b
    log_p = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    expected = _np_ctc_neg_log_prob(log_p[0, :6], [0, 1, 1], 4) + _np_ctc_neg_log_prob(log_p[1, :4], [2], 4)
    np.testing.assert_allclose(value, expected, rtol=1e-4)
    # greedy decoding error: edit distance between collapsed argmax path and labels
    def greedy(lp):
        path = lp.argmax(-1)
        out = [int(c) for i, c in enumerate(path) if c != 4 and (i == 0 or c != path[i - 1])]
        return out

    def edit(a, b_):
        d = np.arange(len(b_) + 1)
        for i in range(1, len(a) + 1):
            prev, d[0] = d.copy(), i
            for j in range(1, len(b_) + 1):
                d[j] = min(prev[j] + 1, d[j - 1] + 1, prev[j - 1] + (a[i - 1] != b_[j - 1]))
        return d[-1]
    assert error == edit(greedy(log_p[0, :6]), [0, 1, 1]) + edit(greedy(log_p[1, :4]), [2])


def test_get_fetches_dict(session):
    net = build_net(NET, EXTERN)
    fetches = net.get_fetches_dict(with_size=True)
    assert {"cost:output", "error:output", "loss_norm_factor:output", "num_frames:output", "size:data:0",
            "size:classes:0"} <= set(fetches)
    assert fetches["loss"] is net.get_total_loss()  # as the reference's key
    assert "summary" not in fetches


@pytest.mark.parametrize("alias", ["forward", "hidden"])
def test_linear_aliases(session, alias):
    net = build_net({"output": {"class": alias, "n_out": 2, "from": "data"}}, {"data": {"dim": 3}})
    assert net.layers["output"].layer_class == "linear"
    assert sorted(net.layers["output"].params) == ["W", "b"]


def test_loss_holder_fields_before_values(session):
    net = build_net(NET, EXTERN)
    holder = net.get_losses_initialized()[0]["output"]
    assert holder.name == "output" and holder.loss.layer is net.layers["output"] and holder.scale == 1.0


def test_unknown_loss_opt_and_unknown_loss(session):
    with pytest.raises(LayerArgError) as info:
        build_net({"output": {"class": "softmax", "loss": "ce", "loss_opts": {"label_smothing": 0.1}, "from": "data"}})
    assert info.value.arg == "loss_opts" and "label_smothing" in str(info.value)
    with pytest.raises(UnknownNameError, match="'ce'") as info:
        build_net({"output": {"class": "softmax", "loss": "cee", "from": "data"}})
    assert "in layer 'output'" in str(info.value)


def test_target_from_layer(session):
    net = build_net({"t": {"class": "copy", "from": "data"},
                     "output": {"class": "linear", "n_out": 3, "loss": "mse", "target": "layer:t", "from": "data"}},
                    {"data": {"dim": 3}})
    holder = net.get_losses_initialized()[0]["output"]
    session.run(tf.compat.v1.global_variables_initializer())
    x = np.random.RandomState(7).randn(2, 3, 3).astype("float32")
    feed = make_feed(net, {"data": x}, {"data": [3, 2]})
    out, value = session.run([net.layers["output"].output.placeholder, holder.get_loss_value()], feed)
    mask = np.array([[1, 1, 1], [1, 1, 0]], bool)
    np.testing.assert_allclose(value, ((out - x)[mask] ** 2).mean(-1).sum(), rtol=1e-5)  # mse: mean over F


def test_tensor_sequence_mask_and_major_placeholders(session):
    net = build_net({}, {"data": {"dim": 2, "batch_dim_axis": 1}})
    data = net.extern_data.data["data"]
    x = np.zeros((4, 2, 2), "float32")
    feed = make_feed(net, {"data": x}, {"data": [4, 1]})
    mask, bm = session.run([data.get_sequence_mask(), data.get_placeholder_as_batch_major()], feed)
    assert mask.tolist() == [[True, True], [True, False], [True, False], [True, False]]  # [T, B]
    assert bm.shape == (2, 4, 2)


def test_ce_loss_same_for_time_major_input(session):
    values = []
    x = np.random.RandomState(8).randn(2, 4, 3).astype("float32")
    y = np.array([[0, 1, 2, 3], [3, 3, 0, 0]], "int32")
    for time_major in (False, True):
        with tf.Graph().as_default(), tf.compat.v1.Session() as sess:
            net = build_net({"output": {"class": "softmax", "loss": "ce", "from": "data"}},
                            {"data": {"dim": 3, **({"batch_dim_axis": 1} if time_major else {})},
                             "classes": {"dim": 4, "sparse": True}})
            holder = net.get_losses_initialized()[0]["output"]
            sess.run(tf.compat.v1.global_variables_initializer())
            feed = make_feed(net, {"data": x.transpose(1, 0, 2) if time_major else x, "classes": y},
                             {"data": [4, 2], "classes": [4, 2]})
            values.append(sess.run([holder.get_loss_value(), holder.get_error_value()], feed))
    np.testing.assert_allclose(values[0], values[1], rtol=1e-5)


def test_unsupported_loss_option_is_an_error(session):
    with pytest.raises(LayerArgError, match="use_viterbi"):
        build_net({"output": {"class": "softmax", "loss": "ctc", "loss_opts": {"use_viterbi": True}, "from": "data"}})


def test_extern_data_reused_in_new_graph():
    ext = ExternData()
    ext.init_from_config(Config({"extern_data": EXTERN}))
    for _ in range(2):
        with tf.Graph().as_default() as graph, tf.compat.v1.Session() as sess:
            net = TFNetwork(config=Config({}), extern_data=ext, train_flag=False)
            net.construct_from_dict({"output": {"class": "linear", "n_out": 2, "from": "data"}})
            assert net.layers["output"].output.placeholder.graph is graph
            sess.run(tf.compat.v1.global_variables_initializer())
            sess.run(net.layers["output"].output.placeholder,
                     make_feed(net, {"data": np.zeros((1, 2, 9), "float32")}, {"data": [2]}))


def test_dropout_default_mask_shared_except_feature_like_reference(session):
    net = build_net({"output": {"class": "copy", "from": "data", "dropout": 0.5}}, {"data": {"dim": 32}})
    out = session.run(net.layers["output"].output.placeholder,
                      make_feed(net, {"data": np.ones((3, 4, 32), "float32")}, {"data": [4, 4, 4]}))
    assert (out == out[:1, :1]).all() and (out == 0).any() and (out == 2).any()
    net2 = build_net({"output2": {"class": "copy", "from": "data", "dropout": 0.5, "is_output_layer": True,
                                  "dropout_noise_shape": {"*": None}}}, {"data": {"dim": 32}})
    out2 = session.run(net2.layers["output2"].output.placeholder,
                       make_feed(net2, {"data": np.ones((3, 4, 32), "float32")}, {"data": [4, 4, 4]}))
    assert not (out2 == out2[:1, :1]).all()


CTC_REF_W = np.array([[-0.8113182187080383, 1.4845987558364868, 0.0653294026851654, -2.442704200744629, 0.09924840182065964],
                      [0.5912243127822876, 0.5928230285644531, -2.122929573059082, -0.7228971719741821, -0.05627039819955826],
                      [0.6435447931289673, -0.2643240988254547, 1.856633186340332, 0.5678417086601257, -0.38283589482307434]],
                     "float32")


def test_ctc_and_label_smoothing_values_like_reference(session):
    x = np.random.RandomState(0).randn(2, 5, 3).astype("float32")
    net = build_net({"output": {"class": "softmax", "loss": "ctc", "bias_init": 0.1, "from": "data"}},
                    {"data": {"dim": 3}, "classes": {"dim": 4, "sparse": True}})
    holder = net.get_losses_initialized()[0]["output"]
    session.run(tf.compat.v1.global_variables_initializer())
    net.layers["output"].params["W"].load(CTC_REF_W, session)
    y = np.array([[0, 1, 1, 2], [3, 2, 0, 0]], "int32")
    feed = make_feed(net, {"data": x, "classes": y}, {"data": [5, 3], "classes": [4, 2]})
    value, error, norm = session.run([holder.get_loss_value(), holder.get_error_value(), holder.get_norm_factor()], feed)
    # observed from the reference with the same weights and inputs
    assert value == pytest.approx(17.864452, rel=1e-5) and error == 5.0 and norm == pytest.approx(1 / 6)
    with tf.Graph().as_default(), tf.compat.v1.Session() as sess:
        net = build_net({"output": {"class": "softmax", "loss": "ce", "forward_weights_init": 0.3, "from": "data",
                                    "loss_opts": {"label_smoothing": 0.1}}},
                        {"data": {"dim": 3}, "classes": {"dim": 4, "sparse": True}})
        holder = net.get_losses_initialized()[0]["output"]
        sess.run(tf.compat.v1.global_variables_initializer())
        y = np.array([[0, 1, 1, 2, 3], [3, 2, 0, 0, 0]], "int32")
        feed = make_feed(net, {"data": x, "classes": y}, {"data": [5, 3], "classes": [5, 3]})
        value, error, norm = sess.run([holder.get_loss_value(), holder.get_error_value(), holder.get_norm_factor()],
                                      feed)
        assert value == pytest.approx(7.6108007, rel=1e-5) and error == 6.0 and norm == pytest.approx(0.125)


def test_stag_finds_a_dim_by_the_name_of_the_layer_that_created_it():
    """As the reference (observed): a pool layer 'lstm0_pool' makes a new time dim; 'stag:lstm' finds it in later
    layers, while a dim only passed through a layer (copy 'lstm_copy' of data) is not found by that layer's name."""
    from returnn.errors import AxisDescriptionError
    with tf.Graph().as_default():
        net = TFNetwork(config=Config({"extern_data": {"data": {"dim": 4}}}), train_flag=False)
        net.construct_from_dict({
            "lstm0_pool": {"class": "pool", "mode": "max", "padding": "same", "pool_size": (3,), "from": "data"},
            "r": {"class": "reduce", "mode": "max", "axis": "F", "from": "lstm0_pool"},
            "output": {"class": "reinterpret_data", "from": "r", "set_axes": {"t": "stag:lstm"}}})
        assert net.get_layer("output").output.time_dim_axis == 1
    with tf.Graph().as_default():
        net = TFNetwork(config=Config({"extern_data": {"data": {"dim": 4}}}), train_flag=False)
        with pytest.raises(AxisDescriptionError):
            net.construct_from_dict({
                "lstm_copy": {"class": "copy", "from": "data"},
                "r": {"class": "reduce", "mode": "max", "axis": "F", "from": "lstm_copy"},
                "output": {"class": "reinterpret_data", "from": "r", "set_axes": {"t": "stag:lstm"}}})


def test_objective_of_loss_on_layer_name_with_scope_invalid_chars(session):
    # a loss of a layer whose name TF does not take as a scope name (as "extra.search:search_loss" of a published
    # config; this project failed with "is not a valid scope name"): the objective builds and runs
    net = build_net({"out (1)": {"class": "softmax", "from": "data", "target": "classes", "loss": "ce", "n_out": 5,
                                 "forward_weights_init": 0.0}},
                    {"data": {"dim": 3}, "classes": {"dim": 5, "sparse": True}})
    objective = net.get_objective()
    session.run(tf.compat.v1.global_variables_initializer())
    feed = make_feed(net, {"data": np.ones((1, 2, 3), "float32"), "classes": np.zeros((1, 2), "int32")},
                     {"data": [2], "classes": [2]})
    assert session.run(objective, feed) == pytest.approx(2 * np.log(5.0), rel=1e-5)


@pytest.fixture
def lower_recursion_limit():
    """The recursion limit is 500 during the test (a chain deeper than it builds quicker than one deeper than
    the default 1000); restored after."""
    import sys

    before = sys.getrecursionlimit()
    sys.setrecursionlimit(500)
    yield
    sys.setrecursionlimit(before)


def test_flat_net_construction_builds_a_chain_deeper_than_the_recursion_limit(session, lower_recursion_limit):
    import sys

    depth = sys.getrecursionlimit() + 200
    net_dict = {"layer0": {"class": "linear", "n_out": 3, "activation": "tanh", "from": "data"}}
    for i in range(1, depth):
        net_dict[f"layer{i}"] = {"class": "copy", "from": f"layer{i - 1}"}
    net_dict["output"] = {"class": "softmax", "loss": "ce", "from": [f"layer{depth - 1}"], "target": "classes"}
    net = build_net(net_dict, EXTERN, flat_net_construction=True)
    assert len(net.layers) == depth + 3  # with data:data and data:classes
    assert net.layers[f"layer{depth - 1}"].output.placeholder is net.layers["layer0"].output.placeholder
    forward_and_grad_step(session, net, make_feed(net, {"data": np.ones((1, 2, 9), "float32"),
                                                        "classes": np.zeros((1, 2), "int32")},
                                                  {"data": [2], "classes": [2]}))


@pytest.mark.parametrize("loss_scale", [1.0, 2.0])
def test_total_loss_scale_one_adds_no_product(session, loss_scale):
    # as the reference's graph: a loss_scale of 1 multiplies nothing in; another scale is one product
    net = build_net({"output": {"class": "softmax", "n_out": 3, "from": "data", "loss": "ce", "target": "classes",
                                "loss_scale": loss_scale}},
                    {"data": {"dim": 2}, "classes": {"dim": 3, "sparse": True}})
    loss = net.get_total_loss()
    assert (loss.op.type == "Mul") == (loss_scale != 1.0)
    session.run(tf.compat.v1.global_variables_initializer())
    x = np.random.RandomState(1).normal(size=(2, 4, 2)).astype("float32")
    feed = make_feed(net, {"data": x, "classes": np.array([[0, 1, 2, 0], [1, 1, 0, 0]], "int32")},
                     {"data": np.array([4, 2], "int32"), "classes": np.array([4, 2], "int32")})
    value, unscaled = session.run((loss, net.losses_dict["output"].get_loss_value()), feed_dict=feed)
    np.testing.assert_allclose(value, unscaled * loss_scale, rtol=1e-6)

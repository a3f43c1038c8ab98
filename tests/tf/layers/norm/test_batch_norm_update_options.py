"""batch_norm's ``update_sample_only_in_training`` and ``delay_sample_update``: which statistics normalise and
when the moving statistics change, with the train flag as Python bool and as a tensor fed at run time; the
numbers were observed from the reference (two runs in a row on the same batch, rounded to 4 digits)."""

import numpy as np
import pytest
import tensorflow as tf

from tf_net_helpers import build_net, make_feed

X = (np.arange(2 * 4 * 3, dtype="float32").reshape(2, 4, 3) / 10.)
X[1, 3] = 100.  # a padded frame: left out of the batch statistics
LENS = [4, 3]

UNCHANGED = ([0.0, 0.0, 0.0], [1.0, 1.0, 1.0])  # initial moving mean and variance
AFTER_1 = ([0.891, 0.99, 1.089], [0.3664] * 3)  # after one update with the default momentum 0.99
AFTER_2 = ([0.8999, 0.9999, 1.0999], [0.3601] * 3)
MOVING_0 = [0.0, 0.1, 0.1999]  # X[0, 0] / sqrt(1 + 1e-3): normalised with the initial moving statistics
MOVING_1 = [-1.47, -1.4683, -1.4667]  # with the moving statistics after one update
MOVING_2 = [-1.4976, -1.4976, -1.4976]  # after two
BATCH = [-1.4979, -1.4979, -1.4979]  # with the batch statistics

# options -> for evaluation: per run (output X[0, 0], moving statistics after the run)
EVAL = {
    "default": [(MOVING_1, AFTER_1), (MOVING_2, AFTER_2)],
    "update_sample_only_in_training": [(MOVING_0, UNCHANGED), (MOVING_0, UNCHANGED)],
    "delay_sample_update": [(MOVING_0, AFTER_1), (MOVING_1, AFTER_2)],
    "both": [(MOVING_0, UNCHANGED), (MOVING_0, UNCHANGED)],
}
OPTIONS = {
    "default": {},
    "update_sample_only_in_training": {"update_sample_only_in_training": True},
    "delay_sample_update": {"delay_sample_update": True},
    "both": {"update_sample_only_in_training": True, "delay_sample_update": True},
}


def _run_twice(session, net, feed):
    layer = net.layers["output"]
    moving = [layer.params["batch_norm/output_output_output_mean"],
              layer.params["batch_norm/output_output_output_variance"]]
    updates = tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.UPDATE_OPS)
    session.run(tf.compat.v1.global_variables_initializer())
    runs = []
    for _ in range(2):
        out = session.run([layer.output.placeholder, updates], feed)[0]
        mean, var = session.run(moving)
        runs.append((out[0, 0], (mean.ravel(), var.ravel())))
    return runs


def _assert_runs(runs, expected):
    for (out, (mean, var)), (exp_out, (exp_mean, exp_var)) in zip(runs, expected):
        np.testing.assert_allclose(out, exp_out, atol=2e-4)
        np.testing.assert_allclose(mean, exp_mean, atol=2e-4)
        np.testing.assert_allclose(var, exp_var, atol=2e-4)


@pytest.mark.parametrize("options", sorted(OPTIONS))
@pytest.mark.parametrize("flag_kind", ["python", "tensor"])
@pytest.mark.parametrize("training", [False, True])
def test_batch_norm_like_reference(session, options, flag_kind, training):
    """Outside training as in EVAL; in training, every option normalises with the batch statistics and updates
    the moving ones."""
    flag = training if flag_kind == "python" else tf.compat.v1.placeholder_with_default(False, ())
    net = build_net({"output": {"class": "batch_norm", "from": "data", **OPTIONS[options]}}, {"data": {"dim": 3}},
                    train_flag=flag)
    feed = make_feed(net, {"data": X}, {"data": LENS})
    if flag_kind == "tensor":
        feed[flag] = training
    expected = [(BATCH, AFTER_1), (BATCH, AFTER_2)] if training else EVAL[options]
    _assert_runs(_run_twice(session, net, feed), expected)


def test_batch_norm_tensor_flag_switches_per_run(session):
    """One graph, the train flag fed per run: a training run updates, an evaluation run after it does not
    (``update_sample_only_in_training``) and normalises with what the training run left."""
    flag = tf.compat.v1.placeholder_with_default(False, ())
    net = build_net({"output": {"class": "batch_norm", "from": "data", "update_sample_only_in_training": True}},
                    {"data": {"dim": 3}}, train_flag=flag)
    layer = net.layers["output"]
    updates = tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.UPDATE_OPS)
    feed = make_feed(net, {"data": X}, {"data": LENS})
    session.run(tf.compat.v1.global_variables_initializer())
    session.run(updates, {**feed, flag: True})
    out = session.run([layer.output.placeholder, updates], feed)[0]
    mean = session.run(layer.params["batch_norm/output_output_output_mean"]).ravel()
    np.testing.assert_allclose(mean, AFTER_1[0], atol=2e-4)
    np.testing.assert_allclose(out[0, 0], (X[0, 0] - np.array(AFTER_1[0])) / np.sqrt(0.3664 + 1e-3), atol=2e-4)


@pytest.mark.parametrize("masked_time", [False, True])
def test_batch_norm_masked_time_like_reference(session, masked_time):
    """``masked_time=False``: the batch statistics include the padded frames (here the frame of 100s)."""
    net = build_net({"output": {"class": "batch_norm", "from": "data", "masked_time": masked_time}},
                    {"data": {"dim": 3}}, train_flag=True)
    runs = _run_twice(session, net, make_feed(net, {"data": X}, {"data": LENS}))
    if masked_time:
        _assert_runs(runs[:1], [(BATCH, AFTER_1)])
    else:
        np.testing.assert_allclose(runs[0][0], [-0.4054, -0.4054, -0.4054], atol=2e-4)
        np.testing.assert_allclose(runs[0][1][0], [13.1546, 13.2412, 13.3279], atol=2e-4)
        np.testing.assert_allclose(runs[0][1][1], [1063.7316, 1061.5863, 1059.4435], rtol=1e-5)
        all_frames = X.reshape(-1, 3)  # numpy: over all 8 frames, momentum 0.99 from mean 0, variance 1
        np.testing.assert_allclose(runs[0][1][0], 0.99 * all_frames.mean(0), rtol=1e-5)
        np.testing.assert_allclose(runs[0][1][1], 0.99 * all_frames.var(0) + 0.01, rtol=1e-5)


def test_batch_norm_eval_gradient_treats_statistics_as_constants(session):
    """Outside training (default options), the gradient w.r.t. the input is ``w / sqrt(new_var + eps)``: the
    moving statistics updated by the batch are constants for it (observed: the reference's input gradient is
    exactly that; this project's flowed into the batch statistics before)."""
    flag = tf.compat.v1.placeholder_with_default(False, ())
    net = build_net({"output": {"class": "batch_norm", "from": "data"}}, {"data": {"dim": 3}}, train_flag=flag)
    rs = np.random.RandomState(0)
    x, w = rs.randn(2, 4, 3).astype("float32"), rs.randn(2, 4, 3).astype("float32")
    data = net.extern_data.data["data"]
    grad = tf.compat.v1.gradients(tf.reduce_sum(net.layers["output"].output.placeholder * w), data.placeholder)[0]
    session.run(tf.compat.v1.global_variables_initializer())
    got = session.run(grad, make_feed(net, {"data": x}, {"data": [4, 3]}))
    valid = np.concatenate([x[0], x[1, :3]])
    new_var = 0.99 * valid.var(0) + 0.01 * 1.0
    np.testing.assert_allclose(got, w / np.sqrt(new_var + 1e-3), rtol=1e-4)

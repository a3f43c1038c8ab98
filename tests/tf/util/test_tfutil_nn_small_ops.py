"""Gradient scaling, GELU/layer norm/smoothed CE and small tensor helpers of returnn.tf.util.basic, against numpy and
values observed from the reference."""

import math

import numpy as np
import pytest
import tensorflow as tf

from returnn.tf.util import basic as tf_util

tf1 = tf.compat.v1

_X = np.array([[1.0, -2.0, 3.0], [0.5, 0.0, -1.0]], np.float32)


def test_flip_and_scaled_gradient_observed(session):
    x = tf.constant(_X)
    (g,) = tf.gradients(tf.reduce_sum(tf_util.flip_gradient(x, scale=2.0) * x), x)
    # observed from the reference: forward identity; d/dx (flip(x) * x) = x + (-2) x
    assert session.run(tf_util.flip_gradient(x, 2.0)).tolist() == _X.tolist()
    assert session.run(g).tolist() == (-_X).tolist()
    (g,) = tf.gradients(tf.reduce_sum(tf_util.scaled_gradient(x, 3.0, shift=1.0)), x)
    assert session.run(g).tolist() == [[4.0] * 3] * 2
    with pytest.raises(AssertionError, match="clip_max_axis"):
        tf_util.scaled_gradient(x, clip_max_axis=1)


def test_gelu_variants_observed(session):
    x = tf.constant(_X)
    g1, g2, g3 = session.run([tf_util.gelu(x), tf_util.gelu2(x), tf_util.gelu3(x)])
    # observed from the reference (rounded to 5 digits)
    np.testing.assert_allclose(g1, [[0.84119, -0.0454, 2.99636], [0.34571, 0.0, -0.15881]], atol=1e-5)
    np.testing.assert_allclose(g2, [[0.8458, -0.06434, 2.98193], [0.35039, 0.0, -0.1542]], atol=1e-5)
    erf = np.vectorize(math.erf)
    np.testing.assert_allclose(g3, 0.5 * _X * (1 + erf(_X / math.sqrt(2))), rtol=1e-5, atol=1e-6)


def test_layer_norm_against_numpy(session):
    gain, bias = np.array([1.0, 2.0, 0.5], np.float32), np.array([0.0, 1.0, -1.0], np.float32)
    got = session.run(tf_util.layer_norm(tf.constant(_X), gain=gain, bias=bias, axis=1))
    mean, var = _X.mean(1, keepdims=True), _X.var(1, keepdims=True)
    np.testing.assert_allclose(got, (_X - mean) / np.sqrt(var + 1e-6) * gain + bias, rtol=1e-5, atol=1e-5)
    got0 = session.run(tf_util.layer_norm(tf.constant(_X), gain=tf.ones([2]), bias=tf.zeros([2]), axis=0))
    np.testing.assert_allclose(got0, [[0.99999, -1.0, 1.0], [-0.99999, 1.0, -1.0]], atol=1e-5)  # observed


def test_smoothing_cross_entropy_observed(session):
    logits = tf.constant([[1.0, 2.0, 0.5], [0.1, 0.1, 3.0]])
    labels = tf.constant([1, 2])
    # observed from the reference
    np.testing.assert_allclose(session.run(tf_util.smoothing_cross_entropy(logits, labels, label_smoothing=0.1)),
                               [0.19497, 0.0], atol=1e-5)
    np.testing.assert_allclose(session.run(tf_util.smoothing_cross_entropy(
        tf.nn.log_softmax(logits), labels, label_smoothing=0.2, logits_are_normalized=True)), [0.07534, 0.04537],
        atol=1e-5)
    with pytest.raises(AssertionError, match="gaussian"):
        tf_util.smoothing_cross_entropy(logits, labels, 0.1, gaussian=True)


def test_small_ops(session):
    x = tf.reshape(tf.range(12), (2, 3, 2))
    assert session.run(tf_util.batch_gather(x, tf.constant([2, 0]))).tolist() == [[4, 5], [6, 7]]  # observed
    assert session.run(tf_util.batch_gather(x, tf.constant([2, 0]), keepdims=True)).tolist() == [[[4, 5]], [[6, 7]]]
    uniq, lens = session.run(tf_util.batched_uniq(tf.constant([[1, 1, 2, 0], [3, 3, 3, 3]]), tf.constant([3, 4])))
    assert uniq.tolist() == [[1, 2], [3, 0]] and lens.tolist() == [2, 1]  # observed
    assert tf_util.get_range(3) == (0, 1, 2) and tf_util.get_range(1, 4) == (1, 2, 3)
    assert tf_util.optional_add(None, 1, None, 2) == 3 and tf_util.optional_mul(None) is None
    assert tf_util.optional_mul(2, None, 3) == 6
    assert tf_util.opt_logical_and(True, True) is True and tf_util.opt_logical_or() is False
    assert tf_util.opt_logical_and(False, tf.constant(True)) is False
    assert session.run(tf_util.opt_logical_or(False, tf.constant(True))) == True  # noqa: E712
    assert tf_util.make_var_tuple(1) == (1,) and tf_util.make_var_tuple([1, 2]) == (1, 2)
    assert tf_util.prod([2, 3]) == 6 and tf_util.prod([]) == 1
    assert session.run(tf_util.prod([2, tf.constant(3)])) == 6
    assert session.run(tf_util.to_float32(tf.constant(3))) == 3.0
    n = tf1.placeholder(tf.int32, ())
    assert session.run(tf_util.zeros_dyn_shape([2, n]), {n: 3}).shape == (2, 3)
    unknown_rank = tf1.placeholder(tf.float32)
    assert tf_util.get_ndim(x) == 3
    assert session.run(tf_util.get_ndim(unknown_rank), {unknown_rank: np.zeros((1, 2))}) == 2
    assert session.run(tf_util.view_as(tf.constant([1.0]), tf.int32)).tolist() == [1065353216]
    assert session.run(tf_util.reversed(tf.constant([[1, 2, 3]]))).tolist() == [[3, 2, 1]]
    a, b = np.array([-7, 7, -6, 5, -1]), np.array([2, 2, 3, -2, 4])
    assert session.run(tf_util.onnx_compat_floor_div(a, b)).tolist() == (a // b).tolist()
    assert session.run(tf_util.identity_with_ops(tf.constant(2), lambda: [tf.constant(3)])) == 2


def test_device_helpers():
    devs = tf_util.get_tf_list_local_devices()
    assert any(d.device_type == "CPU" for d in devs)
    assert all(d.device_type == "GPU" for d in tf_util.get_available_gpu_devices())
    assert isinstance(tf_util.is_tf_cuda_build(), bool)


def test_gelu_activation_names_observed(session):
    x = tf.constant(-0.7)
    # observed from the reference's get_activation_function
    got = session.run([tf_util.get_activation_function(n)(x) for n in ("gelu", "gelu2", "gelu3")])
    np.testing.assert_allclose(got, [-0.16937457, -0.16310604, -0.16937456], rtol=1e-5)

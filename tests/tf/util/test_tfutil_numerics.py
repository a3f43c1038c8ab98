"""returnn.tf.util.basic (legacy TFUtil) safe_log/safe_exp/dot/compute_sampled_logits against numpy and values
observed from the reference."""

import numpy as np
import tensorflow as tf

from returnn.tf.util import basic as tf_util

tf1 = tf.compat.v1


def test_safe_log_values_and_fake_gradient(session):
    p = tf.constant([0.0, 1e-30, 0.5, 2.0])
    out = tf_util.safe_log(p)
    np.testing.assert_allclose(session.run(out), np.log(np.maximum([0.0, 1e-30, 0.5, 2.0], 1e-20)), rtol=1e-6)
    # observed from the reference: gradient 1/max(x, eps) also below eps
    np.testing.assert_allclose(session.run(tf.gradients(out, p)[0]), [1e20, 1e20, 2.0, 0.5], rtol=1e-6)
    no_fake = tf_util.safe_log(p, use_fake_grad=False)
    np.testing.assert_allclose(session.run(tf.gradients(no_fake, p)[0]), [0.0, 0.0, 2.0, 0.5], rtol=1e-6)


def test_safe_log_exact_for_softmax_exp_sigmoid(session):
    z = np.array([[1.0, 2.0, 300.0]], np.float32)
    log_sm = z - z.max() - np.log(np.sum(np.exp(z - z.max())))
    np.testing.assert_allclose(session.run(tf_util.safe_log(tf.nn.softmax(z))), log_sm, rtol=1e-6)  # -299, -298, 0
    np.testing.assert_allclose(session.run(tf_util.safe_log(tf.identity(tf.nn.softmax(z)))), log_sm, rtol=1e-6)
    v = np.array([-100.0, 0.0, 50.0], np.float32)
    np.testing.assert_array_equal(session.run(tf_util.safe_log(tf.exp(v))), v)
    # observed from the reference: [-100, -0.6931472, -1.9287499e-22]
    np.testing.assert_allclose(session.run(tf_util.safe_log(tf.sigmoid(v))), -np.logaddexp(0.0, -v.astype(np.float64)),
                               rtol=1e-6)


def test_safe_log_exact_through_reshape(session):
    """A softmax computed on [B*T, F] and reshaped to [B, T, F] (as a layer over time computes it): the log is a
    Reshape of a LogSoftmax, exact where the probabilities underflow."""
    z = np.array([[1.0, 2.0, 300.0], [0.0, -400.0, 1.0]], np.float32)
    out = tf_util.safe_log(tf.reshape(tf.nn.softmax(z), [1, 2, 3]))
    assert out.op.type == "Reshape" and out.op.inputs[0].op.type == "LogSoftmax"
    expected = z - z.max(-1, keepdims=True) - np.log(np.exp(z - z.max(-1, keepdims=True)).sum(-1, keepdims=True))
    np.testing.assert_allclose(session.run(out), expected[None], rtol=1e-6)


def test_safe_exp_clipped_with_identity_gradient(session):
    x = tf.constant([-100.0, 0.0, 1.0, 100.0])
    out = tf_util.safe_exp(x)
    lo, hi = np.float32(np.log(1e-20)), np.float32(-np.log(1e-20))
    expected = np.exp(np.clip(np.array([-100.0, 0.0, 1.0, 100.0], np.float32), lo, hi))
    np.testing.assert_allclose(session.run(out), expected, rtol=1e-6)  # observed: 1.0000013e-20 ... 9.999987e19
    np.testing.assert_allclose(session.run(tf.gradients(out, x)[0]), expected, rtol=1e-6)


def test_dot_against_tensordot(session):
    rng = np.random.RandomState(0)
    a = rng.randn(2, 3, 4).astype(np.float32)
    b = rng.randn(4, 5).astype(np.float32)
    np.testing.assert_allclose(session.run(tf_util.dot(a, b)), np.tensordot(a, b, 1), rtol=1e-5)
    np.testing.assert_allclose(session.run(tf_util.dot(a, b.T, transpose_b=True)), np.tensordot(a, b, 1), rtol=1e-5)
    np.testing.assert_allclose(session.run(tf_util.dot(a[0, 0], b)), a[0, 0] @ b, rtol=1e-5)
    np.testing.assert_allclose(session.run(tf_util.dot(b.T, a[0, 0])), b.T @ a[0, 0], rtol=1e-5)
    c = rng.randn(4, 2, 2).astype(np.float32)
    np.testing.assert_allclose(session.run(tf_util.dot(a, c)), np.tensordot(a, c, 1), rtol=1e-5)
    dyn = tf1.placeholder(tf.float32, (None, None, 4))
    out = tf_util.dot(dyn, b)
    assert out.shape.as_list() == [None, None, 5]
    np.testing.assert_allclose(session.run(out, {dyn: a}), np.tensordot(a, b, 1), rtol=1e-5)


def test_compute_sampled_logits_given_samples(session):
    rng = np.random.RandomState(0)
    w = rng.randn(10, 4).astype(np.float32)
    bias = rng.randn(10).astype(np.float32)
    labels = np.array([[1], [3], [7]], np.int64)
    inputs = rng.randn(3, 4).astype(np.float32)
    sampled = np.array([3, 5, 0, 9], np.int64)
    true_count = np.array([[0.5], [0.2], [0.1]], np.float32)
    sampled_count = np.array([0.3, 0.2, 0.4, 0.1], np.float32)
    logits, out_labels = session.run(tf_util.compute_sampled_logits(
        w, bias, labels, inputs, num_sampled=4, num_classes=10,
        sampled_values=(tf.constant(sampled), tf.constant(true_count), tf.constant(sampled_count))))
    true_logits = np.sum(inputs * w[labels[:, 0]], axis=1) + bias[labels[:, 0]] - np.log(true_count[:, 0])
    sampled_logits = inputs @ w[sampled].T + bias[sampled] - np.log(sampled_count)
    np.testing.assert_allclose(logits, np.concatenate([true_logits[:, None], sampled_logits], axis=1), rtol=1e-5)
    np.testing.assert_array_equal(out_labels, np.eye(5)[[0, 0, 0]])
    logits_rm = session.run(tf_util.compute_sampled_logits(
        w, bias, labels, inputs, num_sampled=4, num_classes=10, remove_accidental_hits=True,
        sampled_values=(tf.constant(sampled), tf.constant(true_count), tf.constant(sampled_count)))[0])
    assert logits_rm[1, 1] < -1e30  # label 3 of row 1 is sampled candidate 0 (column 1)
    np.testing.assert_allclose(logits_rm[0], logits[0], rtol=1e-6)

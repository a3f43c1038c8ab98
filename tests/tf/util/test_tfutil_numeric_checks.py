"""NaN checks, simplifications and lin_exp & co of returnn.tf.util.basic."""

import numpy as np
import pytest
import tensorflow as tf

from returnn.tf.util import basic as tf_util
from returnn.tf.util.graph_inspect import backward_walk_ops

tf1 = tf.compat.v1


def test_safe_log_sees_through_identity_and_transpose(session):
    z = np.random.RandomState(0).randn(3, 7, 5).astype(np.float32)
    x = tf.nn.softmax(tf.constant(z))
    y = tf_util.safe_log(tf_util.move_axis(tf_util.identity_with_check_numerics(x), 2, 1))
    assert y.op.type == "Transpose"
    assert {op.type for op in backward_walk_ops(y)} & {"Softmax", "LogSoftmax"} == {"LogSoftmax"}
    ref = np.log(np.exp(z) / np.exp(z).sum(-1, keepdims=True)).transpose(0, 2, 1)
    np.testing.assert_allclose(session.run(y), ref, rtol=1e-5, atol=1e-5)


def test_identity_with_check_numerics(session):
    x = tf1.placeholder(tf.float32, (2,))
    y = tf_util.identity_with_check_numerics(x)
    assert y.op.type == "Identity"
    (grad,) = tf.gradients(y * tf.constant([1.0, np.inf]), x)
    assert session.run(y, {x: [1.0, 2.0]}).tolist() == [1.0, 2.0]
    with pytest.raises(tf.errors.InvalidArgumentError):
        session.run(y, {x: [1.0, np.nan]})
    with pytest.raises(tf.errors.InvalidArgumentError):
        session.run(grad, {x: [1.0, 2.0]})


def test_add_check_numerics_ops(session):
    x = tf1.placeholder(tf.float32, (2,))
    z = tf.constant([1.0, 2.0]) / x
    check = tf_util.add_check_numerics_ops([z])
    assert check.type == "NoOp"
    session.run(check, {x: [1.0, 2.0]})
    with pytest.raises(tf.errors.InvalidArgumentError):
        session.run(check, {x: [0.0, 1.0]})


def test_check_base_op_type_and_replace(session):
    z = tf.constant([1.0, 2.0])
    y = tf_util.check_base_op_type_and_replace(tf.nn.softmax(z), "Softmax", "LogSoftmax")
    np.testing.assert_allclose(session.run(y), session.run(tf.math.log(tf.nn.softmax(z))), rtol=1e-6)
    y = tf_util.check_base_op_type_and_replace(tf.sigmoid(z), "Sigmoid", "LogSigmoid")
    np.testing.assert_allclose(session.run(y), np.log(1 / (1 + np.exp(-np.array([1.0, 2.0])))), rtol=1e-6)
    assert tf_util.check_base_op_type_and_replace(z, "Softmax", "LogSoftmax") is None
    with pytest.raises(ValueError, match="new_op_type"):
        tf_util.check_base_op_type_and_replace(z, "Const", "NoSuchOp")


def test_simplify_add_sub_neg(session):
    x = tf1.placeholder(tf.int32, (3,), name="x")
    assert tf_util.simplify_sub(x + 3, tf.constant(3)) is x
    assert tf_util.simplify_sub(x, 0) is x
    assert tf_util.simplify_add(x + 3, -3) is x
    assert tf_util.simplify_neg(-x) is x
    feed = {x: [1, 2, 3]}
    assert session.run(tf_util.simplify_sub(x + 2, 3), feed).tolist() == [0, 1, 2]
    assert session.run(tf_util.simplify_sub(x, -3), feed).tolist() == [4, 5, 6]
    assert session.run(tf_util.simplify_add(tf.constant(3), 4)) == 7


def test_lin_exp_and_normed_observed(session):
    # observed from the reference
    np.testing.assert_allclose(session.run(tf_util.lin_exp(tf.constant([0.0, 1.0, -1.0]))),
                               [1.0, 2.0, 0.3678794503211975], rtol=1e-6)
    np.testing.assert_allclose(session.run(tf_util.lin_exp_normed(tf.constant([[0.0, 1.0, -1.0]]))),
                               [[0.2969227433204651, 0.5938454866409302, 0.10923177748918533]], rtol=1e-6)
    x = tf1.placeholder(tf.float32, (None,))
    y = tf_util.lin_exp_normed(x)
    score = tf_util.safe_log(y[..., -1])
    (grad,) = tf.gradients(score, x)
    for value in [(1e30, -1e30), (-1e30, -1e30), (1e30, 1e30)]:
        y_v, g_v = session.run([y, grad], {x: value})
        assert np.isfinite(y_v).all() and np.isfinite(g_v).all() and (g_v != 0).any()


def test_wrap_distribution_non_zero_observed(session):
    x = tf.constant([0.0, 2.0, -2.0, 1.0, 0.1, -0.1])
    # observed from the reference
    np.testing.assert_allclose(session.run(tf_util.wrap_distribution_non_zero(x, zero_limit=0.5, limit=2.0)),
                               [0.5, 2.0, -2.0, 1.25, 0.575, -0.575], rtol=1e-6)


def test_nan_to_num_and_l1_normalized(session):
    x = tf.constant([np.nan, np.inf, -np.inf, 2.0])
    assert session.run(tf_util.nan_to_num(x, nan_num=-1, inf_num=5)).tolist() == [-1, 5, -5, 2]
    y = np.array([[1.0, -3.0], [0.0, 0.0]], np.float32)
    np.testing.assert_allclose(session.run(tf_util.l1_normalized(y)), [[0.25, -0.75], [0.0, 0.0]])

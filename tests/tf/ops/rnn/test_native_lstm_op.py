"""The ``LstmGenericBase`` op (``returnn.tf.native_op.make_lstm_op``) and its gradient op
``GradOfLstmGenericBase``: op types as the reference's native op, outputs against a numpy LSTM, gradients against
TensorFlow's automatic gradient of the same LSTM written with plain ops, and finiteness on saturated gates."""

import numpy as np
import tensorflow as tf
from tensorflow.python.framework import ops

from returnn.tf.native_op import make_lstm_op

tf.compat.v1.disable_eager_execution()

T, B, N = 5, 3, 4


def _sigmoid(x):
    return 1. / (1. + np.exp(-x))


def _np_lstm(z, v_h, c0, index):
    y = np.zeros((T, B, N))
    h_out = np.zeros((T, B, 4 * N))
    c, y_prev = c0.copy(), np.zeros((B, N))
    for t in range(T):
        zt = z[t] + y_prev @ v_h
        u, i, f, o = np.tanh(zt[:, :N]), _sigmoid(zt[:, N:2 * N]), _sigmoid(zt[:, 2 * N:3 * N]), _sigmoid(zt[:, 3 * N:])
        new_c = f * c + i * u
        real = index[t][:, None] > 0
        c = np.where(real, new_c, c)
        yt = o * np.tanh(new_c)
        y[t] = np.where(real, yt, 0.)
        y_prev = np.where(real, yt, y_prev)
        h_out[t] = np.where(real, np.concatenate([new_c, i, f, o], -1), np.concatenate([c, 0 * i, 0 * f, 0 * o], -1))
    return y, h_out, c


def _tf_lstm(z, v_h, c0, index):
    """the same LSTM with plain (unrolled) TF ops, for the automatic gradient"""
    c, y_prev, ys = c0, tf.zeros_like(c0), []
    for t in range(T):
        zt = z[t] + tf.matmul(y_prev, v_h)
        u, i, f, o = tf.tanh(zt[:, :N]), *[tf.sigmoid(zt[:, k * N:(k + 1) * N]) for k in (1, 2, 3)]
        new_c = f * c + i * u
        real = index[t][:, None] > 0
        c = tf.where(real, new_c, c)
        yt = o * tf.tanh(new_c)
        ys.append(tf.where(real, yt, tf.zeros_like(yt)))
        y_prev = tf.where(real, yt, y_prev)
    return tf.stack(ys), c


def _inputs(seed=1):
    rng = np.random.RandomState(seed)
    z = rng.normal(size=(T, B, 4 * N)).astype("float32")
    v_h = rng.normal(size=(N, 4 * N)).astype("float32") * 0.5
    c0 = rng.normal(size=(B, N)).astype("float32")
    index = np.array([[1, 1, 1], [1, 1, 1], [1, 1, 0], [1, 0, 0], [1, 0, 0]], "float32")
    return z, v_h, c0, index


def test_op_types_and_forward(session):
    z, v_h, c0, index = _inputs()
    y, h, d = make_lstm_op(compiler_opts={"verbose": True})(z, v_h, c0, index)
    assert y.op.type == "LstmGenericBase"
    assert y.shape.as_list() == [T, B, N] and h.shape.as_list() == [T, B, 4 * N] and d.shape.as_list() == [B, N]
    y_v, h_v, d_v = session.run([y, h, d])
    y_ref, h_ref, d_ref = _np_lstm(z.astype("float64"), v_h, c0, index)
    np.testing.assert_allclose(y_v, y_ref, atol=1e-5)
    np.testing.assert_allclose(h_v, h_ref, atol=1e-5)
    np.testing.assert_allclose(d_v, d_ref, atol=1e-5)


def test_gradient_matches_plain_ops(session):
    z, v_h, c0, index = _inputs(2)
    z_t, v_t, c_t = tf.constant(z), tf.constant(v_h), tf.constant(c0)
    rng = np.random.RandomState(3)
    w_y = tf.constant(rng.normal(size=(T, B, N)).astype("float32"))
    w_d = tf.constant(rng.normal(size=(B, N)).astype("float32"))
    y, _, d = make_lstm_op()(z_t, v_t, c_t, index)
    y_ref, d_ref = _tf_lstm(z_t, v_t, c_t, tf.constant(index))
    grads = tf.gradients(tf.reduce_sum(y * w_y) + tf.reduce_sum(d * w_d), [z_t, v_t, c_t])
    grads_ref = tf.gradients(tf.reduce_sum(y_ref * w_y) + tf.reduce_sum(d_ref * w_d), [z_t, v_t, c_t])
    assert any(op.type == "GradOfLstmGenericBase" for op in session.graph.get_operations())
    for got, expected in zip(session.run(grads), session.run(grads_ref)):
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)


def test_grad_op_reachable_and_finite_on_saturated_gates(session):
    z, v_h, c0, index = _inputs(4)
    y, _, _ = make_lstm_op()(z * 30., v_h * 30., c0, index)  # saturated gates: inputs gate ~ 0 in places
    grad_op = ops.get_gradient_function(y.op).grad_op
    y_v, h_v = session.run([y, y.op.outputs[1]])
    outs = grad_op(v_h * 30., c0, index, y_v, h_v, np.ones_like(y_v), np.zeros_like(c0))
    assert len(outs) == 4 and outs[0].op.type == "GradOfLstmGenericBase"
    for value in session.run(list(outs)):
        assert np.all(np.isfinite(value))

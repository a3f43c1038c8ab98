"""LSTM over a whole padded batch as a ``tf.while_loop`` with a hand-written backward loop.

Design (the fast path on CPU, no custom C++):

* The input projection ``x @ W + b`` of all frames is done *outside* the loop, as one large matmul
  (by the caller, see :func:`returnn.tf.ops.rnn.lstm.lstm`).
* Per time step only the recurrent matmul ``h @ W_re`` and the gate nonlinearities run.
* The backward pass is a second loop (registered with ``tf.custom_gradient``) that carries only the
  recurrent part (``dh @ W_re^T``); every per-frame factor that does not depend on the recurrence
  (the gate derivatives) is computed vectorized over all frames before the loop, and the weight gradient
  ``dW_re = h_prev^T @ dgates`` is one large matmul after it.

Gate layout of the 4*n columns: (cell input, input gate, forget gate, output gate), each n wide, as the
reference's ``NativeLstm2`` (verified against it numerically, see tests/tf/ops/rnn/test_lstm.py):

    j = tanh(z[:, 0:n]); i = sigmoid(z[:, n:2n]); f = sigmoid(z[:, 2n:3n]); o = sigmoid(z[:, 3n:4n])
    c_t = f * c_{t-1} + i * j;  h_t = o * tanh(c_t)

There is no masking inside the loop: callers run every sequence from frame 0 (reversing by length for
direction -1) and take the final state at ``seq_len - 1``, so padded frames never influence real ones.
"""

from __future__ import annotations

from typing import Tuple

import tensorflow as tf


def lstm_loop(xw: tf.Tensor, w_re: tf.Tensor, c0: tf.Tensor, h0: tf.Tensor) -> Tuple[tf.Tensor, tf.Tensor]:
    """
    :param xw: float32 [T, B, 4*n], the projected input ``x @ W + b`` of every frame (time-major)
    :param w_re: float32 [n, 4*n] recurrent weights
    :param c0: float32 [B, n] initial cell state
    :param h0: float32 [B, n] initial output
    :return: (h [T, B, n], c [T, B, n]) of every frame, padded frames included (not masked)
    """
    return _lstm_loop(xw, w_re, c0, h0)


def _split_gates(z: tf.Tensor, n: tf.Tensor):
    j, ifo = tf.split(z, [n, 3 * n], axis=-1)
    return tf.tanh(j), tf.sigmoid(ifo)


@tf.custom_gradient
def _lstm_loop(xw, w_re, c0, h0):
    n = tf.shape(w_re)[0]
    num_frames = tf.shape(xw)[0]
    xw_ta = tf.TensorArray(xw.dtype, size=num_frames, element_shape=xw.shape[1:]).unstack(xw)
    j_ta = tf.TensorArray(xw.dtype, size=num_frames, element_shape=c0.shape)
    ifo_ta = tf.TensorArray(xw.dtype, size=num_frames)
    c_ta = tf.TensorArray(xw.dtype, size=num_frames, element_shape=c0.shape)
    h_ta = tf.TensorArray(xw.dtype, size=num_frames, element_shape=h0.shape)

    def body(t, c, h, j_ta_, ifo_ta_, c_ta_, h_ta_):
        z = xw_ta.read(t) + tf.matmul(h, w_re)
        j, ifo = _split_gates(z, n)
        i, f, o = tf.split(ifo, 3, axis=-1)
        c = f * c + i * j
        h = o * tf.tanh(c)
        return t + 1, c, h, j_ta_.write(t, j), ifo_ta_.write(t, ifo), c_ta_.write(t, c), h_ta_.write(t, h)

    _, _, _, j_ta, ifo_ta, c_ta, h_ta = tf.while_loop(
        lambda t, *_: t < num_frames, body, (tf.constant(0), c0, h0, j_ta, ifo_ta, c_ta, h_ta),
        parallel_iterations=1)
    c_all, h_all = c_ta.stack(), h_ta.stack()
    j_all, ifo_all = j_ta.stack(), ifo_ta.stack()

    def grad(dh_all, dc_all):
        if dh_all is None:
            dh_all = tf.zeros_like(h_all)
        if dc_all is None:
            dc_all = tf.zeros_like(c_all)
        j = j_all
        i, f, o = tf.split(ifo_all, 3, axis=-1)  # each [T, B, n]
        c_prev = tf.concat([c0[None], c_all], axis=0)[:num_frames]
        h_prev = tf.concat([h0[None], h_all], axis=0)[:num_frames]
        tc = tf.tanh(c_all)
        # Vectorized over all frames: factors of dz given (dc, dc, dc, dh), and dc from dh.
        dz_factor = tf.concat([i * (1. - j * j), j * i * (1. - i), c_prev * f * (1. - f), tc * o * (1. - o)], -1)
        dc_from_dh = o * (1. - tc * tc)
        dc_out = dc_all + dh_all * dc_from_dh  # the parts of dc not coming through the recurrence
        rec = tf.stack([dc_from_dh, f], axis=1)  # [T, 2, B, n], one read per step
        dz_factor_ta = tf.TensorArray(xw.dtype, size=num_frames, element_shape=xw.shape[1:]).unstack(dz_factor)
        dc_out_ta = tf.TensorArray(xw.dtype, size=num_frames, element_shape=c0.shape).unstack(dc_out)
        dh_out_ta = tf.TensorArray(xw.dtype, size=num_frames, element_shape=h0.shape).unstack(dh_all)
        rec_ta = tf.TensorArray(xw.dtype, size=num_frames).unstack(rec)
        dz_ta = tf.TensorArray(xw.dtype, size=num_frames, element_shape=xw.shape[1:])
        w_re_t = tf.transpose(w_re)  # [4n, n], once, not per step

        def back_body(t, dc_rec, dh_rec, dz_ta_):
            dc_from_dh_t, f_t = tf.unstack(rec_ta.read(t))
            dh = dh_out_ta.read(t) + dh_rec
            dc = dc_out_ta.read(t) + dc_rec + dh_rec * dc_from_dh_t
            dz = tf.concat([dc, dc, dc, dh], axis=-1) * dz_factor_ta.read(t)
            return t - 1, dc * f_t, tf.matmul(dz, w_re_t), dz_ta_.write(t, dz)

        _, dc0, dh0, dz_ta = tf.while_loop(
            lambda t, *_: t >= 0, back_body,
            (num_frames - 1, tf.zeros_like(c0), tf.zeros_like(h0), dz_ta), parallel_iterations=1)
        dz = dz_ta.stack()  # [T, B, 4n]
        four_n = tf.shape(dz)[-1]
        dw_re = tf.matmul(tf.reshape(h_prev, [-1, n]), tf.reshape(dz, [-1, four_n]), transpose_a=True)
        return dz, dw_re, dc0, dh0

    return (h_all, c_all), grad

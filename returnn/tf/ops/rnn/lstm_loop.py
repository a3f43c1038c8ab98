"""LSTM over a whole padded batch as a ``tf.while_loop`` with a hand-written backward loop.

Design (the fast path on CPU, no custom C++):

* The input projection ``x @ W + b`` of all frames is done *outside* the loop, as one large matmul
  (by the caller, see :func:`returnn.tf.ops.rnn.lstm.lstm`).
* Per time step only the recurrent matmul ``h @ W_re`` and the gate nonlinearities run.
* The backward pass is a second loop (registered with ``tf.custom_gradient``) that carries only the
  recurrent part (``dh @ W_re^T``); every per-frame factor that does not depend on the recurrence
  (the gate derivatives) is computed vectorized over all frames before the loop, and the weight gradient
  ``dW_re = h_prev^T @ dgates`` is one large matmul after it (over the real frames only in batches with much
  padding, see ``frames`` in :func:`lstm_loop`).

Gate layout of the 4*n columns: (cell input, input gate, forget gate, output gate), each n wide, as the
reference's ``NativeLstm2`` (verified against it numerically, see tests/tf/ops/rnn/test_lstm.py):

    j = tanh(z[:, 0:n]); i = sigmoid(z[:, n:2n]); f = sigmoid(z[:, 2n:3n]); o = sigmoid(z[:, 3n:4n])
    c_t = f * c_{t-1} + i * j;  h_t = o * tanh(c_t)

There is no masking inside the loop. With ``reverse=False`` every sequence runs from frame 0 and the
caller takes the final state at ``seq_len - 1``, so padded frames (which come after the real ones) never
influence real ones. With ``reverse=True`` the loop runs from frame T-1 down to 0, so the padded frames come
*first*; the caller makes them inert by zeroing their projected input (with a zero initial state, ``z = 0``
gives ``j = 0`` and so ``c = 0``, ``h = 0`` exactly), which replaces reversing every sequence by its length.

The per-frame inputs are read by indexing the full tensors inside the loop (``xw[t]``: a slice of contiguous
memory); unstacking them into TensorArrays first cost a copy of each (measured: 4% of a ``blstm-train`` step).
"""

from __future__ import annotations

from typing import Optional, Tuple

import tensorflow as tf

from returnn.tf.ops.rnn.real_frames import RealFrames
from returnn.tf.ops.mixed_precision import cast_matmul


def lstm_loop(xw: tf.Tensor, w_re: tf.Tensor, c0: tf.Tensor, h0: tf.Tensor, *,
              reverse: bool = False, frames: Optional[RealFrames] = None,
              compute_dtype: tf.DType = tf.float32) -> Tuple[tf.Tensor, tf.Tensor]:
    """
    :param xw: float32 [T, B, 4*n], the projected input ``x @ W + b`` of every frame (time-major)
    :param w_re: float32 [n, 4*n] recurrent weights
    :param c0: float32 [B, n] initial cell state
    :param h0: float32 [B, n] initial output
    :param reverse: False: frames 0, 1, ..., T-1; True: frames T-1, ..., 0 (the state of frame t then comes
        from frame t+1)
    :param frames: if given, the gradient ``dW_re`` is computed from these real frames only when
        ``frames.pack``. Only valid when padded frames contribute nothing to it, i.e. when they get no gradient
        and come after the real frames, or when their previous output ``h`` is 0 (see
        :func:`returnn.tf.ops.rnn.lstm.lstm`).
    :param compute_dtype: the dtype of the recurrent matmuls (forward ``h @ W_re``, backward ``dz @ W_re^T`` and
        ``dW_re``; ``tf_amp``, :mod:`returnn.tf.util.amp`); states, gates and gradients stay float32
    :return: (h [T, B, n], c [T, B, n]) of every frame in the original frame order, padded frames included
        (not masked)
    """
    if frames is None:
        rows, pack = tf.zeros([0, 1], tf.int64), tf.constant(False)
    else:
        rows, pack = frames.rows, frames.pack
    key = (reverse, tf.as_dtype(compute_dtype))
    if key not in _LSTM_LOOPS:
        _LSTM_LOOPS[key] = _make_lstm_loop(*key)
    return _LSTM_LOOPS[key](xw, w_re, c0, h0, rows, pack)


def _dim(x: tf.Tensor, axis: int):
    """:return: the size of ``axis``, a Python int where static (fewer graph ops), else a scalar tensor"""
    size = x.shape[axis]
    return int(size) if size is not None else tf.shape(x)[axis]


def _split_gates(z: tf.Tensor, n):
    j, ifo = tf.split(z, [n, 3 * n], axis=-1)
    return tf.tanh(j), tf.sigmoid(ifo)


def _previous_frames(all_frames: tf.Tensor, initial: tf.Tensor, reverse: bool) -> tf.Tensor:
    """:return: [T, B, n], the state each frame starts from (``initial`` for the first frame processed)"""
    if reverse:
        return tf.concat([all_frames, initial[None]], axis=0)[1:]
    return tf.concat([initial[None], all_frames], axis=0)[:-1]


def _make_lstm_loop(reverse: bool, compute_dtype: tf.DType = tf.float32):
    """:return: the forward loop with its hand-written gradient, for one processing order (and matmul dtype)"""
    step = -1 if reverse else 1

    def mm(a, b, **kwargs):
        return cast_matmul(a, b, compute_dtype, **kwargs)

    @tf.custom_gradient
    def lstm_loop_fn(xw, w_re, c0, h0, rows, pack):
        n = _dim(w_re, 0)
        num_frames = tf.shape(xw)[0]
        first, last = (num_frames - 1, 0) if reverse else (0, num_frames - 1)
        j_ta = tf.TensorArray(xw.dtype, size=num_frames, element_shape=c0.shape)
        ifo_ta = tf.TensorArray(xw.dtype, size=num_frames)
        c_ta = tf.TensorArray(xw.dtype, size=num_frames, element_shape=c0.shape)
        h_ta = tf.TensorArray(xw.dtype, size=num_frames, element_shape=h0.shape)
        w_re_c = w_re if compute_dtype == tf.float32 else tf.cast(w_re, compute_dtype)  # once, not per step

        def body(t, c, h, j_ta_, ifo_ta_, c_ta_, h_ta_):
            z = xw[t] + mm(h, w_re_c)
            j, ifo = _split_gates(z, n)
            i, f, o = tf.split(ifo, 3, axis=-1)
            c = f * c + i * j
            h = o * tf.tanh(c)
            return t + step, c, h, j_ta_.write(t, j), ifo_ta_.write(t, ifo), c_ta_.write(t, c), h_ta_.write(t, h)

        _, _, _, j_ta, ifo_ta, c_ta, h_ta = tf.while_loop(
            lambda t, *_: t >= 0 if reverse else t < num_frames, body,
            (first, c0, h0, j_ta, ifo_ta, c_ta, h_ta), parallel_iterations=1)
        c_all, h_all = c_ta.stack(), h_ta.stack()
        j_all, ifo_all = j_ta.stack(), ifo_ta.stack()

        def grad(dh_all, dc_all):
            if dh_all is None:
                dh_all = tf.zeros_like(h_all)
            if dc_all is None:
                dc_all = tf.zeros_like(c_all)
            j = j_all
            i, f, o = tf.split(ifo_all, 3, axis=-1)  # each [T, B, n]
            c_prev = _previous_frames(c_all, c0, reverse)
            h_prev = _previous_frames(h_all, h0, reverse)
            tc = tf.tanh(c_all)
            # Vectorized over all frames: factors of dz given (dc, dc, dc, dh), and dc from dh.
            one = tf.constant(1., xw.dtype)
            dz_factor = tf.concat(
                [i * (one - j * j), j * i * (one - i), c_prev * f * (one - f), tc * o * (one - o)], axis=-1)
            dc_from_dh = o * (one - tc * tc)
            dc_out = dc_all + dh_all * dc_from_dh  # the parts of dc not coming through the recurrence
            rec = tf.stack([dc_from_dh, f], axis=1)  # [T, 2, B, n], one read per step
            dz_ta = tf.TensorArray(xw.dtype, size=num_frames, element_shape=xw.shape[1:])
            w_re_t = tf.transpose(w_re_c)  # [4n, n], once, not per step

            def back_body(t, dc_rec, dh_rec, dz_ta_):
                dc_from_dh_t, f_t = tf.unstack(rec[t])
                dh = dh_all[t] + dh_rec
                dc = dc_out[t] + dc_rec + dh_rec * dc_from_dh_t
                dz = tf.concat([dc, dc, dc, dh], axis=-1) * dz_factor[t]
                return t - step, dc * f_t, mm(dz, w_re_t), dz_ta_.write(t, dz)

            _, dc0, dh0, dz_ta = tf.while_loop(
                lambda t, *_: t < num_frames if reverse else t >= 0, back_body,
                (last, tf.zeros_like(c0), tf.zeros_like(h0), dz_ta), parallel_iterations=1)
            dz = dz_ta.stack()  # [T, B, 4n]
            h_prev_rows = tf.reshape(h_prev, [-1, n])
            dz_rows = tf.reshape(dz, [-1, 4 * n])
            dw_re = tf.cond(
                pack, lambda: mm(tf.gather_nd(h_prev_rows, rows), tf.gather_nd(dz_rows, rows), transpose_a=True),
                lambda: mm(h_prev_rows, dz_rows, transpose_a=True))
            return dz, dw_re, dc0, dh0, None, None

        return (h_all, c_all), grad

    return lstm_loop_fn


_LSTM_LOOPS = {(False, tf.float32): _make_lstm_loop(False), (True, tf.float32): _make_lstm_loop(True)}

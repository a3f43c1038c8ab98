"""Generic one-state recurrence over a padded, time-major batch (for GRU and the simple RNN).

The input projection of all frames is computed by the caller as one large matmul; the loop body only does
the recurrent part. The backward loop recomputes each step and differentiates it locally.
Direction and masking work as in :func:`returnn.tf.ops.rnn.lstm.lstm`: direction -1 reverses every
sequence within its own length, padded output frames are exactly zero, and the final state is the one
after the last real frame.
"""

from __future__ import annotations

from typing import Callable, Sequence, Tuple

import tensorflow as tf

from returnn.tf.ops.rnn.masking import last_frame, reverse_by_length, zero_padded_frames


def run_recurrence(xp: tf.Tensor, seq_len: tf.Tensor, step: Callable[..., tf.Tensor], initial_h: tf.Tensor,
                   weights: Sequence[tf.Tensor] = (), *, direction: int = 1) -> Tuple[tf.Tensor, tf.Tensor]:
    """
    :param xp: float [T, B, k], per-frame input projections (time-major)
    :param seq_len: int32 [B]
    :param step: ``(xp_t [B, k], h_prev [B, n], *weights) -> h_t [B, n]``; must use the weights only through
        its arguments (they get gradients)
    :param initial_h: float [B, n]
    :param weights: recurrent weights passed to ``step``
    :param direction: 1 or -1
    :return: (y [T, B, n] zero in padded frames, h_last [B, n])
    """
    if direction not in (1, -1):
        raise ValueError(f"run_recurrence: direction must be 1 or -1, got {direction!r}")
    if direction == -1:
        xp = reverse_by_length(xp, seq_len)
    h_all = _recurrence(step, xp, initial_h, *weights)
    h_last = last_frame(h_all, seq_len, initial_h)
    y = zero_padded_frames(h_all, seq_len)
    if direction == -1:
        y = reverse_by_length(y, seq_len)
    return y, h_last


def _recurrence(step, xp, h0, *weights):
    """Forward loop storing only ``h``; the backward loop recomputes each step and differentiates it locally
    (``tf.gradients`` inside the loop body), accumulating the weight gradients. Not relying on TensorFlow's
    automatic while-loop gradient keeps the forward graph unchanged when gradients are added later."""

    @tf.custom_gradient
    def fn(xp_, h0_, *weights_):
        num_frames = tf.shape(xp_)[0]
        # read again by the backward loop (v1 TensorArrays clear each element after its first read by default)
        xp_ta = tf.TensorArray(xp_.dtype, size=num_frames, element_shape=xp_.shape[1:],
                               clear_after_read=False).unstack(xp_)
        out_ta = tf.TensorArray(xp_.dtype, size=num_frames, element_shape=h0_.shape)

        def body(t, h, out_ta_):
            h = step(xp_ta.read(t), h, *weights_)
            return t + 1, h, out_ta_.write(t, h)

        _, _, out_ta = tf.while_loop(lambda t, *_: t < num_frames, body, (tf.constant(0), h0_, out_ta))
        h_all = out_ta.stack()

        def grad(dh_all):
            h_prev_all = tf.concat([h0_[None], h_all], axis=0)[:num_frames]
            h_prev_ta = tf.TensorArray(xp_.dtype, size=num_frames, element_shape=h0_.shape).unstack(h_prev_all)
            dh_ta = tf.TensorArray(xp_.dtype, size=num_frames, element_shape=h0_.shape).unstack(dh_all)
            dxp_ta = tf.TensorArray(xp_.dtype, size=num_frames, element_shape=xp_.shape[1:])

            def back_body(t, dh_rec, dxp_ta_, ws, dws):
                xp_t, h_prev = xp_ta.read(t), h_prev_ta.read(t)
                h = step(xp_t, h_prev, *ws)
                grads = tf.gradients(h, [xp_t, h_prev, *ws], grad_ys=dh_ta.read(t) + dh_rec)
                grads = [tf.zeros_like(v) if g is None else g
                         for g, v in zip(grads, [xp_t, h_prev, *ws])]
                new_dws = tuple(a + g for a, g in zip(dws, grads[2:]))
                return t - 1, grads[1], dxp_ta_.write(t, grads[0]), ws, new_dws

            _, dh0, dxp_ta, _, dws = tf.while_loop(
                lambda t, *_: t >= 0, back_body,
                (num_frames - 1, tf.zeros_like(h0_), dxp_ta, tuple(weights_), tuple(tf.zeros_like(w) for w in weights_)))
            return (dxp_ta.stack(), dh0, *dws)

        return h_all, grad

    return fn(xp, h0, *weights)


def project_input(x: tf.Tensor, w: tf.Tensor, b: tf.Tensor = None) -> tf.Tensor:
    """
    :param x: [T, B, n_in]
    :param w: [n_in, k]
    :param b: [k] or None
    :return: [T, B, k] = x @ w + b, as one matmul over all frames
    """
    shape = tf.shape(x)
    y = tf.matmul(tf.reshape(x, [-1, shape[-1]]), w)
    if b is not None:
        y = y + b
    return tf.reshape(y, tf.stack([shape[0], shape[1], tf.shape(w)[-1]]))


def gru(x: tf.Tensor, seq_len: tf.Tensor, gates_kernel: tf.Tensor, gates_bias: tf.Tensor, cand_kernel: tf.Tensor,
        cand_bias: tf.Tensor, *, initial_h: tf.Tensor, direction: int = 1) -> Tuple[tf.Tensor, tf.Tensor]:
    """GRU as TensorFlow's ``GRUCell`` (the reference's ``gru`` unit)::

        r, u = split(sigmoid([x, h] @ gates_kernel + gates_bias));  c = tanh([x, r*h] @ cand_kernel + cand_bias)
        h_new = u * h + (1 - u) * c

    :param x: float32 [T, B, n_in] time-major
    :param seq_len: int32 [B]
    :param gates_kernel: [n_in + n, 2n] (rows: input, then recurrent; columns: reset r, update u)
    :param gates_bias: [2n]
    :param cand_kernel: [n_in + n, n]
    :param cand_bias: [n]
    :param initial_h: [B, n]
    :return: (y [T, B, n], h_last [B, n])
    """
    n_in = tf.shape(x)[-1]
    n = tf.shape(cand_bias)[0]
    xp = tf.concat([project_input(x, gates_kernel[:n_in], gates_bias),
                    project_input(x, cand_kernel[:n_in], cand_bias)], axis=-1)

    def step(xp_t, h, gates_re, cand_re):
        xg, xc = tf.split(xp_t, [2 * n, n], axis=-1)
        r, u = tf.split(tf.sigmoid(xg + tf.matmul(h, gates_re)), 2, axis=-1)
        c = tf.tanh(xc + tf.matmul(r * h, cand_re))
        return u * h + (1. - u) * c

    return run_recurrence(xp, seq_len, step, initial_h, [gates_kernel[n_in:], cand_kernel[n_in:]],
                          direction=direction)


def basic_rnn(x: tf.Tensor, seq_len: tf.Tensor, kernel: tf.Tensor, bias: tf.Tensor, *, initial_h: tf.Tensor,
              direction: int = 1, activation: Callable[[tf.Tensor], tf.Tensor] = tf.tanh
              ) -> Tuple[tf.Tensor, tf.Tensor]:
    """Simple RNN as TensorFlow's ``BasicRNNCell``: ``h_new = activation([x, h] @ kernel + bias)``.

    :param x: float32 [T, B, n_in] time-major
    :param kernel: [n_in + n, n] (rows: input, then recurrent)
    :param bias: [n]
    :param initial_h: [B, n]
    :return: (y [T, B, n], h_last [B, n])
    """
    n_in = tf.shape(x)[-1]
    xp = project_input(x, kernel[:n_in], bias)
    return run_recurrence(xp, seq_len, lambda xp_t, h, w_re: activation(xp_t + tf.matmul(h, w_re)), initial_h,
                          [kernel[n_in:]], direction=direction)

"""LSTM over a whole padded batch with TensorFlow's fused ``BlockLSTM`` kernel (C++, CPU and GPU).

``BlockLSTM`` runs all time steps in one op and has a registered gradient (``BlockLSTMGrad``). Per step
it multiplies ``[x_t, h_{t-1}]`` with the stacked weights, so the input projection is *not* batched over
frames; on CPU this is usually slower than :mod:`returnn.tf.ops.rnn.lstm_loop` for large inputs, and is
kept as the kernel of the ``lstmblockfused`` unit and as a fallback.

``BlockLSTM`` orders the gates (input gate, cell input, forget gate, output gate); our parameters use the
reference's NativeLstm2 order (cell input, input gate, forget gate, output gate), so the first two column
blocks are swapped on the fly (a cheap copy of the weights per run).
"""

from __future__ import annotations

from typing import Tuple

import tensorflow as tf


def swap_first_two_gates(w: tf.Tensor) -> tf.Tensor:
    """
    :param w: [..., 4*n] in the order (a, b, c, d) along the last axis
    :return: [..., 4*n] in the order (b, a, c, d); its own inverse
    """
    a, b_, rest = _split_blocks(w)
    return tf.concat([b_, a, rest], axis=-1)


def _split_blocks(w):
    n = tf.shape(w)[-1] // 4
    return tf.split(w, [n, n, 2 * n], axis=-1)


def lstm_block(x: tf.Tensor, w: tf.Tensor, w_re: tf.Tensor, b: tf.Tensor, c0: tf.Tensor, h0: tf.Tensor,
               max_len: tf.Tensor = None) -> Tuple[tf.Tensor, tf.Tensor]:
    """
    :param x: float32 [T, B, n_in], time-major input (not projected)
    :param w: float32 [n_in, 4*n], input weights, NativeLstm2 gate order
    :param w_re: float32 [n, 4*n], recurrent weights, same order
    :param b: float32 [4*n] bias, same order
    :param c0: float32 [B, n] initial cell state
    :param h0: float32 [B, n] initial output
    :param max_len: int scalar, frames ``t >= max_len`` are not computed (output zero); default T
    :return: (h [T, B, n], c [T, B, n]) of every frame (not masked by the individual lengths)
    """
    if max_len is None:
        max_len = tf.shape(x)[0]
    n = tf.shape(w_re)[0]
    w_all = swap_first_two_gates(tf.concat([w, w_re], axis=0))
    zeros_n = tf.zeros([n], dtype=x.dtype)
    _, cs, _, _, _, _, h = tf.raw_ops.BlockLSTM(
        seq_len_max=tf.cast(max_len, tf.int64), x=x, cs_prev=c0, h_prev=h0, w=w_all,
        wci=zeros_n, wcf=zeros_n, wco=zeros_n, b=swap_first_two_gates(b),
        forget_bias=0.0, cell_clip=-1.0, use_peephole=False)
    return h, cs

"""The input projection ``x @ W + b`` of a recurrent layer, computed on the real frames only where that pays.

The ``loop`` LSTM (:mod:`returnn.tf.ops.rnn.lstm`) projects the input of all frames with one large matmul before
its time loop. With its two gradient matmuls (``dx``, ``dW``) that is about half of a layer's training time on
CPU. In batches with much padding (:attr:`RealFrames.pack <returnn.tf.ops.rnn.real_frames.RealFrames>`) and
inputs with at least :data:`PACK_MIN_INPUT_DIM` features, the real frames are gathered into an [N, n_in] matrix
(N real frames), projected and scattered back, and the gradient does the same. The choice is made per batch,
at run time (``tf.cond`` in the forward pass and in the hand-written gradient, so the branch not taken costs
nothing; a ``tf.cond`` around autodiff'ed branches cost 4-6% without padding: zeros and sums for the branch
not taken).

Measured with ``benchmarks/lstm/bench_lstm.py --impls loop --threads 1`` (n_in 512, n 256, B 40, T 50, forward
+ gradient): 66% real frames (``--min-len 15``) 78-86 ms -> 62-68 ms; 100% real frames (``--min-len 50``,
projection of all frames either way) unchanged; n_in 9: no difference, hence the minimum input size.
"""

from __future__ import annotations

import tensorflow as tf

from returnn.tf.ops.rnn.real_frames import RealFrames
from returnn.tf.ops.mixed_precision import cast_matmul

PACK_MIN_INPUT_DIM = 64


def input_projection(x: tf.Tensor, w: tf.Tensor, b: tf.Tensor, frames: RealFrames, *,
                     zero_padded: bool = False, compute_dtype: tf.DType = tf.float32) -> tf.Tensor:
    """
    :param x: float32 [T, B, n_in], time-major; T and B dynamic
    :param w: float32 [n_in, m] weights
    :param b: float32 [m] bias
    :param frames: the real frames of ``x`` (from its sequence lengths)
    :param zero_padded: whether padded frames must be exactly 0 in the result (else they may hold
        ``x @ W + b`` or 0)
    :param compute_dtype: the dtype of the matmuls (forward and gradient; ``tf_amp``, :mod:`returnn.tf.util.amp`);
        inputs, bias addition and result stay float32
    :return: float32 [T, B, m], ``x @ W + b`` at the real frames
    """
    shape = tf.shape(x)
    n_in, m = x.shape[-1], w.shape[-1]
    x_rows = tf.reshape(x, [-1, n_in if n_in is not None else shape[-1]])
    out_shape = tf.stack([shape[0], shape[1], m if m is not None else tf.shape(w)[-1]])
    if n_in is None or n_in < PACK_MIN_INPUT_DIM:
        xw = tf.reshape(tf.nn.bias_add(cast_matmul(x_rows, w, compute_dtype), b), out_shape)
        return tf.where(frames.mask[:, :, None], xw, tf.zeros_like(xw)) if zero_padded else xw
    xw = _projection(zero_padded, compute_dtype)(x_rows, w, b, frames.flat_mask, frames.rows, frames.pack)
    return tf.reshape(xw, out_shape)


def _bias_grad(dxw: tf.Tensor) -> tf.Tensor:
    """:return: [m], the sum over the rows of ``dxw`` [N, m] (``BiasAddGrad``: 3x faster than ``reduce_sum`` here)"""
    return tf.raw_ops.BiasAddGrad(out_backprop=dxw)


def _make_projection(zero_padded: bool, compute_dtype: tf.DType = tf.float32):
    """:return: f(x_rows [T*B, n_in], w, b, flat_mask bool [T*B], rows int64 [N, 1], pack bool scalar) -> [T*B, m],
    with its gradient (``pack``: project the ``rows`` only)"""

    def mm(a, b_, **kwargs):
        return cast_matmul(a, b_, compute_dtype, **kwargs)

    @tf.custom_gradient
    def projection(x_rows, w, b, flat_mask, rows, pack):
        x_rows_shape = tf.shape(x_rows, out_type=tf.int64)
        out_shape = tf.stack([x_rows_shape[0], tf.shape(w, out_type=tf.int64)[-1]])

        def real_rows():
            return tf.scatter_nd(rows, tf.nn.bias_add(mm(tf.gather_nd(x_rows, rows), w), b), out_shape)

        def all_rows():
            xw = tf.nn.bias_add(mm(x_rows, w), b)
            return tf.where(flat_mask[:, None], xw, tf.zeros_like(xw)) if zero_padded else xw

        xw = tf.cond(pack, real_rows, all_rows)

        def grad(dxw):
            def real_rows_grad():
                dxw_real = tf.gather_nd(dxw, rows)
                dx = tf.scatter_nd(rows, mm(dxw_real, w, transpose_b=True), x_rows_shape)
                dw = mm(tf.gather_nd(x_rows, rows), dxw_real, transpose_a=True)
                return dx, dw, _bias_grad(dxw_real)

            def all_rows_grad():
                dxw_ = tf.where(flat_mask[:, None], dxw, tf.zeros_like(dxw)) if zero_padded else dxw
                return mm(dxw_, w, transpose_b=True), mm(x_rows, dxw_, transpose_a=True), \
                    _bias_grad(dxw_)

            dx, dw, db = tf.cond(pack, real_rows_grad, all_rows_grad)
            return dx, dw, db, None, None, None

        return xw, grad

    return projection


_PROJECTION = {(False, tf.float32): _make_projection(zero_padded=False),
               (True, tf.float32): _make_projection(zero_padded=True)}


def _projection(zero_padded: bool, compute_dtype: tf.DType):
    """:return: the projection function of :func:`_make_projection` (made once per argument pair)"""
    key = (zero_padded, tf.as_dtype(compute_dtype))
    if key not in _PROJECTION:
        _PROJECTION[key] = _make_projection(*key)
    return _PROJECTION[key]

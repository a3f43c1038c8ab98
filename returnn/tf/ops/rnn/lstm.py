"""One-direction LSTM over a padded, time-major batch, with sequence-length masking.

:func:`lstm` is what the ``rec`` layer calls for the LSTM units. Parameters use the layout of the
reference's ``NativeLstm2`` unit: ``W`` [n_in, 4*n], ``W_re`` [n, 4*n], ``b`` [4*n] with gate blocks
(cell input, input gate, forget gate, output gate); no forget-gate bias is added, no cell clipping, no
peepholes.

Implementations (``impl``), all with the same parameters and results:

* ``"loop"``: :func:`returnn.tf.ops.rnn.lstm_loop.lstm_loop` -- one big input-projection matmul (real frames
  only in batches with much padding, :mod:`returnn.tf.ops.rnn.input_projection`),
  only ``h @ W_re`` per step, hand-written backward loop. Fastest on CPU for n > 64.
* ``"block"``: TensorFlow's fused ``BlockLSTM`` op (:mod:`returnn.tf.ops.rnn.lstm_block`). Fastest on CPU
  for small layers (n <= 64), where the per-step overhead of the while loop dominates.
* ``"auto"``: :func:`select_lstm_impl` (``"block"`` when TensorFlow sees a GPU or n <= 64, else ``"loop"``).
"""

from __future__ import annotations

from typing import Optional, Tuple

import numpy as np
import tensorflow as tf

from returnn.tf.ops.rnn.input_projection import input_projection
from returnn.tf.ops.rnn.lstm_block import lstm_block
from returnn.tf.ops.rnn.lstm_loop import lstm_loop
from returnn.tf.ops.rnn.masking import last_frames, reverse_by_length, zero_padded_frames
from returnn.tf.ops.rnn.real_frames import RealFrames

LSTM_IMPLS = ("loop", "block")

# Largest number of cells for which "auto" picks "block" on CPU. Measured with benchmarks/lstm/bench_lstm.py
# (2 cores, forward + gradient, T=50 B=40, n_in = n): block/loop time 0.48 at n=32, 0.78 at n=64, 1.74 at
# n=128, 1.84 at n=256; 0.34 for the 12AX demo's shapes (T=200, B=10, n_in=9, n=10).
BLOCK_MAX_CELLS_CPU = 64


def select_lstm_impl(impl: str = "auto", num_cells: Optional[int] = None) -> str:
    """
    :param impl: ``"auto"`` or one of :data:`LSTM_IMPLS`
    :param num_cells: n, the LSTM's number of cells, if statically known
    :return: the concrete implementation: for ``"auto"``, ``"block"`` if TensorFlow lists a GPU (BlockLSTM has a
        fused GPU kernel) or ``num_cells <= BLOCK_MAX_CELLS_CPU`` (fewer, fused ops per step win for small
        layers), else ``"loop"`` (one large input-projection matmul wins for larger ones; see benchmarks/lstm)
    """
    if impl != "auto":
        return impl
    if tf.config.list_physical_devices("GPU"):
        return "block"
    if num_cells is not None and num_cells <= BLOCK_MAX_CELLS_CPU:
        return "block"
    return "loop"


def lstm(x: tf.Tensor, seq_len: tf.Tensor, w: tf.Tensor, w_re: tf.Tensor, b: tf.Tensor, *,
         direction: int = 1, initial_c: Optional[tf.Tensor] = None, initial_h: Optional[tf.Tensor] = None,
         impl: str = "auto", compute_dtype: tf.DType = tf.float32) -> Tuple[tf.Tensor, Tuple[tf.Tensor, tf.Tensor]]:
    """
    :param x: float32 [T, B, n_in], time-major input; T and B dynamic
    :param seq_len: int32 [B], number of real frames per sequence (<= T)
    :param w: float32 [n_in, 4*n] input weights (gate blocks: cell input, input, forget, output)
    :param w_re: float32 [n, 4*n] recurrent weights
    :param b: float32 [4*n] bias
    :param direction: 1 (t = 0 .. len-1) or -1 (each sequence reversed within its own length, i.e. from
        frame len-1 down to 0; the output is put back in the original order)
    :param initial_c: float32 [B, n] initial cell state, default zeros
    :param initial_h: float32 [B, n] initial output, default zeros
    :param impl: ``"auto"`` (default) or one of :data:`LSTM_IMPLS`
    :param compute_dtype: the dtype of the gate matmuls (``tf_amp``, :mod:`returnn.tf.util.amp`): ``"loop"`` runs
        its input projection and recurrent matmuls in it; ``"block"`` runs in float16 for float16 and stays float32
        for bfloat16 (``BlockLSTM`` has no bfloat16 kernel). Everything else, and the result, is float32
    :return: (y, (c_last, h_last)): y float32 [T, B, n], exactly 0 at padded frames; c_last, h_last
        float32 [B, n], the state after the last real frame in the direction of processing (the
        initial state for sequences of length 0)
    """
    if direction not in (1, -1):
        raise ValueError(f"lstm: direction must be 1 or -1, got {direction!r}")
    impl = select_lstm_impl(impl, num_cells=w_re.shape[0] if w_re.shape.rank == 2 else None)
    if impl not in LSTM_IMPLS:
        raise ValueError(f"lstm: impl must be one of {LSTM_IMPLS}, got {impl!r}")
    zero_state = _is_zero(initial_c) and _is_zero(initial_h)
    if initial_c is None or initial_h is None:
        zeros = tf.zeros(tf.stack([tf.shape(x)[1], tf.shape(w_re)[0]]), dtype=x.dtype)
        initial_c = zeros if initial_c is None else initial_c
        initial_h = zeros if initial_h is None else initial_h
    if impl == "loop" and direction == -1 and zero_state:
        return _lstm_loop_backward_in_time(x, seq_len, w, w_re, b, initial_c, initial_h, compute_dtype)
    if direction == -1:
        x = reverse_by_length(x, seq_len)
    if impl == "loop":
        # Padded frames come after the real ones and get no gradient (y is masked below): ``frames`` is valid.
        frames = RealFrames(seq_len, tf.shape(x)[0])
        h_all, c_all = lstm_loop(input_projection(x, w, b, frames, compute_dtype=compute_dtype), w_re, initial_c,
                                 initial_h, frames=frames, compute_dtype=compute_dtype)
        y = zero_padded_frames(h_all, seq_len, mask=frames.mask)
    else:
        h_all, c_all = _block_in(compute_dtype, x, w, w_re, b, initial_c, initial_h, max_len=tf.reduce_max(seq_len))
        y = zero_padded_frames(h_all, seq_len)
    c_last, h_last = last_frames([c_all, h_all], seq_len, [initial_c, initial_h])
    if direction == -1:
        y = reverse_by_length(y, seq_len)
    return y, (c_last, h_last)


def _block_in(compute_dtype: tf.DType, x, w, w_re, b, c0, h0, max_len):
    """:func:`lstm_block` in float16 for ``compute_dtype`` float16 (results float32), else in float32"""
    if compute_dtype != tf.float16:
        return lstm_block(x, w, w_re, b, c0, h0, max_len=max_len)
    h_all, c_all = lstm_block(*[tf.cast(t, tf.float16) for t in (x, w, w_re, b, c0, h0)], max_len=max_len)
    return tf.cast(h_all, tf.float32), tf.cast(c_all, tf.float32)


def _lstm_loop_backward_in_time(x, seq_len, w, w_re, b, initial_c, initial_h, compute_dtype=tf.float32):
    """
    Direction -1 with a zero initial state, without reversing each sequence by its length: the loop runs
    from frame T-1 down to 0 over the padded batch, and the projected input of padded frames is set to 0,
    which keeps the state exactly at zero (``z = 0`` gives cell input ``tanh(0) = 0``, so ``c = 0`` and
    ``h = 0``) until each sequence's last real frame. The same results as reversing by length (tests),
    and no ``ReverseSequence`` of the input, the output and their gradients (measured: 13% of a direction -1
    layer's training step on CPU).
    """
    frames = RealFrames(seq_len, tf.shape(x)[0])
    xw = input_projection(x, w, b, frames, zero_padded=True, compute_dtype=compute_dtype)
    # Padded frames start from h = 0, so they add nothing to dW_re: ``frames`` is valid.
    h_all, c_all = lstm_loop(xw, w_re, initial_c, initial_h, reverse=True, frames=frames, compute_dtype=compute_dtype)
    # Frame 0 is the last one processed; the state stayed zero (the initial state) for sequences of length 0.
    # h is exactly zero at padded frames already.
    return h_all, (c_all[0], h_all[0])


def _is_zero(state: Optional[tf.Tensor]) -> bool:
    """:return: whether ``state`` is None or statically known to be all zeros (``tf.zeros``/``tf.fill`` with
    a constant 0, e.g. the ``rec`` layer's default initial state, or ``tf.zeros_like``)"""
    if state is None:
        return True
    op = state.op
    if op.type == "ZerosLike":
        return True
    if op.type == "Fill":
        op = op.inputs[1].op
    # The constant's attribute, not tf.get_static_value, which would make the tensor unfeedable.
    return op.type == "Const" and not np.any(tf.make_ndarray(op.get_attr("value")))

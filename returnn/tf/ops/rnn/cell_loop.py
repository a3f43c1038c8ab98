"""A recurrence defined by one step function with several state tensors, over a padded, time-major batch.

Used by the cells that are not plain LSTMs (``zoneoutlstm``, ``layernormvariantslstm``): their step may draw
random numbers in training (zoneout masks, recurrent dropout), so the loop uses TensorFlow's own while-loop
gradient (which keeps the forward values, masks included), not a recomputing backward loop.

Forward over time (a backward unit reverses its input within each sequence's length before projecting it, as the
reference, and the output after: see ``StepCellUnit``); padded output frames are exactly zero, and the final
states are those after the last real frame (a padded frame leaves the state unchanged).
"""

from __future__ import annotations

from typing import Callable, Sequence, Tuple

import tensorflow as tf

from returnn.tf.ops.rnn.masking import zero_padded_frames

StepFn = Callable[[tf.Tensor, Tuple[tf.Tensor, ...]], Tuple[tf.Tensor, Tuple[tf.Tensor, ...]]]


def run_cell_loop(xp: tf.Tensor, seq_len: tf.Tensor, step: StepFn,
                  initial_states: Sequence[tf.Tensor]) -> Tuple[tf.Tensor, Tuple[tf.Tensor, ...]]:
    """
    :param xp: float [T, B, k], per-frame inputs (usually the input projections of all frames, computed by the
        caller with one matmul)
    :param seq_len: int32 [B]
    :param step: ``(xp_t [B, k], states) -> (y_t [B, n], new_states)``, states a tuple of [B, ...] tensors
    :param initial_states: the states before the first frame
    :return: (y [T, B, n] zero in padded frames, final states)
    """
    num_frames = tf.shape(xp)[0]
    xp_ta = tf.TensorArray(xp.dtype, size=num_frames, element_shape=xp.shape[1:]).unstack(xp)
    initial_states = tuple(initial_states)
    y_ta = tf.TensorArray(xp.dtype, size=num_frames)

    def body(t, states, y_ta_):
        y_t, new_states = step(xp_ta.read(t), states)
        real = tf.less(t, seq_len)[:, None]
        new_states = tuple(tf.where(real, new, old) for new, old in zip(new_states, states))
        for new, old in zip(new_states, states):
            new.set_shape(old.shape)
        return t + 1, new_states, y_ta_.write(t, y_t)

    _, final_states, y_ta = tf.while_loop(lambda t, *_: t < num_frames, body,
                                          (tf.constant(0), initial_states, y_ta))
    y = zero_padded_frames(y_ta.stack(), seq_len)
    return y, tuple(final_states)

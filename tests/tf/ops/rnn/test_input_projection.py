"""Tests of returnn.tf.ops.rnn.input_projection: x @ W + b on all or only the real frames, and its gradient."""

import numpy as np
import pytest
import tensorflow as tf

from returnn.tf.ops.rnn.input_projection import PACK_MIN_INPUT_DIM, input_projection
from returnn.tf.ops.rnn.real_frames import PACK_MAX_REAL_FRACTION, RealFrames

tf.compat.v1.disable_eager_execution()


def _case(lens, n_in=PACK_MIN_INPUT_DIM, num_frames=5, m=6, seed=1):
    rng = np.random.RandomState(seed)
    x = rng.normal(size=(num_frames, len(lens), n_in))
    for b_, length in enumerate(lens):
        x[length:, b_] = 1e3  # padding garbage
    return x, rng.normal(size=(n_in, m)), rng.normal(size=(m,)), rng.normal(size=(num_frames, len(lens), m))


def _run(x, w, b, lens, out_weights, zero_padded):
    with tf.Graph().as_default():
        x_t, w_t, b_t = tf.constant(x), tf.constant(w), tf.constant(b)
        frames = RealFrames(tf.constant(lens, tf.int32), tf.shape(x_t)[0])
        xw = input_projection(x_t, w_t, b_t, frames, zero_padded=zero_padded)
        grads = tf.gradients(tf.reduce_sum(xw * out_weights), [x_t, w_t, b_t])
        with tf.compat.v1.Session() as session:
            return session.run([xw] + grads)


@pytest.mark.parametrize("zero_padded", [False, True])
@pytest.mark.parametrize("lens", [[5, 1, 0], [5, 5, 4], [5, 5, 5]])
def test_input_projection_matches_numpy(lens, zero_padded):
    """[5, 1, 0]: 40% real frames (projected on the real frames only), [5, 5, 4] and [5, 5, 5]: 93% and 100%
    (all frames); the results at real frames and the gradients are those of the plain x @ W + b."""
    x, w, b, out_weights = _case(lens)
    xw, dx, dw, db = _run(x, w, b, lens, out_weights, zero_padded)
    real = np.arange(x.shape[0])[:, None] < np.array(lens)[None, :]  # [T, B]
    np.testing.assert_allclose(xw[real], (x @ w + b)[real], rtol=1e-10)
    if zero_padded or sum(lens) < PACK_MAX_REAL_FRACTION * real.size:
        assert np.all(xw[~real] == 0.0)
    # Gradients: padded frames get none where they are zero in the output, else that of x @ W + b.
    g = out_weights * (real[:, :, None] if zero_padded or sum(lens) < PACK_MAX_REAL_FRACTION * real.size else 1.0)
    np.testing.assert_allclose(dx, g @ w.T, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(dw, np.einsum("tbi,tbm->im", x, g), rtol=1e-10)
    np.testing.assert_allclose(db, g.sum(axis=(0, 1)), rtol=1e-10)


def test_input_projection_small_input_is_not_packed():
    """Below PACK_MIN_INPUT_DIM features the projection runs on all frames (padded ones hold x @ W + b)."""
    lens = [5, 1, 0]
    x, w, b, out_weights = _case(lens, n_in=PACK_MIN_INPUT_DIM - 1)
    xw = _run(x, w, b, lens, out_weights, zero_padded=False)[0]
    np.testing.assert_allclose(xw, x @ w + b, rtol=1e-10)

"""chunk / unchunk (returnn.tf.ops.native.chunking) against numpy loops."""

import numpy as np
import tensorflow as tf

from returnn.tf.ops.native.chunking import chunk, unchunk


def _np_chunk(x, index, size, step):
    num_frames, batch, dim = x.shape
    n = max(num_frames - size + step - 1, 0) // step + 1
    out = np.zeros((size, batch * n, dim), x.dtype)
    oindex = np.zeros((size, batch * n), "float32")
    for b in range(batch):
        for c in range(n):
            for k in range(size):
                t = c * step + k
                if t < num_frames:
                    out[k, b * n + c] = x[t, b] * (index[t, b] > 0)  # the reference zeroes padded frames
                    oindex[k, b * n + c] = index[t, b]
    return out, oindex


def test_chunk_and_unchunk(session):
    rnd = np.random.RandomState(0)
    x = rnd.normal(size=(7, 2, 3)).astype("float32")
    index = np.ones((7, 2), "float32")
    index[-2:, 1] = 0
    for size, step in [(3, 2), (4, 4), (10, 3)]:
        out, oindex = session.run(chunk(x, index, size, step))
        e_out, e_oindex = _np_chunk(x, index, size, step)
        np.testing.assert_allclose(out, e_out)
        np.testing.assert_allclose(oindex, e_oindex)
        back, bindex, factors = session.run(unchunk(out, oindex, size, step, 7, 2))
        np.testing.assert_allclose(bindex, index)
        np.testing.assert_allclose(back * index[:, :, None], x * index[:, :, None], rtol=1e-6)
        counts = np.zeros((7, 2))
        for k in range(size):
            for c in range(e_out.shape[1] // 2):
                if c * step + k < 7:
                    counts[c * step + k] += 1
        np.testing.assert_allclose(factors, 1.0 / counts, rtol=1e-6)  # also at padded frames (the reference)


def test_chunk_reference_values(session):
    """The reference's chunk of this input (observed): a frame with index 0 is 0 in the output."""
    x = np.arange(14, dtype="float32").reshape((7, 2, 1))
    index = np.ones((7, 2), "float32")
    index[-1, 1] = 0
    out, oindex = session.run(chunk(x, index, 3, 2))
    np.testing.assert_array_equal(out[:, :, 0], [[0, 4, 8, 1, 5, 9], [2, 6, 10, 3, 7, 11], [4, 8, 12, 5, 9, 0]])
    np.testing.assert_array_equal(oindex, [[1] * 6, [1] * 6, [1] * 5 + [0]])


def test_chunk_gradient_sums_the_chunks(session):
    x = tf.constant(np.zeros((5, 1, 1), "float32"))
    out, _ = chunk(x, tf.ones((5, 1)), 3, 1)  # frames covered 1, 2, 3, 3, 3 times (chunks 0..2)
    (dx,) = tf.gradients(out, x, grad_ys=tf.ones_like(out))
    np.testing.assert_allclose(session.run(dx)[:, 0, 0], [1, 2, 3, 2, 1])

"""The NativeLstm2 / LstmLowMem ops and the native LSTM cells (returnn.tf.ops.native): against a numpy LSTM loop,
and against values observed from the reference's compiled NativeLstm2 op."""

import numpy as np
import pytest
import tensorflow as tf

from returnn.tf.ops.native.cells import NativeLstm2, NativeLstmCell, NativeLstmLowMemCell
from returnn.tf.ops.native.lstm2 import gradient_op, lstm_last_output, lstm_low_mem, native_lstm2

MASK = np.array([[1, 1, 1, 0], [1, 1, 0, 0]], "float32").T  # [T=4, B=2]


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _np_lstm(pre, y0, c0, mask, start, step, low_mem=False):
    """pre(t, y_prev) -> z; returns Y, C, d with the ops' conventions (unvisited frames 0)."""
    num_frames, n = mask.shape[0], c0.shape[1]
    y_all, c_all = np.zeros((num_frames,) + c0.shape, c0.dtype), np.zeros((num_frames,) + c0.shape, c0.dtype)
    first = start if step > 0 else num_frames - 1 - start
    y, c = y0.copy(), c0.copy()
    for t in range(first, num_frames if step > 0 else (start - 1 if low_mem else -1), step):
        z = pre(t, y)
        c_new = _sigmoid(z[:, 2 * n:3 * n]) * c + _sigmoid(z[:, n:2 * n]) * np.tanh(z[:, :n])
        y_new = _sigmoid(z[:, 3 * n:]) * np.tanh(c_new)
        m = mask[t][:, None] > 0
        c, y = np.where(m, c_new, c), np.where(m, y_new, 0.0 if low_mem else y)
        y_all[t], c_all[t] = np.where(m, y_new, 0.0), c
    return y_all, c_all, c


def _inputs(rnd, n_in=8, n=2):
    x = rnd.normal(size=(4, 2, n_in)).astype("float32")
    return x, rnd.normal(size=(2, n)).astype("float32"), rnd.normal(size=(2, n)).astype("float32")


@pytest.mark.parametrize("start, step", [(0, 1), (1, -1), (0, 2), (0, -2)])
def test_native_lstm2_against_numpy(session, start, step):
    rnd = np.random.RandomState(3)
    x, y0, c0 = _inputs(rnd)
    w = rnd.normal(size=(2, 8)).astype("float32")
    y, c, h, d = session.run(native_lstm2(x, w, y0, c0, MASK, start, step))
    ey, ec, ed = _np_lstm(lambda t, yp: x[t] + yp @ w, y0, c0, MASK, start, step)
    np.testing.assert_allclose(y, ey, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(c, ec, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(d, ed, rtol=1e-5, atol=1e-6)
    assert h.shape == (4, 2, 8)


def test_native_lstm2_reference_values(session):
    """The reference's compiled op on these inputs (observed): d and H of the first frame."""
    rnd = np.random.RandomState(1)
    x = rnd.normal(size=(4, 2, 8)).astype("float32")
    w = rnd.normal(size=(2, 8)).astype("float32")
    y0 = rnd.normal(size=(2, 2)).astype("float32")
    c0 = rnd.normal(size=(2, 2)).astype("float32")
    y, _, h, d = session.run(native_lstm2(x, w, y0, c0, MASK, 0, 1))
    np.testing.assert_allclose(d, [[-0.157577, -0.871006], [0.375845, -0.050736]], atol=2e-6)
    np.testing.assert_allclose(h[0, 0], [0.902141, -0.647425, 0.300876, 0.26798, 0.608489, 0.103653, 0.882848,
                                         0.309592], atol=2e-6)
    np.testing.assert_allclose(y[2], [[-0.126683, -0.427096], [0.0, 0.0]], atol=2e-6)
    last = session.run(lstm_last_output(y, y0, MASK, 1, -1))
    assert last.shape == (2, 2)
    np.testing.assert_allclose(session.run(lstm_last_output(y, y0, MASK, 0, 1)), [y[2, 0], y[1, 1]])


def test_native_lstm2_gradient_is_numeric(session):
    """TF's gradient of the op against central differences of the numpy loop (float64)."""
    rnd = np.random.RandomState(4)
    x, y0, c0 = [v.astype("float64") for v in _inputs(rnd)]
    w = rnd.normal(size=(2, 8))
    mask = MASK.astype("float64")
    args = [tf.constant(v) for v in (x, w, y0, c0)]
    y, _, _, d = native_lstm2(*args, tf.constant(mask), 0, -1)
    grads = session.run(tf.gradients(tf.reduce_sum(y ** 2) + tf.reduce_sum(d), args))

    def loss(x_, w_, y0_, c0_):
        ey, _, ed = _np_lstm(lambda t, yp: x_[t] + yp @ w_, y0_, c0_, mask, 0, -1)
        return (ey.astype("float64") ** 2).sum() + ed.sum()

    values = [x, w, y0, c0]
    for k in range(4):
        idx = tuple(rnd.randint(0, dim) for dim in values[k].shape)
        plus = [v.copy() for v in values]
        minus = [v.copy() for v in values]
        plus[k][idx] += 1e-6
        minus[k][idx] -= 1e-6
        num = (loss(*plus) - loss(*minus)) / 2e-6
        np.testing.assert_allclose(grads[k][idx], num, rtol=1e-4, atol=1e-6)


def test_lstm_low_mem_forward_and_grad_op(session):
    rnd = np.random.RandomState(5)
    x, y0, c0 = _inputs(rnd, n_in=3)
    w = rnd.normal(size=(5, 8)).astype("float32")
    b = rnd.normal(size=(8,)).astype("float32")
    y, c, d = session.run(lstm_low_mem(x, w, b, y0, c0, MASK, 0, 1))
    ey, ec, ed = _np_lstm(lambda t, yp: np.concatenate([x[t], yp], -1) @ w + b, y0, c0, MASK, 0, 1)
    np.testing.assert_allclose(y, ey, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(d, ed, rtol=1e-5, atol=1e-6)
    y_back, _, d_back = session.run(lstm_low_mem(x, w, b, y0, c0, MASK, 1, -1))
    ey, _, ed = _np_lstm(lambda t, yp: np.concatenate([x[t], yp], -1) @ w + b, y0, c0, MASK, 1, -1, low_mem=True)
    np.testing.assert_allclose(y_back, ey, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(d_back, ed, rtol=1e-5, atol=1e-6)
    assert (y_back[0] == 0).all()  # backwards from frame 2 down to frame 1 only (the reference, observed)
    grad = gradient_op(lstm_low_mem, 8, (0, 1, 2, 3, 4), (0, 2))
    dy = np.ones_like(y)
    dd = np.zeros_like(d)
    dx, dw, db, dy0, dc0 = session.run(grad(x, w, b, y0, c0, MASK, 0, 1, y, c, dy, dd))
    assert dx.shape == x.shape and dw.shape == w.shape and db.shape == b.shape and dy0.shape == dc0.shape == (2, 2)
    assert (dx[3] == 0).all() and (dx[2, 1] == 0).all()  # padded frames get no gradient


def test_cells_variables_and_shapes(session):
    inputs = tf.zeros([3, 2, 8])
    index = tf.ones([3, 2])
    with tf.compat.v1.variable_scope("a"):
        y1, state = NativeLstm2(n_hidden=2)(inputs, index)
    with tf.compat.v1.variable_scope("b"):
        y2, d2 = NativeLstmCell(n_hidden=2)(inputs, index)
    with tf.compat.v1.variable_scope("c"):
        y3, d3 = NativeLstmLowMemCell(n_hidden=2, n_input_dim=5)(tf.zeros([3, 2, 5]), index)
    names = sorted((v.name, tuple(v.shape)) for v in tf.compat.v1.global_variables())
    assert names == [("a/W_re:0", (2, 8)), ("b/W_re:0", (2, 8)), ("c/W:0", (7, 8)), ("c/b:0", (8,))]
    session.run(tf.compat.v1.global_variables_initializer())
    v1, v2, v3, c, h = session.run([y1, y2, y3, state.c, state.h])
    assert v1.shape == v2.shape == v3.shape == (3, 2, 2)
    np.testing.assert_allclose(v1, 0.0)  # zero input, zero state: all gates 0.5, cell input 0
    np.testing.assert_allclose(h, v1[-1])


def test_cell_zero_length(session):
    with tf.compat.v1.variable_scope("z"):
        y, _ = NativeLstm2(n_hidden=3)(tf.zeros([0, 1, 12]), tf.ones([0, 1]))
    session.run(tf.compat.v1.global_variables_initializer())
    assert session.run(y).shape == (0, 1, 3)

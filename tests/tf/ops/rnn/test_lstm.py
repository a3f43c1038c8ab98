"""Tests of returnn.tf.ops.rnn.lstm: numerics against the reference and numpy, masking, gradients."""

import numpy as np
import pytest
import tensorflow as tf

from rnn_numpy_ref import native_lstm_step, run_per_seq
from returnn.tf.ops.rnn.lstm import lstm

tf.compat.v1.disable_eager_execution()

IMPLS = ["loop", "block"]

# Output of the reference RETURNN (rec layer, unit "nativelstm2", n_out 4, on 3-dim input), observed by
# running it with the parameters and input of _reference_fixture(); batch-major [B=2, T=5, 4], lens [5, 3].
REF_Y = {
    1: [[[0.1275728, -0.0583688, -0.0778581, 0.0597860], [0.2087306, -0.0859868, -0.0563305, 0.1481650],
         [0.2389865, 0.0577824, 0.0914325, 0.2136020], [0.1174177, 0.1474523, 0.1967137, 0.2900940],
         [0.1810238, 0.1733594, 0.1238185, 0.2659225]],
        [[0.1978524, -0.0877198, -0.1350224, 0.0439798], [0.2958094, -0.0590148, -0.1008161, 0.0706339],
         [0.2699272, -0.0701343, -0.1000294, 0.0401968], [0.] * 4, [0.] * 4]],
    -1: [[[0.2002252, -0.0344653, -0.1024172, 0.1186414], [0.1881315, 0.0861100, -0.0142551, 0.2038203],
          [0.1165880, 0.1851545, 0.1132120, 0.2425186], [0.0454733, 0.1791887, 0.1829714, 0.2617384],
          [0.0929010, 0.1100089, 0.0919515, 0.1683548]],
         [[0.3005967, -0.1283582, -0.1533967, 0.0902957], [0.2687600, -0.0230007, -0.0934665, 0.0590555],
          [0.1418389, -0.0184069, -0.0985958, -0.0008296], [0.] * 4, [0.] * 4]],
}


def _reference_fixture():
    rng = np.random.RandomState(42)
    w = rng.uniform(-0.5, 0.5, (3, 16)).astype("float32")
    w_re = rng.uniform(-0.5, 0.5, (4, 16)).astype("float32")
    b = rng.uniform(-0.5, 0.5, (16,)).astype("float32")
    x = rng.uniform(-1, 1, (2, 5, 3)).astype("float32")
    return x, np.array([5, 3], "int32"), w, w_re, b


def _run_lstm(x_bm, lens, w, w_re, b, *, direction, impl, initial=None, dtype=tf.float32):
    """:return: y [B,T,n] batch-major, c_last, h_last"""
    with tf.Graph().as_default():
        x = tf.constant(np.transpose(x_bm, (1, 0, 2)), dtype=dtype)
        init = {} if initial is None else {"initial_c": tf.constant(initial[0], dtype=dtype),
                                           "initial_h": tf.constant(initial[1], dtype=dtype)}
        y, (c, h) = lstm(x, tf.constant(lens), tf.constant(w, dtype=dtype), tf.constant(w_re, dtype=dtype),
                         tf.constant(b, dtype=dtype), direction=direction, impl=impl, **init)
        with tf.compat.v1.Session() as session:
            y, c, h = session.run((y, c, h))
    return np.transpose(y, (1, 0, 2)), c, h


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("direction", [1, -1])
def test_lstm_matches_reference_output(impl, direction):
    x, lens, w, w_re, b = _reference_fixture()
    y, _, _ = _run_lstm(x, lens, w, w_re, b, direction=direction, impl=impl)
    np.testing.assert_allclose(y, np.array(REF_Y[direction]), atol=2e-6)
    np_y, _ = run_per_seq(x, lens, native_lstm_step(w, w_re, b), 4, direction=direction)
    np.testing.assert_allclose(np_y, np.array(REF_Y[direction]), atol=2e-6)


def _random_case(seed=3, batch=4, num_frames=7, n_in=5, n=6):
    rng = np.random.RandomState(seed)
    x = rng.normal(size=(batch, num_frames, n_in)).astype("float32")
    lens = np.array([num_frames, 3, 0, 5][:batch], "int32")
    for b_, length in enumerate(lens):
        x[b_, length:] = 1e3  # garbage in padding must not leak anywhere
    w = rng.uniform(-.6, .6, (n_in, 4 * n)).astype("float32")
    w_re = rng.uniform(-.6, .6, (n, 4 * n)).astype("float32")
    b = rng.uniform(-.6, .6, (4 * n,)).astype("float32")
    initial = (rng.normal(size=(batch, n)).astype("float32"), rng.normal(size=(batch, n)).astype("float32"))
    return x, lens, w, w_re, b, initial


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("direction", [1, -1])
def test_lstm_matches_numpy_with_padding_and_initial_state(impl, direction):
    x, lens, w, w_re, b, initial = _random_case()
    y, c, h = _run_lstm(x, lens, w, w_re, b, direction=direction, impl=impl, initial=initial)
    np_initial = list(zip(initial[0].astype(np.float64), initial[1].astype(np.float64)))
    np_y, finals = run_per_seq(x, lens, native_lstm_step(w, w_re, b), 6, direction=direction, initial=np_initial)
    np.testing.assert_allclose(y, np_y, atol=1e-5)
    for b_, length in enumerate(lens):
        assert np.all(y[b_, length:] == 0.0)
    np.testing.assert_allclose(c, np.array([s[0] for s in finals]), atol=1e-5)
    np.testing.assert_allclose(h, np.array([s[1] for s in finals]), atol=1e-5)
    # The length-0 sequence keeps its initial state.
    np.testing.assert_array_equal(c[2], initial[0][2])


@pytest.mark.parametrize("impl", IMPLS)
def test_lstm_backward_direction_is_reversal_by_length(impl):
    x, lens, w, w_re, b, _ = _random_case(seed=5)
    x_rev = x.copy()
    for b_, length in enumerate(lens):
        x_rev[b_, :length] = x[b_, :length][::-1]
    y_bw, c_bw, _ = _run_lstm(x, lens, w, w_re, b, direction=-1, impl=impl)
    y_fw, c_fw, _ = _run_lstm(x_rev, lens, w, w_re, b, direction=1, impl=impl)
    for b_, length in enumerate(lens):
        np.testing.assert_allclose(y_bw[b_, :length], y_fw[b_, :length][::-1], atol=1e-6)
    np.testing.assert_allclose(c_bw, c_fw, atol=1e-6)


def _grads(impl, direction, zero_initial=False):
    """:return: (gradients of a random loss w.r.t. x, W, W_re, b and, unless ``zero_initial``, c0, h0; lens)"""
    x, lens, w, w_re, b, initial = _random_case(seed=7)
    rng = np.random.RandomState(0)
    with tf.Graph().as_default():
        tensors = [tf.constant(a) for a in [np.transpose(x, (1, 0, 2)), w, w_re, b]]
        init = {}
        if not zero_initial:  # else the default zero state: direction -1 runs the loop backward in time
            init = {"initial_c": tf.constant(initial[0]), "initial_h": tf.constant(initial[1])}
            tensors += list(init.values())
        x_t, w_t, w_re_t, b_t = tensors[:4]
        y, (c, h) = lstm(x_t, tf.constant(lens), w_t, w_re_t, b_t, direction=direction, impl=impl, **init)
        loss = (tf.reduce_sum(y * rng.normal(size=(7, 4, 6))) + tf.reduce_sum(c * rng.normal(size=(4, 6)))
                + tf.reduce_sum(h * rng.normal(size=(4, 6))))
        grads = tf.gradients(loss, tensors)
        with tf.compat.v1.Session() as session:
            return session.run(grads), lens


@pytest.mark.parametrize("zero_initial", [False, True])
@pytest.mark.parametrize("direction", [1, -1])
def test_lstm_loop_gradient_matches_block_lstm_gradient(direction, zero_initial):
    """Our hand-written backward loop vs TensorFlow's own BlockLSTMGrad kernel (which sees the input reversed
    by length for direction -1)."""
    loop, lens = _grads("loop", direction, zero_initial)
    block, _ = _grads("block", direction, zero_initial)
    assert len(loop) == (4 if zero_initial else 6)
    for name, g_loop, g_block in zip(["x", "W", "W_re", "b", "c0", "h0"], loop, block):
        np.testing.assert_allclose(g_loop, g_block, atol=1e-4, rtol=1e-4, err_msg=name)
    dx = np.transpose(loop[0], (1, 0, 2))
    for b_, length in enumerate(lens):
        assert np.all(dx[b_, length:] == 0.0), "gradient leaks into padded input frames"


@pytest.mark.parametrize("direction", [1, -1])
@pytest.mark.parametrize("lens", [[6, 2, 1, 0], [6, 6, 6, 5]])
def test_lstm_loop_input_projection_of_real_frames(direction, lens):
    """n_in >= PACK_MIN_INPUT_DIM: with 37.5% real frames the input projection runs on the real frames only
    (gathered, scattered back), with 96% on all frames; outputs and gradients equal BlockLSTM's either way."""
    from returnn.tf.ops.rnn.input_projection import PACK_MIN_INPUT_DIM
    rng = np.random.RandomState(5)
    n_in, n, num_frames = PACK_MIN_INPUT_DIM, 8, 6
    x = rng.normal(size=(num_frames, 4, n_in)).astype("float32")
    for b_, length in enumerate(lens):
        x[length:, b_] = 1e3
    params = [rng.uniform(-.3, .3, shape).astype("float32") for shape in [(n_in, 4 * n), (n, 4 * n), (4 * n,)]]
    loss_weights = rng.normal(size=(num_frames, 4, n))
    results = {}
    for impl in ["loop", "block"]:
        with tf.Graph().as_default():
            tensors = [tf.constant(a) for a in [x] + params]
            y, (c, h) = lstm(tensors[0], tf.constant(lens, tf.int32), *tensors[1:], direction=direction, impl=impl)
            loss = tf.reduce_sum(y * loss_weights) + tf.reduce_sum(c) + tf.reduce_sum(h)
            with tf.compat.v1.Session() as session:
                results[impl] = session.run([y, c, h] + tf.gradients(loss, tensors))
    for name, a, b in zip(["y", "c", "h", "dx", "dW", "dW_re", "db"], results["loop"], results["block"]):
        np.testing.assert_allclose(a, b, atol=1e-4, rtol=1e-4, err_msg=name)
    y, dx = results["loop"][0], results["loop"][3]
    for b_, length in enumerate(lens):
        assert np.all(y[length:, b_] == 0.0) and np.all(dx[length:, b_] == 0.0)


@pytest.mark.parametrize("direction", [1, -1])
def test_lstm_loop_gradient_numeric(direction):
    """Finite differences in float64 on tiny shapes; direction -1 with the default zero state (the loop runs
    backward in time over the padding), direction 1 with a given initial cell state."""
    rng = np.random.RandomState(11)
    with tf.Graph().as_default():
        x = tf.constant(rng.normal(size=(4, 2, 3)))
        w = tf.constant(rng.uniform(-.7, .7, (3, 8)))
        w_re = tf.constant(rng.uniform(-.7, .7, (2, 8)))
        b = tf.constant(rng.uniform(-.7, .7, (8,)))
        c0 = tf.constant(rng.normal(size=(2, 2)))
        init = {"initial_c": c0} if direction == 1 else {}
        y, (c, h) = lstm(x, tf.constant([4, 2]), w, w_re, b, direction=direction, impl="loop", **init)
        out = (tf.reduce_sum(y * rng.normal(size=(4, 2, 2))) + tf.reduce_sum(c * rng.normal(size=(2, 2)))
               + tf.reduce_sum(h * rng.normal(size=(2, 2))))
        with tf.compat.v1.Session():
            for t in [x, w, w_re, b] + list(init.values()):
                err = tf.compat.v1.test.compute_gradient_error(t, t.shape.as_list(), out, [], delta=1e-6)
                assert err < 1e-6, t


def test_lstm_bad_direction():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="direction"):
            lstm(tf.zeros([2, 1, 3]), tf.constant([2]), tf.zeros([3, 8]), tf.zeros([2, 8]), tf.zeros([8]),
                 direction=0)

"""Plain numpy (float64) recurrent references used by the recurrent tests.

Batch-major: ``x`` [B, T, n_in], ``lens`` [B]; outputs [B, T, n] with zeros in padded frames.
Each sequence is run on its own over its real frames only, so padding can never influence results.
"""

import numpy as np


def sigmoid(x):
    return 1. / (1. + np.exp(-x))


def run_per_seq(x, lens, step, n, direction=1, initial=None):
    """
    :param step: (x_t [n_in], state or None) -> (h_t [n], new state)
    :return: (y [B, T, n], list of final states per sequence)
    """
    x = np.asarray(x, np.float64)
    batch, num_frames, _ = x.shape
    y = np.zeros((batch, num_frames, n))
    finals = []
    for b in range(batch):
        length = int(lens[b])
        frames = list(range(length))
        if direction == -1:
            frames = frames[::-1]
        state = None if initial is None else initial[b]
        for t in frames:
            y[b, t], state = step(x[b, t], state)
        finals.append(state)
    return y, finals


def native_lstm_step(w, w_re, b):
    """The reference's NativeLstm2: gate blocks (cell input, input, forget, output), no forget bias."""
    n = w_re.shape[0]

    def step(x_t, state):
        c, h = state if state is not None else (np.zeros(n), np.zeros(n))
        z = x_t @ w + h @ w_re + b
        j, i, f, o = np.tanh(z[:n]), sigmoid(z[n:2 * n]), sigmoid(z[2 * n:3 * n]), sigmoid(z[3 * n:])
        c = f * c + i * j
        h = o * np.tanh(c)
        return h, (c, h)
    return step


def tf_lstm_cell_step(kernel, bias, forget_bias=1.0):
    """TF's LSTMCell/BasicLSTMCell: kernel on [x, h], gate blocks (input, cell input, forget, output)."""
    n = bias.shape[0] // 4

    def step(x_t, state):
        c, h = state if state is not None else (np.zeros(n), np.zeros(n))
        i, j, f, o = np.split(np.concatenate([x_t, h]) @ kernel + bias, 4)
        c = sigmoid(f + forget_bias) * c + sigmoid(i) * np.tanh(j)
        h = sigmoid(o) * np.tanh(c)
        return h, (c, h)
    return step


def gru_step(gates_kernel, gates_bias, cand_kernel, cand_bias):
    """TF's GRUCell: r, u = sigmoid([x, h] Wg + bg); c = tanh([x, r*h] Wc + bc); h = u*h + (1-u)*c."""
    n = cand_bias.shape[0]

    def step(x_t, h):
        h = np.zeros(n) if h is None else h
        r, u = np.split(sigmoid(np.concatenate([x_t, h]) @ gates_kernel + gates_bias), 2)
        c = np.tanh(np.concatenate([x_t, r * h]) @ cand_kernel + cand_bias)
        h = u * h + (1. - u) * c
        return h, h
    return step


def basic_rnn_step(kernel, bias):
    """TF's BasicRNNCell: h = tanh([x, h] W + b)."""
    n = bias.shape[0]

    def step(x_t, h):
        h = np.zeros(n) if h is None else h
        h = np.tanh(np.concatenate([x_t, h]) @ kernel + bias)
        return h, h
    return step

"""``standardlstm`` with ``unit_opts`` ``use_peepholes`` / ``cell_clip`` (TensorFlow's ``LSTMCell`` layout): the
param names and shapes (observed from the reference: ``lstm_cell/w_f_diag``, ``w_i_diag``, ``w_o_diag`` ``[n]``)
and the numerics against a numpy implementation of TensorFlow's peephole LSTM, as ``rec`` over time (both
directions) and as ``rnn_cell`` step by step inside a rec loop."""

import numpy as np
import pytest
import tensorflow as tf

from tf_net_helpers import build_net, load_random_params, make_feed

from returnn.errors import LayerArgError

tf.compat.v1.disable_eager_execution()

N_IN, N = 3, 5


def _sigmoid(x):
    return 1. / (1. + np.exp(-x))


def np_peephole_lstm(p, x, lens, forget_bias=1.0, peepholes=True, cell_clip=None, direction=1):
    """numpy reference: TensorFlow's LSTMCell (gates i, j, f, o) with diagonal peepholes; x [B, T, n_in]"""
    kernel, bias = p["lstm_cell/kernel"], p["lstm_cell/bias"]
    batch, num_frames, _ = x.shape
    y = np.zeros((batch, num_frames, N))
    for b in range(batch):
        c, h = np.zeros(N), np.zeros(N)
        for t in list(range(lens[b]))[::direction]:
            i, j, f, o = np.split(np.concatenate([x[b, t], h]) @ kernel + bias, 4)
            if peepholes:
                f = f + p["lstm_cell/w_f_diag"] * c
                i = i + p["lstm_cell/w_i_diag"] * c
            c = _sigmoid(f + forget_bias) * c + _sigmoid(i) * np.tanh(j)
            if cell_clip is not None:
                c = np.clip(c, -cell_clip, cell_clip)
            if peepholes:
                o = o + p["lstm_cell/w_o_diag"] * c
            h = _sigmoid(o) * np.tanh(c)
            y[b, t] = h
    return y


def _inputs(seed=3):
    rng = np.random.RandomState(seed)
    x = rng.uniform(-1, 1, (3, 6, N_IN)).astype("float32")
    lens = np.array([6, 2, 4], "int32")
    x[1, 2:] = 5.  # padding garbage
    return x, lens


def test_peephole_param_names_as_reference(session):
    net = build_net({"output": {"class": "rec", "unit": "standardlstm", "unit_opts": {"use_peepholes": True},
                                "n_out": N, "from": "data"}})
    got = {v.name[len("output/rec/"):-2]: v.shape.as_list() for v in net.get_params_list()}
    assert got == {"lstm_cell/kernel": [N_IN + N, 4 * N], "lstm_cell/bias": [4 * N], "lstm_cell/w_f_diag": [N],
                   "lstm_cell/w_i_diag": [N], "lstm_cell/w_o_diag": [N]}


@pytest.mark.parametrize("opts,direction", [
    ({"use_peepholes": True}, 1), ({"use_peepholes": True, "forget_bias": 0.0}, -1),
    ({"use_peepholes": True, "cell_clip": 0.3}, 1), ({"cell_clip": 0.2, "forget_bias": 0.5}, -1),
    ({"use_peepholes": False, "forget_bias": 0.0}, 1),
])
def test_peephole_rec_numerics(session, opts, direction):
    net = build_net({"output": {"class": "rec", "unit": "standardlstm", "unit_opts": opts, "n_out": N,
                                "from": "data", "direction": direction}}, train_flag=False)
    p = load_random_params(session, net, "output/rec/")
    x, lens = _inputs()
    y = session.run(net.get_layer("output").output.copy_as_batch_major().placeholder,
                    feed_dict=make_feed(net, {"data": x}, {"data": lens}))
    expected = np_peephole_lstm(p, x.astype("float64"), lens, forget_bias=opts.get("forget_bias", 1.0),
                                peepholes=opts.get("use_peepholes", False), cell_clip=opts.get("cell_clip"),
                                direction=direction)
    np.testing.assert_allclose(y, expected, atol=2e-5)


def test_peephole_rnn_cell_in_loop(session):
    """``rnn_cell`` inside the loop (not moved out): the same params and numerics as ``rec`` over time."""
    net = build_net({"output": {"class": "rec", "from": "data", "optimize_move_layers_out": False, "unit": {
        "s": {"class": "rnn_cell", "unit": "standardlstm", "unit_opts": {"use_peepholes": True, "forget_bias": 0.0},
              "from": "data:source", "n_out": N},
        "output": {"class": "copy", "from": "s"}}}}, train_flag=False)
    p = load_random_params(session, net, "output/rec/s/rec/")
    assert sorted(p) == ["lstm_cell/bias", "lstm_cell/kernel", "lstm_cell/w_f_diag", "lstm_cell/w_i_diag",
                         "lstm_cell/w_o_diag"]
    x, lens = _inputs()
    y = session.run(net.get_layer("output").output.copy_as_batch_major().placeholder,
                    feed_dict=make_feed(net, {"data": x}, {"data": lens}))
    expected = np_peephole_lstm(p, x.astype("float64"), lens, forget_bias=0.0)
    for b, n in enumerate(lens):
        np.testing.assert_allclose(y[b, :n], expected[b, :n], atol=2e-5)


def test_peephole_unknown_unit_opt(session):
    with pytest.raises(LayerArgError, match="use_peephole"):
        build_net({"output": {"class": "rec", "unit": "standardlstm", "unit_opts": {"use_peephole": True},
                              "n_out": N, "from": "data"}})

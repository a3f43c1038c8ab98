"""``rec`` layers with a string unit inside a rec loop: one step per frame with the state carried by the loop (as
the reference), the same param names as over time, numerics against numpy; stateful layers that can run over time
are moved out of the loop after it when nothing in the loop needs them (as the reference's log shows)."""

import os
import sys

import numpy as np
import pytest
import tensorflow as tf

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "ops", "rnn"))

from rnn_numpy_ref import gru_step, native_lstm_step, tf_lstm_cell_step  # noqa: E402
from tf_net_helpers import build_net, make_feed  # noqa: E402

tf.compat.v1.disable_eager_execution()

N_IN, N = 3, 4


def _feedback_loop(unit, move_out=True):
    return {"output": {"class": "rec", "from": "data", "optimize_move_layers_out": move_out, "unit": {
        "r": {"class": "rec", "unit": unit, "n_out": N, "from": ["data:source", "prev:r"]},
        "output": {"class": "copy", "from": "r"}}}}


def _np_step(unit, p):
    pre = "output/rec/r/rec/"
    if unit == "standardlstm":
        return tf_lstm_cell_step(p[pre + "lstm_cell/kernel"], p[pre + "lstm_cell/bias"], forget_bias=1.0)
    if unit == "gru":
        return gru_step(p[pre + "gru_cell/gates/kernel"], p[pre + "gru_cell/gates/bias"],
                        p[pre + "gru_cell/candidate/kernel"], p[pre + "gru_cell/candidate/bias"])
    return native_lstm_step(p[pre + "W"], p[pre + "W_re"], p[pre + "b"])


# observed from the reference (n_in 3 + prev 4, n_out 4)
REF_PARAMS = {"nativelstm2": {"W": [7, 16], "W_re": [4, 16], "b": [16]},
              "LSTMBlock": {"W": [7, 16], "W_re": [4, 16], "b": [16]},
              "standardlstm": {"lstm_cell/kernel": [11, 16], "lstm_cell/bias": [16]},
              "gru": {"gru_cell/gates/kernel": [11, 8], "gru_cell/gates/bias": [8],
                      "gru_cell/candidate/kernel": [11, 4], "gru_cell/candidate/bias": [4]}}


@pytest.mark.parametrize("unit", sorted(REF_PARAMS))
def test_rec_string_unit_one_step_per_frame(session, unit):
    net = build_net(_feedback_loop(unit), train_flag=False)
    params = {p.name[:-2]: p for p in net.get_params_list()}
    assert {k[len("output/rec/r/rec/"):]: v.shape.as_list() for k, v in params.items()} == REF_PARAMS[unit]
    session.run(tf.compat.v1.global_variables_initializer())
    rng = np.random.RandomState(4)
    values = {}
    for name in sorted(params):
        values[name] = rng.uniform(-.5, .5, params[name].shape.as_list()).astype("float32")
        params[name].load(values[name], session)
    x = rng.uniform(-1, 1, (2, 5, N_IN)).astype("float32")
    lens = np.array([5, 3], "int32")
    y = session.run(net.get_layer("output").output.copy_as_batch_major().placeholder,
                    feed_dict=make_feed(net, {"data": x}, {"data": lens}))
    step = _np_step(unit.lower() if unit != "LSTMBlock" else "nativelstm2", values)
    for b in range(2):
        state, prev = None, np.zeros(N)
        for t in range(lens[b]):
            prev, state = step(np.concatenate([x[b, t], prev]), state)
            np.testing.assert_allclose(y[b, t], prev, atol=1e-5)


def test_rec_in_loop_without_feedback_moved_out_and_same_as_over_time(session):
    """Input-only ``rec`` in a loop: moved out (run over the sequence); the same values as a plain rec layer
    with the same params."""
    net = build_net({
        "output": {"class": "rec", "from": "data", "unit": {
            "a": {"class": "linear", "activation": "tanh", "n_out": 3, "from": ["prev:a", "data:source"]},
            "r": {"class": "rec", "unit": "nativelstm2", "n_out": N, "from": "data:source"},
            "s": {"class": "rnn_cell", "unit": "standardlstm", "n_out": 2, "from": "a"},
            "output": {"class": "copy", "from": ["r", "s", "a"]}}},
        "plain": {"class": "rec", "unit": "nativelstm2", "n_out": N, "from": "data", "is_output_layer": True}},
        train_flag=False)
    cell = net.get_layer("output").cell
    assert cell.inputs == {"r"} and cell.loop == {"a"} and cell.outputs == {"s", "output"}
    session.run(tf.compat.v1.global_variables_initializer())
    params = {p.name[:-2]: p for p in net.get_params_list()}
    for key in ("W", "W_re", "b"):
        params[f"plain/rec/{key}"].load(session.run(params[f"output/rec/r/rec/{key}"]), session)
    x = np.random.RandomState(1).randn(2, 5, N_IN).astype("float32")
    feed = make_feed(net, {"data": x}, {"data": [5, 2]})
    y, plain = session.run([net.get_layer("output").output.placeholder, net.get_layer("plain").output.placeholder],
                           feed_dict=feed)
    np.testing.assert_allclose(y[:, 0, :N], plain[:, 0], atol=1e-6)
    np.testing.assert_allclose(y[:2, 1, :N], plain[:2, 1], atol=1e-6)

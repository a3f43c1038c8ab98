"""``get_last_hidden_state`` of an ``rnn_cell`` inside a rec unit (``prev:s`` and ``s``), as in the 2018-attention
``blocks-flstm`` configs. Values observed from the reference (same net, params set to fixed values)."""

import numpy as np
import pytest
import tensorflow as tf

from tf_net_helpers import build_net, make_feed

from returnn.errors import LayerArgError, LayerShapeError

tf.compat.v1.disable_eager_execution()

X = (np.arange(2 * 3 * 2).reshape(2, 3, 2) % 5 - 2).astype("float32") / 3.
LENS = [3, 2]


def _net(unit, src, n_out, key="*"):
    return {"output": {"class": "rec", "from": "data", "unit": {
        "s": {"class": "rnn_cell", "unit": unit, "from": ["data:source", "prev:output"], "n_out": 3},
        "st": {"class": "get_last_hidden_state", "from": src, "n_out": n_out, "key": key},
        "output": {"class": "copy", "from": ["s", "st"]}}}}


def _run(session, net_dict):
    net = build_net(net_dict, extern_data={"data": {"dim": 2}})
    for v in tf.compat.v1.global_variables():
        shape = v.shape.as_list()
        session.run(v.assign(np.reshape((np.arange(int(np.prod(shape))) % 7 - 3) / 10., shape)))
    return session.run(net.get_layer("output").output.placeholder, make_feed(net, {"data": X}, {"data": LENS}))


# [T, B, 3 (s) + n_out]: "output" = [s, state]; observed from the reference
_S_LSTM = [[[0.015762, 0.015762, 0.017763], [0., 0.015529, 0.033055]],
           [[-0.002078, 0.025458, 0.057919], [-0.024024, 0.026952, 0.078988]],
           [[0.021624, 0.065166, 0.126661], [-0.003743, 0.047536, 0.074308]]]


def test_prev_lstm_cell_state_is_c_then_h_of_the_previous_step(session):
    y = _run(session, _net("LSTMBlock", "prev:s", 6))
    assert y.shape == (3, 2, 9)
    np.testing.assert_allclose(y[..., :3], _S_LSTM, atol=2e-6)
    np.testing.assert_array_equal(y[0, :, 3:], 0.0)  # initial state
    np.testing.assert_allclose(y[1:, :, 6:], y[:-1, :, :3], atol=1e-7)  # h of prev:s is the previous output
    np.testing.assert_allclose(y[1:, :, 3:6], [[[0.030517, 0.030517, 0.034393], [0., 0.031068, 0.064066]],
                                               [[-0.004609, 0.052671, 0.112542], [-0.057569, 0.057806, 0.153343]]],
                               atol=2e-6)  # c, observed


def test_current_lstm_cell_state(session):
    y = _run(session, _net("LSTMBlock", "s", 6))
    np.testing.assert_allclose(y[..., 6:], y[..., :3], atol=1e-7)  # h = output
    np.testing.assert_allclose(y[0, :, 3:6], [[0.030517, 0.030517, 0.034393], [0., 0.031068, 0.064066]], atol=2e-6)


@pytest.mark.parametrize("key, expected_t1", [
    ("c", [[0.030517, 0.030517, 0.034393], [0., 0.031068, 0.064066]]),
    ("h", [[0.015762, 0.015762, 0.017763], [0., 0.015529, 0.033055]])])
def test_prev_lstm_cell_state_by_key(session, key, expected_t1):
    y = _run(session, _net("LSTMBlock", "prev:s", 3, key=key))
    assert y.shape == (3, 2, 6)
    np.testing.assert_array_equal(y[0, :, 3:], 0.0)
    np.testing.assert_allclose(y[1, :, 3:], expected_t1, atol=2e-6)


def test_prev_gru_cell_state_is_h(session):
    y = _run(session, _net("GRU", "prev:s", 3))
    np.testing.assert_allclose(y[:, :, :3], [[[-0.049004] * 3, [-0.098688, -0.064066, -0.031068]],
                                             [[-0.180436, -0.101105, -0.034628], [-0.254589, -0.114585, -0.010842]],
                                             [[-0.325676, -0.204113, -0.137286], [-0.210406, -0.067177, -0.046783]]],
                               atol=2e-6)
    np.testing.assert_allclose(y[1:, :, 3:], y[:-1, :, :3], atol=1e-7)


def test_gru_state_dim_checked(session):
    with pytest.raises(LayerShapeError, match="n_out=6 does not match"):
        build_net(_net("GRU", "prev:s", 6), extern_data={"data": {"dim": 2}})


def test_prev_of_a_stateless_layer_has_no_hidden_state(session):
    d = _net("LSTMBlock", "prev:lin", 3)
    d["output"]["unit"]["lin"] = {"class": "linear", "activation": None, "from": "s", "n_out": 3}
    with pytest.raises(LayerArgError, match="has no hidden state"):
        build_net(d, extern_data={"data": {"dim": 2}})

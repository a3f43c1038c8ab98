"""Loading an LSTM ``rec`` layer's params saved with another LSTM unit: the conversion of the layouts (numpy) and a
save/load round trip between units that gives the same outputs."""

import os

import numpy as np
import pytest
import tensorflow as tf

from tf_net_helpers import build_net, make_feed

from returnn.tf.network.lstm_param_conversion import converted_lstm_param

tf.compat.v1.disable_eager_execution()

N_IN, N = 2, 3


def _native(seed=1):
    rng = np.random.RandomState(seed)
    return {"l/rec/W": rng.normal(size=(N_IN, 4 * N)), "l/rec/W_re": rng.normal(size=(N, 4 * N)),
            "l/rec/b": rng.normal(size=(4 * N,))}


def test_native_to_tf_cell_and_back():
    native = _native()
    kernel = converted_lstm_param("l/rec/lstm_cell/kernel", [N_IN + N, 4 * N], native.__getitem__, native)
    bias = converted_lstm_param("l/rec/lstm_cell/bias", [4 * N], native.__getitem__, native)
    # TF cell gates (i, j, f, o) from the native (j, i, f, o)
    w_all = np.concatenate([native["l/rec/W"], native["l/rec/W_re"]])
    np.testing.assert_array_equal(kernel[:, :N], w_all[:, N:2 * N])
    np.testing.assert_array_equal(kernel[:, N:2 * N], w_all[:, :N])
    np.testing.assert_array_equal(kernel[:, 2 * N:], w_all[:, 2 * N:])
    np.testing.assert_array_equal(bias[:N], native["l/rec/b"][N:2 * N])
    cell = {"l/rec/basic_lstm_cell/kernel": kernel, "l/rec/basic_lstm_cell/bias": bias}
    for name, value in native.items():
        back = converted_lstm_param(name, list(value.shape), cell.__getitem__, cell)
        np.testing.assert_array_equal(back, value)
    assert converted_lstm_param("l/W", [N_IN, 4 * N], native.__getitem__, native) is None
    assert converted_lstm_param("l/rec/W", [N_IN, 4 * N], cell.__getitem__, {}) is None


@pytest.mark.parametrize("src,dst", [("nativelstm2", "standardlstm"), ("standardlstm", "lstm"),
                                     ("basiclstm", "standardlstm")])
def test_save_load_between_units_same_output(tmp_path, src, dst):
    x = np.random.RandomState(2).uniform(-1, 1, (2, 4, N_IN)).astype("float32")
    outputs = []
    for unit in (src, dst):
        opts = {"forget_bias": 0.0} if unit in ("standardlstm", "basiclstm") else {}
        with tf.Graph().as_default() as graph, tf.compat.v1.Session(graph=graph) as session:
            net = build_net({"output": {"class": "rec", "unit": unit, "unit_opts": opts, "n_out": N, "from": "data"}},
                            extern_data={"data": {"dim": N_IN}}, train_flag=False)
            if unit == src:
                net.initialize_params(session)
                net.save_params_to_file(os.path.join(tmp_path, "model"), session)
            else:
                net.load_params_from_file(os.path.join(tmp_path, "model"), session)
            outputs.append(session.run(net.get_layer("output").output.copy_as_batch_major().placeholder,
                                       make_feed(net, {"data": x}, {"data": [4, 3]})))
    np.testing.assert_allclose(outputs[0], outputs[1], rtol=1e-5, atol=1e-6)

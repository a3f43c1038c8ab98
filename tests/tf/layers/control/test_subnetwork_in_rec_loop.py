"""A ``subnetwork`` inside the unit of a rec layer (an LSTM language model fused into a decoder, as published
configs do): templates before the loop, the inner LSTM's state carried from step to step. Params and outputs were
observed with the reference (RETURNN from PyPI) for the same net, inputs and param values."""

import numpy as np
import tensorflow as tf

from tf_net_helpers import build_net

EXTERN = {"data": {"dim": 3}, "classes": {"dim": 4, "sparse": True}}
NET = {"output": {"class": "rec", "from": "data", "unit": {
    "lm": {"class": "subnetwork", "from": ["prev:output"], "subnetwork": {
        "input": {"class": "linear", "n_out": 5, "activation": "identity"},
        "lstm0": {"class": "rnn_cell", "unit": "LSTMBlock", "n_out": 6, "from": ["input"]},
        "output": {"class": "linear", "from": "lstm0", "n_out": 4}}},
    "output": {"class": "softmax", "from": ["lm", "data:source"], "n_out": 4}}}}


def test_lstm_in_subnetwork_of_rec_unit_like_reference(session):
    net = build_net(NET, EXTERN, train_flag=False)
    params = tf.compat.v1.trainable_variables()
    assert sorted((v.name, v.shape.as_list()) for v in params) == [
        ("output/rec/lm/input/W:0", [4, 5]), ("output/rec/lm/input/b:0", [5]),
        ("output/rec/lm/lstm0/rec/lstm_cell/bias:0", [24]), ("output/rec/lm/lstm0/rec/lstm_cell/kernel:0", [11, 24]),
        ("output/rec/lm/output/W:0", [6, 4]), ("output/rec/lm/output/b:0", [4]),
        ("output/rec/output/W:0", [7, 4]), ("output/rec/output/b:0", [4])]
    session.run(tf.compat.v1.global_variables_initializer())
    for v in params:  # the same deterministic values as in the reference run
        shape = v.shape.as_list()
        v.load(np.sin(np.arange(int(np.prod(shape))).reshape(shape) * 0.37 + len(v.name)).astype("float32"), session)
    data = net.extern_data.data["data"]
    x = np.cos(np.arange(2 * 4 * 3).reshape(2, 4, 3)).astype("float32")
    out = session.run(net.layers["output"].output.placeholder, {data.placeholder: x, data.size_placeholder[0]: [4, 3]})
    np.testing.assert_allclose(out[:, 0], [  # [T, B, F]: sequence 0
        [0.4488, 0.3088, 0.16625, 0.07615], [0.15077, 0.20717, 0.28101, 0.36105],
        [0.48733, 0.29663, 0.14867, 0.06736], [0.16274, 0.22278, 0.28499, 0.3295]], atol=2e-5)

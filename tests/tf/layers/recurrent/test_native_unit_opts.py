"""``unit_opts`` of the NativeLstm2 units as the reference accepts them: ``rec_weight_dropout`` (+ its noise shape)
and ``forget_bias`` (0 only; other values are rejected, as the reference does)."""

import itertools
import os
import sys

import numpy as np
import pytest
import tensorflow as tf

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "ops", "rnn"))

from rnn_numpy_ref import native_lstm_step, run_per_seq  # noqa: E402
from tf_net_helpers import build_net, make_feed  # noqa: E402

from returnn.errors import LayerArgError  # noqa: E402

tf.compat.v1.disable_eager_execution()

N_IN, N = 3, 4


def _run(session, unit_opts, train_flag):
    net = build_net({"output": {"class": "rec", "unit": "nativelstm2", "n_out": N, "from": "data",
                                "unit_opts": unit_opts}}, train_flag=train_flag)
    session.run(tf.compat.v1.global_variables_initializer())
    params = {p.name[:-2]: session.run(p) for p in net.get_params_list()}
    rng = np.random.RandomState(2)
    x = rng.randn(2, 5, N_IN).astype("float32")
    lens = np.array([5, 3], "int32")
    y = session.run(net.get_layer("output").output.copy_as_batch_major().placeholder,
                    feed_dict=make_feed(net, {"data": x}, {"data": lens}))
    return params, x, lens, y


def _expected(params, x, lens, w_re):
    return run_per_seq(x, lens, native_lstm_step(params["output/rec/W"], w_re, params["output/rec/b"]), N)[0]


def test_rec_weight_dropout_not_in_evaluation(session):
    params, x, lens, y = _run(session, {"rec_weight_dropout": 0.5}, train_flag=False)
    np.testing.assert_allclose(y, _expected(params, x, lens, params["output/rec/W_re"]), atol=1e-5)


def test_rec_weight_dropout_in_training_drops_rows_of_w_re(session):
    """With the noise shape (None, 1), whole rows of W_re are dropped (kept ones scaled by 2 at rate 0.5), one mask
    for the whole sequence: some row mask reproduces the output exactly."""
    params, x, lens, y = _run(session, {"rec_weight_dropout": 0.5, "rec_weight_dropout_shape": (None, 1)},
                              train_flag=True)
    w_re = params["output/rec/W_re"]
    found = [mask for mask in itertools.product([0.0, 2.0], repeat=N)
             if np.allclose(y, _expected(params, x, lens, w_re * np.array(mask)[:, None]), atol=1e-5)]
    assert len(found) >= 1


def test_forget_bias_zero_accepted_other_rejected_as_reference(session):
    params, x, lens, y = _run(session, {"forget_bias": 0.0}, train_flag=False)
    np.testing.assert_allclose(y, _expected(params, x, lens, params["output/rec/W_re"]), atol=1e-5)
    with tf.Graph().as_default(), pytest.raises(LayerArgError, match="forget_bias"):
        build_net({"output": {"class": "rec", "unit": "lstm", "n_out": N, "from": "data",
                              "unit_opts": {"forget_bias": 1.0}}})

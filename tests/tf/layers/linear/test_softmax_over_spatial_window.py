"""softmax_over_spatial's ``start``, ``window_start`` and ``window_size``: which frames keep probability mass,
observed from the reference on the same input (``{B, T, F}`` in, ``{B, F, T}`` out, rounded to 4 digits)."""

import numpy as np
import pytest
import tensorflow as tf

from returnn.errors import LayerArgError
from tf_net_helpers import build_net, make_feed

X = np.random.RandomState(1).randn(2, 7, 2).astype("float32")
LENS = [7, 5]
START = [1, 3]  # per sequence
WINDOW_START = [2, -1]  # the second window [-1, 2): frames 0 and 1
EXTERN = {"data": {"dim": 2}, "st": {"shape": (), "dtype": "int32", "available_for_inference": True},
          "ws": {"shape": (), "dtype": "int32", "available_for_inference": True}}
INPUTS = {"start": {"class": "copy", "from": "data:st"}, "wst": {"class": "copy", "from": "data:ws"}}

EXPECTED = {
    "start": [[[0, 0.039, 0.1573, 0.379, 0.0911, 0.2857, 0.048], [0, 0.137, 0.0401, 0.1871, 0.3121, 0.051, 0.2728]],
              [[0, 0, 0, 0.119, 0.881, 0, 0], [0, 0, 0, 0.6553, 0.3447, 0, 0]]],
    "window": [[[0, 0, 0.2507, 0.6041, 0.1452, 0, 0], [0, 0, 0.0743, 0.3469, 0.5788, 0, 0]],
               [[0.7869, 0.2131, 0, 0, 0, 0, 0], [0.4447, 0.5553, 0, 0, 0, 0, 0]]],
    "window_size_layer": [[[0, 0, 1, 0, 0, 0, 0], [0, 0, 1, 0, 0, 0, 0]],
                          [[0.7869, 0.2131, 0, 0, 0, 0, 0], [0.4447, 0.5553, 0, 0, 0, 0, 0]]],
}
OPTIONS = {
    "start": {"start": "start"},
    "window": {"window_start": "wst", "window_size": 3},
    "window_size_layer": {"window_start": "wst", "window_size": "start"},  # sizes [1, 3]
}


def _run(session, opts):
    net = build_net({**INPUTS, "output": {"class": "softmax_over_spatial", "from": "data", **opts}}, EXTERN,
                    train_flag=False)
    feed = make_feed(net, {"data": X}, {"data": LENS})
    feed[net.extern_data.data["st"].placeholder] = START
    feed[net.extern_data.data["ws"].placeholder] = WINDOW_START
    return session.run(net.layers["output"].output.placeholder, feed)


@pytest.mark.parametrize("case", sorted(OPTIONS))
def test_softmax_over_spatial_masks_like_reference(session, case):
    np.testing.assert_allclose(_run(session, OPTIONS[case]), EXPECTED[case], atol=1e-4)


def test_softmax_over_spatial_window_log_space_like_reference(session):
    out = _run(session, {**OPTIONS["window"], "log_space": True})
    expected = [[[-np.inf, -np.inf, -1.3834, -0.504, -1.9298, -np.inf, -np.inf],
                 [-np.inf, -np.inf, -2.599, -1.0587, -0.5469, -np.inf, -np.inf]],
                [[-0.2397, -1.5459] + [-np.inf] * 5, [-0.8103, -0.5883] + [-np.inf] * 5]]
    np.testing.assert_allclose(out, expected, atol=1e-4)
    np.testing.assert_allclose(np.exp(out).sum(-1), 1.0, atol=1e-5)


def test_softmax_over_spatial_log_space_padded_frames_are_minus_inf(session):
    out = _run(session, {"log_space": True})
    assert np.all(out[1, :, 5:] == -np.inf)
    np.testing.assert_allclose(out[1, 0, :2], [-0.9188, -2.225], atol=1e-4)


@pytest.mark.parametrize("opts, arg", [
    ({"window_start": 2, "window_size": 3}, "window_start"),  # the reference asserts a layer name
    ({"window_start": "wst"}, "window_start"),
    ({"window_start": "wst", "window_size": 3, "use_time_mask": False}, "use_time_mask"),
])
def test_softmax_over_spatial_bad_window_args(opts, arg):
    with tf.Graph().as_default(), pytest.raises(LayerArgError) as exc:
        build_net({**INPUTS, "output": {"class": "softmax_over_spatial", "from": "data", **opts}}, EXTERN)
    assert exc.value.arg == arg and "'output'" in str(exc.value)


def test_softmax_over_spatial_window_in_loop_from_prev_argmax(session):
    """The local-attention pattern of 2019-asr-local-attention: the window starts at the argmax of the previous
    step's weights (a template cycle through prev:, the start {B, heads} matched to the energy {B, T, heads} by
    role); each step's weights are non-zero only in [start, start + 3), start the argmax of the step before."""
    unit = {
        "output": {"class": "choice", "target": "classes", "beam_size": 4, "from": "prob", "initial_output": 0},
        "end": {"class": "compare", "from": "output", "value": 0},
        "emb": {"class": "linear", "activation": None, "with_bias": False, "from": "prev:output", "n_out": 6},
        "s": {"class": "rnn_cell", "unit": "LSTMBlock", "from": ["emb", "prev:att"], "n_out": 6},
        "energy_in": {"class": "combine", "kind": "add", "from": ["base:enc", "s"], "n_out": 6},
        "energy": {"class": "linear", "activation": "tanh", "from": "energy_in", "n_out": 1},
        "p_t": {"class": "reduce", "from": "prev:att_weights", "mode": "argmax", "axis": "t"},
        "att_weights": {"class": "softmax_over_spatial", "from": "energy", "window_start": "p_t", "window_size": 3,
                        "is_output_layer": True},
        "att0": {"class": "generic_attention", "weights": "att_weights", "base": "base:enc", "auto_squeeze": True},
        "att": {"class": "merge_dims", "axes": "except_batch", "from": "att0"},
        "prob": {"class": "softmax", "from": ["s", "att"], "target": "classes", "loss": "ce"},
    }
    net = build_net({"enc": {"class": "linear", "from": "data", "n_out": 6, "activation": "tanh"},
                     "output": {"class": "rec", "from": [], "unit": unit, "target": "classes",
                                "max_seq_len": "max_len_from('base:enc')"}},
                    {"data": {"dim": 5}, "classes": {"dim": 7, "sparse": True}}, train_flag=False)
    session.run(tf.compat.v1.global_variables_initializer())
    rs = np.random.RandomState(3)
    feed = make_feed(net, {"data": rs.randn(2, 9, 5).astype("float32"), "classes": rs.randint(1, 7, (2, 4))},
                     {"data": [9, 7], "classes": [4, 3]})
    weights = net.get_layer("output/att_weights").output.copy_as_batch_major()
    w = session.run(weights.placeholder, feed).reshape(2, 4, 9)  # [B, T_dec, T_enc] (one head)
    for b, (n_dec, n_enc) in enumerate([(4, 9), (3, 7)]):
        start = 0  # the previous weights are 0 at the first step: argmax 0
        for t in range(n_dec):
            window = np.zeros(9, bool)
            window[max(start, 0):min(start + 3, n_enc)] = True
            assert np.all(w[b, t][~window] == 0) and np.all(w[b, t][window] > 0)
            np.testing.assert_allclose(w[b, t].sum(), 1.0, rtol=1e-5)
            start = int(np.argmax(w[b, t]))

"""Templates of a rec unit with a cycle through ``prev:`` whose first guess does not fit (location-aware attention,
as in the published Tacotron 2 config): the first template pass builds a layer from the sources whose templates
exist, as the reference, so the cycle resolves; a dense ``choice`` target keeps its dtype."""

import numpy as np
import tensorflow as tf

from tf_net_helpers import build_net, make_feed

tf.compat.v1.disable_eager_execution()

EXTERN = {"data": {"dim": 3}, "classes": {"dim": 5, "sparse": True}, "target": {"dim": 4}}


def test_location_feedback_cycle_and_regression_choice(session):
    unit = {
        "accum_att_weights": {"class": "combine", "kind": "add", "from": ["prev:accum_att_weights", "att_weights"]},
        "feedback_pad_left": {"class": "pad", "axes": "s:0", "from": ["prev:accum_att_weights"], "mode": "constant",
                              "padding": ((1, 0),), "value": 1},
        "feedback_pad_right": {"class": "pad", "axes": "s:0", "from": ["feedback_pad_left"], "mode": "constant",
                               "padding": ((0, 1),), "value": 0},
        "convolved_att": {"class": "conv", "filter_size": (3,), "from": ["feedback_pad_right"], "n_out": 2,
                          "padding": "valid", "activation": None},
        "loc": {"class": "linear", "activation": None, "from": ["convolved_att"], "n_out": 4, "with_bias": False},
        "s": {"class": "linear", "activation": "tanh", "from": ["prev:choice"], "n_out": 4},
        "energy_in": {"class": "combine", "kind": "add", "from": ["base:enc", "s", "loc"], "n_out": 4},
        "energy": {"class": "linear", "activation": None, "from": ["energy_in"], "n_out": 1, "with_bias": False},
        "att_weights": {"class": "softmax_over_spatial", "from": ["energy"]},
        "loc_sum": {"class": "reduce", "mode": "sum", "axis": "T", "from": ["loc"]},
        "output": {"class": "linear", "activation": None, "from": ["loc_sum", "s"], "n_out": 4},
        "choice": {"class": "choice", "from": ["output"], "input_type": "regression", "target": "target",
                   "beam_size": 1},
    }
    net = build_net({"enc": {"class": "linear", "activation": "tanh", "from": "data:classes", "n_out": 4},
                     "output": {"class": "rec", "from": [], "target": "target", "unit": unit}},
                    extern_data=EXTERN, train_flag=False)
    cell = net.get_layer("output").cell
    accum = cell.layers["accum_att_weights"].output
    assert accum.batch_ndim == 3 and accum.dim == 1  # {B, T_enc, 1}, the encoder's time axis
    session.run(tf.compat.v1.global_variables_initializer())
    rng = np.random.RandomState(0)
    feed = make_feed(net, {"classes": rng.randint(0, 5, (2, 6)).astype("int32"),
                           "target": rng.randn(2, 3, 4).astype("float32")},
                     {"classes": [6, 4], "target": [3, 2]})
    y = session.run(net.get_layer("output").output.copy_as_batch_major().placeholder, feed_dict=feed)
    assert y.shape == (2, 3, 4) and np.all(np.isfinite(y))

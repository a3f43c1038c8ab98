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
        # pad (1, 0), pad (0, 1), valid conv of 3: the encoder's time dim again (dim arithmetic, as the reference),
        # so the sum names it ("T" in the loop is the decoder's axis once "loc" is moved out)
        "loc_sum": {"class": "reduce", "mode": "sum", "axis": "stag:time:var:extern_data:classes", "from": ["loc"]},
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


def test_prev_guess_follows_copy_and_eval_to_the_choice(session):
    """As published segmental hard-attention configs: ``t`` (copy of ``t1``, an eval of the choice ``t0``) is used as
    ``prev:t`` in an int32 ``tf.minimum`` with a ``base:`` length before ``t`` is built; the guessed ``prev:t`` is the
    choice's int32 labels (a float32 guess made TensorFlow reject the op). In training the choice gives the target:
    ``t = max(classes[i], min(prev_t + 1, len - 1))`` with ``prev_t = -1`` at step 0."""
    import numpy as np

    from tf_net_helpers import make_feed

    unit = {
        "prev_t_plus1": {"class": "eval", "from": "prev:t", "eval": "source(0) + 1"},
        "t_start": {"class": "eval", "from": ["prev_t_plus1", "base:len"], "eval": "tf.minimum(source(0), source(1) - 1)"},
        "prob": {"class": "softmax", "from": "base:enc_last", "n_out": 5},
        "t0": {"class": "choice", "from": "prob", "target": "classes", "beam_size": 1, "initial_output": -1},
        "t1": {"class": "eval", "from": ["t0", "t_start"], "eval": "tf.maximum(source(0), source(1))"},
        "t": {"class": "copy", "from": "t1", "initial_output": -1},
        "output": {"class": "copy", "from": "t"}}
    net = build_net({"len": {"class": "length", "from": "data"},
                     "enc_last": {"class": "reduce", "mode": "mean", "axes": "T", "from": "data"},
                     "output": {"class": "rec", "from": [], "target": "classes", "unit": unit}},
                    {"data": {"dim": 3}, "classes": {"dim": 5, "sparse": True}})
    assert net.layers["output"].output.dtype == "int32"
    x = np.zeros((2, 4, 3), "float32")
    classes = np.array([[0, 0, 3, 1], [2, 0, 0, 0]])
    lens = [4, 3]  # data and classes (the loop runs over the classes; "len" is the length of data)
    out_t = net.layers["output"].output.copy_as_batch_major()
    session.run(tf.compat.v1.global_variables_initializer())
    out = session.run(out_t.placeholder, make_feed(net, {"data": x, "classes": classes}, {"data": lens, "classes": lens}))
    expected = np.zeros((2, 4), "int64")
    for b in range(2):
        prev = -1
        for i in range(lens[b]):
            prev = max(classes[b, i], min(prev + 1, lens[b] - 1))
            expected[b, i] = prev
    np.testing.assert_array_equal(out[0], expected[0])
    np.testing.assert_array_equal(out[1, :3], expected[1, :3])

"""Losses of sub layers of a beam search built with the train flag (as in training with
``search_train_network_layers``): a loss with a target is built too, computed over the hypotheses each step had
(the reference's loss inside the loop); a target of another sub layer (``"layer:x"``, e.g. soft targets from
``optimal_completions``) is read per hypothesis and the ``end`` layer ends the loop; a target of the extern data
makes the loop run for the target's length and is compared with each hypothesis. All numbers were observed by
running the reference on the same network, inputs and parameter values."""

import numpy as np
import tensorflow as tf

import returnn.tf.layers  # noqa: F401
from tf_net_helpers import search_net_with_uniform_params


def _net(target, end_value):
    unit = {
        "output": {"class": "choice", "target": "classes", "beam_size": 3, "from": "prob"},
        "end": {"class": "compare", "from": "output", "value": end_value},
        "emb": {"class": "linear", "activation": None, "from": "output", "n_out": 4},
        "s": {"class": "linear", "activation": "tanh", "from": ["prev:emb", "base:enc"], "n_out": 4},
        "prob": {"class": "softmax", "from": "s", "target": target, "loss": "ce"},
        "edt": {"class": "edit_distance_table", "from": "output", "target": "layer:base:data:classes"},
        "oc": {"class": "optimal_completions", "from": "prev:edt", "target": "layer:base:data:classes"},
        "soft": {"class": "eval", "eval": "tf.nn.softmax(-2. * tf.cast(source(0), tf.float32))", "from": "oc",
                 "out_type": {"dtype": "float32"}},
    }
    return {"enc": {"class": "reduce", "mode": "mean", "axis": "T", "from": "data"},
            "dec": {"class": "rec", "from": [], "max_seq_len": 6, "target": "classes", "unit": unit},
            "decision": {"class": "decide", "from": "dec", "loss": "edit_distance", "target": "classes"}}


def _run(target, end_value):
    graph = tf.Graph()
    with graph.as_default(), tf.compat.v1.Session(graph=graph) as session:
        built = search_net_with_uniform_params(
            session, {"extern_data": {"data": {"dim": 3}, "classes": {"dim": 5, "sparse": True}},
                      "behavior_version": 12}, _net(target, end_value), train_flag=True)
        net, params, loss, grads, feed = (built[k] for k in ("net", "params", "loss", "grads", "feed"))
        dec = net.get_layer("dec")
        assert "dec/prob" in net.losses_dict
        values = session.run({"out": dec.output.placeholder, "lens": dec.output.get_sequence_lengths(), "loss": loss,
                              "grads": [tf.convert_to_tensor(g) for g in grads]}, feed)
        values["grads"] = dict(zip(sorted(params), [float(np.abs(g).sum()) for g in values["grads"]]))
        return values


GRAD_NAMES = ["dec/rec/emb/W", "dec/rec/emb/b", "dec/rec/prob/W", "dec/rec/prob/b", "dec/rec/s/W", "dec/rec/s/b"]


def test_soft_target_of_a_sub_layer_per_hypothesis():
    v = _run("layer:soft", 2)
    # the end layer ends the loop: hypotheses end at different steps, only their frames count
    np.testing.assert_array_equal(v["lens"], [6, 5, 4, 0, 1, 1])
    np.testing.assert_array_equal(v["out"].T, [[1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 2], [1, 1, 1, 1, 2, 0],
                                               [2, 0, 0, 0, 0, 0], [3, 2, 0, 0, 0, 0], [1, 2, 0, 0, 0, 0]])
    np.testing.assert_allclose(v["loss"], 27.158148, rtol=1e-5)
    np.testing.assert_allclose([v["grads"][k] for k in GRAD_NAMES],
                               [3.10065, 1.43429, 19.32753, 5.64341, 11.22631, 1.56108], rtol=1e-4)


def test_extern_target_runs_for_its_length_compared_per_hypothesis():
    v = _run("classes", 0)
    np.testing.assert_array_equal(v["lens"], [4, 4, 4, 2, 2, 2])
    np.testing.assert_array_equal(v["out"].T, [[1, 1, 1, 1], [1, 1, 2, 1], [1, 2, 1, 1], [2, 2, 2, 0], [2, 3, 2, 0],
                                               [2, 2, 3, 0]])
    np.testing.assert_allclose(v["loss"], 29.722488, rtol=1e-5)
    np.testing.assert_allclose([v["grads"][k] for k in GRAD_NAMES],
                               [4.79600, 2.47101, 33.26816, 10.47528, 16.22210, 2.32992], rtol=1e-4)

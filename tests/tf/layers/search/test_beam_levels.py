"""In a search: ``decide_keep_beam`` of a layer keeps the rows of that layer's own choice level (as the reference,
observed: ``[B*K1]`` after the first of two choices, the previous step's ``[B*K2]`` before it); and a ``prev:``
value over an axis of a layer outside the loop has that axis per hypothesis (lengths ``[B*K]``)."""

import numpy as np
import tensorflow as tf

from returnn.config import Config
from returnn.tf.network import TFNetwork


def test_decide_keep_beam_keeps_the_rows_of_its_level(session):
    unit = {
        "lin1": {"class": "linear", "from": "prev:choice2", "activation": "relu", "n_out": 4},
        "prob1": {"class": "linear", "activation": "log_softmax", "from": "lin1", "n_out": 5},
        "choice1": {"class": "choice", "from": "prob1", "input_type": "log_prob", "beam_size": 2,
                    "target": "target1", "initial_output": 0},
        "lin2": {"class": "linear", "from": "choice1", "activation": "relu", "n_out": 4},
        "prob2": {"class": "linear", "activation": "log_softmax", "from": "lin2", "n_out": 5},
        "choice2": {"class": "choice", "from": "prob2", "input_type": "log_prob", "beam_size": 3,
                    "target": "target2", "initial_output": 0},
        "output": {"class": "copy", "from": "choice2"},
    }
    for name in ("lin1", "choice1", "lin2", "choice2"):
        unit[f"{name}_raw"] = {"class": "decide_keep_beam", "from": name, "is_output_layer": True}
    config = Config({"extern_data": {"data": {"dim": 2}, "target1": {"dim": 5, "sparse": True},
                                     "target2": {"dim": 5, "sparse": True}}})
    net = TFNetwork(config=config, search_flag=True, train_flag=False)
    net.construct_from_dict({"output": {"class": "rec", "from": "data", "unit": unit}})
    session.run(tf.compat.v1.global_variables_initializer())
    data = net.extern_data.data["data"]
    feed = {data.placeholder: np.zeros((2, 4, 2), "float32"), data.size_placeholder[0]: [4, 4]}
    values = session.run({name: net.get_layer(f"output/{name}_raw").output.placeholder
                          for name in ("lin1", "choice1", "lin2", "choice2")}, feed_dict=feed)
    assert values["lin1"].shape == (4, 2 * 3, 4)  # before choice1: the previous step's hypotheses (choice2's)
    assert values["choice1"].shape == values["lin2"].shape[:2] == (4, 2 * 2)
    assert values["choice2"].shape == (4, 2 * 3)


def test_prev_value_over_a_base_axis_is_per_hypothesis(session):
    unit = {
        "att_in": {"class": "combine", "kind": "add", "from": ["base:enc", "emb"]},
        "energy": {"class": "linear", "from": "att_in", "n_out": 1, "activation": None},
        "pos": {"class": "reduce", "from": "prev:att_weights", "mode": "argmax", "axis": "t"},
        "att_weights": {"class": "softmax_over_spatial", "from": "energy", "window_start": "pos", "window_size": 3},
        "att": {"class": "generic_attention", "weights": "att_weights", "base": "base:enc"},
        "emb": {"class": "linear", "from": "prev:output", "n_out": 4, "activation": None},
        "prob": {"class": "softmax", "from": ["att", "emb"], "target": "classes"},
        "output": {"class": "choice", "from": "prob", "beam_size": 3, "target": "classes", "initial_output": 0},
        "end": {"class": "compare", "from": "output", "value": 0},
    }
    config = Config({"extern_data": {"data": {"dim": 2}, "classes": {"dim": 5, "sparse": True}}})
    net = TFNetwork(config=config, search_flag=True, train_flag=False)
    net.construct_from_dict({"enc": {"class": "linear", "from": "data", "n_out": 4},
                             "output": {"class": "rec", "from": [], "target": "classes", "max_seq_len": 4,
                                        "unit": unit}})
    session.run(tf.compat.v1.global_variables_initializer())
    data = net.extern_data.data["data"]
    feed = {data.placeholder: np.random.RandomState(2).normal(size=(2, 5, 2)), data.size_placeholder[0]: [5, 3]}
    out = session.run(net.layers["output"].output.placeholder, feed_dict=feed)
    assert out.shape[1] == 2 * 3


def test_prev_value_keeps_the_rows_of_its_choice(session):
    """``prev:lin2`` (after the first of two choices) keeps the first choice's rows of the previous step, as the
    reference (observed, test_search_multi_choice): a layer reading only it, ``lin1a``, is ``[B*K1]``, the value
    ``lin2`` had in the previous step; ``lin1b`` reads it in the rows of the previous step's second choice."""
    unit = {
        "lin1": {"class": "linear", "from": "prev:choice2", "activation": "relu", "n_out": 4},
        "lin1a": {"class": "eval", "from": "prev:lin2", "eval": "source(0) * -0.5"},
        "lin1b": {"class": "combine", "kind": "add", "from": ["lin1", "lin1a"]},
        "prob1": {"class": "linear", "activation": "log_softmax", "from": "lin1b", "n_out": 5},
        "choice1": {"class": "choice", "from": "prob1", "input_type": "log_prob", "beam_size": 2,
                    "target": "target1", "initial_output": 0},
        "lin2": {"class": "linear", "from": "choice1", "activation": "relu", "n_out": 4},
        "prob2": {"class": "linear", "activation": "log_softmax", "from": "lin2", "n_out": 5},
        "choice2": {"class": "choice", "from": "prob2", "input_type": "log_prob", "beam_size": 3,
                    "target": "target2", "initial_output": 0},
        "src2": {"class": "choice_get_src_beams", "from": "choice2"},
        "output": {"class": "copy", "from": "choice2"},
    }
    names = ("lin1", "lin1a", "lin1b", "lin2", "src2")
    for name in names:
        unit[f"{name}_raw"] = {"class": "decide_keep_beam", "from": name, "is_output_layer": True}
    config = Config({"extern_data": {"data": {"dim": 2}, "target1": {"dim": 5, "sparse": True},
                                     "target2": {"dim": 5, "sparse": True}}})
    net = TFNetwork(config=config, search_flag=True, train_flag=False)
    net.construct_from_dict({"output": {"class": "rec", "from": "data", "unit": unit}})
    session.run(tf.compat.v1.global_variables_initializer())
    data = net.extern_data.data["data"]
    feed = {data.placeholder: np.zeros((2, 4, 2), "float32"), data.size_placeholder[0]: [4, 4]}
    v = session.run({name: net.get_layer(f"output/{name}_raw").output.placeholder for name in names},
                    feed_dict=feed)
    assert v["lin1a"].shape == v["lin2"].shape == (4, 2 * 2, 4)  # the first choice's rows
    assert v["lin1"].shape == v["lin1b"].shape == (4, 2 * 3, 4)
    np.testing.assert_allclose(v["lin1a"][0], 0.0)  # the initial output of lin2
    np.testing.assert_allclose(v["lin1a"][1:], -0.5 * v["lin2"][:-1], rtol=1e-6)
    # lin1b: lin1a gathered by the previous step's second choice's source rows (into its [B*K2] rows)
    for t in range(1, 4):
        rows = (np.arange(2)[:, None] * 2 + v["src2"][t - 1].reshape(2, 3)).reshape(-1)
        np.testing.assert_allclose(v["lin1b"][t], v["lin1"][t] + v["lin1a"][t][rows], rtol=1e-5, atol=1e-6)

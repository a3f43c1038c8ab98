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

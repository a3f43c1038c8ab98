"""The seeds of a run (graph-level and network seed) and the op seeds of the parameter initializers, against values
observed by running the reference (the ``seed``/``seed2`` attributes of its initializers' random ops)."""

import tensorflow as tf

from returnn.config import Config
from returnn.tf.engine.seeds import run_seeds
from returnn.tf.network import TFNetwork


def test_run_seeds_observed():
    assert run_seeds(None) == (42, 1)
    assert run_seeds(0) == (23, 10)
    assert run_seeds(7) == (93, 45)
    assert run_seeds(42) == (443, 220)
    assert run_seeds(536870912) == (1073741847, 536870922)
    assert run_seeds(1073741824) == (23, 1073741834)


def _init_seeds(net_dict, rnd_seed=42):
    graph = tf.Graph()
    with graph.as_default():
        config = Config({"extern_data": {"data": {"dim": 5}}})
        net = TFNetwork(config=config, train_flag=True, rnd_seed=rnd_seed)
        net.construct_from_dict(net_dict)
        return {op.name.split("/Initializer/")[0]: op.get_attr("seed2") for op in graph.get_operations()
                if "/Initializer/" in op.name and op.type == "RandomUniform"}


def _lin(src, **kwargs):
    return dict({"class": "linear", "from": src, "n_out": 4, "activation": "tanh"}, **kwargs)


def test_rec_subnet_param_seeds_observed():
    seeds = _init_seeds({"output": {"class": "rec", "from": "data", "unit": {
        "output": _lin(["prev:output", "data:source"]),
        "y": _lin(["prev:y", "y_in"], is_output_layer=True),
        "x": _lin(["prev:x", "x_in"], is_output_layer=True),
        "y_in": _lin("data:source"), "x_in": _lin("data:source")}}})
    assert seeds == {
        "output/rec/y_in/W": 1449071958, "output/rec/x_in/W": 154696110,  # moved out, before the loop
        "output/rec/output/W": 1952926171, "output/rec/x/W": 637209641, "output/rec/y/W": 1428643706}  # loop


def test_rec_subnet_then_layer_seeds_observed():
    seeds = _init_seeds({
        "lstm": {"class": "rec", "from": "data", "unit": {
            "input": {"class": "copy", "from": ["prev:output", "data:source"]},
            "input_gate": _lin("input", activation="sigmoid"),
            "forget_gate": _lin("input", activation="sigmoid"),
            "output_gate": _lin("input", activation="sigmoid"),
            "cell_in": _lin("input"),
            "c": {"class": "eval", "from": ["input_gate", "cell_in", "forget_gate", "prev:c"],
                  "eval": "source(0) * source(1) + source(2) * source(3)"},
            "output": {"class": "eval", "from": ["output_gate", "c"], "eval": "source(0) * source(1)"}}},
        "output": {"class": "linear", "from": "lstm", "n_out": 2, "is_output_layer": True}}, rnd_seed=1)
    assert seeds == {"lstm/rec/output_gate/W": 1028862084, "lstm/rec/input_gate/W": 1938847964,
                     "lstm/rec/cell_in/W": 760700860, "lstm/rec/forget_gate/W": 2029572362,
                     "output/W": 1857819720}


def test_string_unit_one_seed_for_all_weights():
    seeds = _init_seeds({"output": {"class": "rec", "unit": "gru", "from": "data", "n_out": 3,
                                    "is_output_layer": True}})
    assert seeds == {"output/rec/gru_cell/gates/kernel": 1608637542, "output/rec/gru_cell/candidate/kernel": 1608637542}


def test_rec_unit_reading_base_layers_seeds_observed():
    """demo-tf-enc-dec's network (smaller dims): the rec layer ``output`` with ``"from": []`` draws its loop seed
    before the base layers its unit reads are built; its LSTM ``s`` reading ``base:input_last`` (no time axis) runs
    after the loop, seeded from the moved-out layers' generator (observed in the reference's initializers)."""
    unit = "standardlstm"
    net_dict = {
        "input_embed": {"class": "linear", "activation": None, "from": "data", "n_out": 7},
        "input": {"class": "rec", "unit": unit, "from": "input_embed", "n_out": 7},
        "input_last": {"class": "get_last_hidden_state", "from": "input", "n_out": 14},
        "output": {"class": "rec", "from": [], "target": "classes0", "unit": {
            "output_embed": {"class": "linear", "activation": None, "from": "output", "n_out": 7},
            "s": {"class": "rec", "unit": unit, "from": ["prev:output_embed", "base:input_last"], "n_out": 7},
            "prob": {"class": "softmax", "from": "s", "target": "classes0", "loss": "ce"},
            "output": {"class": "choice", "from": "prob", "target": "classes0", "beam_size": 8},
            "end": {"class": "compare", "from": "output", "value": 3}}},
        "target_with_eos_": {"class": "reinterpret_data", "from": "data:classes", "increase_sparse_dim": 1},
        "target_with_eos": {"class": "postfix_in_time", "postfix": 3, "from": "target_with_eos_",
                            "register_as_extern_data": "classes0"}}
    graph = tf.Graph()
    with graph.as_default():
        config = Config({"extern_data": {"data": {"dim": 8, "sparse": True}, "classes": {"dim": 3, "sparse": True}}})
        net = TFNetwork(config=config, train_flag=True, rnd_seed=1)
        net.construct_from_dict(net_dict)
        seeds = {op.name.split("/Initializer/")[0]: op.get_attr("seed2") for op in graph.get_operations()
                 if "/Initializer/" in op.name and op.type == "RandomUniform"}
        s_layer = net.get_layer("output/s")
    assert seeds == {"input_embed/W": 2135392491, "input/rec/lstm_cell/kernel": 946286476,
                     "output/rec/output_embed/W": 873768326, "output/rec/s/rec/lstm_cell/kernel": 867542370,
                     "output/rec/prob/W": 1767692546}
    assert s_layer.output.have_time_axis()  # moved out of the loop: the whole sequence

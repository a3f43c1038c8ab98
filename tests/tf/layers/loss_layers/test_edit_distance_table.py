"""edit_distance_table and optimal_completions in a beam search loop (beam 3, blank 3, hypotheses ending early):
the outputs as observed from the reference with the same params; outside a loop: an error."""

import numpy as np
import pytest
import tensorflow as tf

import returnn.tf.layers  # noqa: F401
from returnn.config import Config
from returnn.errors import LayerArgError
from returnn.tf.network import TFNetwork

EXTERN = {"classes": {"dim": 5, "sparse": True}, "hyp": {"dim": 5, "sparse": True}}
_SHAPES = {"output/rec/emb1/W": (5, 3), "output/rec/emb1/b": (3,), "output/rec/emb/W": (8, 3),
           "output/rec/emb/b": (3,), "output/rec/prob/W": (3, 5), "output/rec/prob/b": (5,)}
_R = np.random.RandomState(7)
PARAMS = {k: _R.normal(size=s).astype("float32") for k, s in sorted(_SHAPES.items())}
TABLE = {"class": "edit_distance_table", "from": "output", "target": "layer:base:data:classes", "blank_idx": 3,
         "is_output_layer": True}
NET = {
    "output": {"class": "rec", "from": [], "target": "hyp", "max_seq_len": 5, "unit": {
        "ocf": {"class": "eval", "from": "oc", "eval": "tf.cast(source(0), tf.float32)",
                "out_type": {"dtype": "float32"}},
        "emb1": {"class": "linear", "activation": None, "n_out": 3, "from": "prev:output"},
        "emb": {"class": "linear", "activation": None, "n_out": 3, "from": ["emb1", "prev:ocf"]},
        "prob": {"class": "softmax", "from": "emb", "target": "hyp"},
        "output": {"class": "choice", "from": "prob", "target": "hyp", "beam_size": 3, "initial_output": 0},
        "end": {"class": "compare", "from": "output", "value": 0},
        "edt": TABLE,
        "oc": {"class": "optimal_completions", "from": "prev:edt", "target": "layer:base:data:classes",
               "is_output_layer": True, "blank_idx": 3}}},
    "edt": {"class": "copy", "from": "output/edt", "is_output_layer": True},
    "oc": {"class": "copy", "from": "output/oc", "is_output_layer": True},
}


def test_in_beam_search_observed_from_reference(session):
    net = TFNetwork(config=Config({"extern_data": EXTERN}), train_flag=False, eval_flag=True, search_flag=True)
    net.construct_from_dict(NET)
    session.run(tf.compat.v1.global_variables_initializer())
    for v in tf.compat.v1.global_variables():
        if v.name[:-2] in PARAMS:
            v.load(PARAMS[v.name[:-2]], session)
    data = net.extern_data.data
    feed = {data["classes"].placeholder: [[1, 2, 3, 0], [4, 2, 0, 0]], data["classes"].size_placeholder[0]: [4, 2],
            data["hyp"].placeholder: np.zeros((2, 5), "int32"), data["hyp"].size_placeholder[0]: [5, 5]}
    out, edt, oc = session.run([net.get_layer(n).output.placeholder for n in ("output", "edt", "oc")], feed)
    assert out.tolist() == [[0, 3, 3, 0, 3, 3], [0, 4, 4, 0, 3, 3], [0, 3, 3, 0, 3, 3], [0, 4, 4, 0, 3, 3],
                            [0, 2, 4, 0, 3, 4]]
    # hypothesis 0 ended at its first label: its row and completions stay
    assert edt[:, 0].tolist() == [[1, 1, 2, 3, 3]] * 5 and oc[1:, 0].tolist() == [[1, 1, 1, 1, 1]] * 4
    assert edt[-1].tolist() == [[1, 1, 2, 3, 3], [3, 3, 2, 3, 4], [3, 3, 3, 3, 4], [1, 1, 2, 2, 2],
                                [0, 1, 2, 2, 2], [1, 0, 1, 1, 1]]
    assert oc[-1].tolist() == [[1, 1, 1, 1, 1], [3, 2, 2, 2, 3], [3, 2, 2, 2, 3], [1, 1, 1, 1, 1],
                               [1, 1, 1, 0, 0], [1, 1, 1, 0, 0]]
    assert oc[0].tolist() == [[1, 0, 1, 0, 1]] * 3 + [[1, 1, 1, 0, 0]] * 3  # from the initial row 0 .. S


def test_outside_loop_rejected(session):
    net = TFNetwork(config=Config({"extern_data": EXTERN}), train_flag=False)
    with pytest.raises(LayerArgError) as info:
        net.construct_from_dict({"output": dict(TABLE, **{"from": "data:hyp", "target": "classes"})})
    assert info.value.arg == "from" and "loop" in str(info.value)

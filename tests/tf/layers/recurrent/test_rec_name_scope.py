"""The variable names of a ``rec`` layer with a string unit and an explicit ``name_scope``: the unit's params are
directly in that scope (no ``rec/`` level, which a layer without ``name_scope`` has), as observed from the reference
(RETURNN in /tmp/refvenv: ``lm/rec/W`` without it, ``x/W`` with ``"name_scope": "x"``)."""

import pytest
import tensorflow as tf

from tf_net_helpers import build_net

tf.compat.v1.disable_eager_execution()


def _var_names(net_dict):
    with tf.Graph().as_default() as graph:
        build_net({name: dict(desc, is_output_layer=True) for name, desc in net_dict.items()},
                  extern_data={"data": {"dim": 4}})
        return sorted(v.op.name for v in graph.get_collection(tf.compat.v1.GraphKeys.GLOBAL_VARIABLES))


def _rec(unit="lstm", **kwargs):
    return {"class": "rec", "unit": unit, "n_out": 3, "from": "data", **kwargs}


# observed from the reference
@pytest.mark.parametrize("desc, expected", [
    (_rec(), ["lm/rec/W", "lm/rec/W_re", "lm/rec/b"]),
    (_rec(name_scope="x"), ["x/W", "x/W_re", "x/b"]),
    (_rec(name_scope="/x"), ["x/W", "x/W_re", "x/b"]),
    (_rec(name_scope="a/b"), ["a/b/W", "a/b/W_re", "a/b/b"]),
    (_rec(name_scope=""), ["W", "W_re", "b"]),
    (_rec("nativelstm2", name_scope="x"), ["x/W", "x/W_re", "x/b"]),
    (_rec("lstmp", name_scope="x"), ["x/W", "x/W_re", "x/b"]),
    (_rec("gru", name_scope="x"), ["x/gru_cell/candidate/bias", "x/gru_cell/candidate/kernel",
                                   "x/gru_cell/gates/bias", "x/gru_cell/gates/kernel"]),
    (_rec("standardlstm", name_scope="x"), ["x/lstm_cell/bias", "x/lstm_cell/kernel"]),
    (_rec("zoneoutlstm", name_scope="x"), ["x/lstm_cell/bias", "x/lstm_cell/kernel"]),
    (_rec(name_scope="x", initial_state="var"), ["x/W", "x/W_re", "x/b", "x/initial_c", "x/initial_h"]),
    (_rec(name_scope="x", initial_state="keep_over_epoch"),
     ["x/W", "x/W_re", "x/b", "x/keep_state_c", "x/keep_state_h"]),
], ids=["none", "x", "abs", "nested", "empty", "nativelstm2", "lstmp", "gru", "standardlstm", "zoneoutlstm", "var",
        "keep_state"])
def test_string_unit_params_directly_in_name_scope(desc, expected):
    assert _var_names({"lm": desc}) == expected


def test_layer_params_keys_without_scope():
    """the layer's ``params`` keys are the same with and without ``name_scope`` (as the reference's)"""
    with tf.Graph().as_default():
        net = build_net({"lm": _rec(name_scope="x", is_output_layer=True)}, extern_data={"data": {"dim": 4}})
        assert sorted(net.get_layer("lm").params) == ["W", "W_re", "b"]
        assert sorted(v.op.name for v in net.get_params_list()) == ["x/W", "x/W_re", "x/b"]


def test_in_loop_and_in_subnetwork():
    """inside a rec loop (moved out or not) and inside a subnetwork, the name scope is relative to the enclosing
    layer's scope (``""``: that scope itself), again without a ``rec/`` level"""
    in_loop = {"lm": {"class": "rec", "from": "data", "unit": {
        "l": {"class": "rec", "unit": "lstm", "n_out": 3, "from": ["data:source", "prev:output"], "name_scope": "y"},
        "m": {"class": "rec", "unit": "lstm", "n_out": 3, "from": ["data:source", "prev:output"], "name_scope": ""},
        "k": {"class": "rec", "unit": "lstm", "n_out": 3, "from": "data:source", "name_scope": "/abs"},
        "n": {"class": "rec", "unit": "lstm", "n_out": 3, "from": ["data:source", "prev:output"]},
        "output": {"class": "copy", "from": ["l", "m", "k", "n"]}}}}
    names = _var_names(in_loop)
    assert names == sorted([f"{p}/{v}" for p in ("abs", "lm/rec", "lm/rec/y", "lm/rec/n/rec") for v in ("W", "W_re", "b")])
    in_sub = {"lm": {"class": "subnetwork", "from": "data", "subnetwork": {
        "r": {"class": "rec", "unit": "lstm", "n_out": 3, "from": "data", "name_scope": "q"},
        "r2": {"class": "rec", "unit": "lstm", "n_out": 3, "from": "data", "name_scope": ""},
        "output": {"class": "copy", "from": ["r", "r2"]}}}}
    assert _var_names(in_sub) == sorted(f"{p}/{v}" for p in ("lm", "lm/q") for v in ("W", "W_re", "b"))


def test_subnetwork_unit_with_name_scope_unchanged():
    """a unit dict with ``name_scope``: its layers' scopes are in it (``x/l/W``), as before and as the reference"""
    unit = {"l": {"class": "linear", "activation": None, "n_out": 3, "from": ["data:source", "prev:l"]},
            "output": {"class": "copy", "from": "l"}}
    assert _var_names({"lm": {"class": "rec", "from": "data", "name_scope": "x", "unit": unit}}) == ["x/l/W", "x/l/b"]
    assert _var_names({"lm": {"class": "rec", "from": "data", "name_scope": "", "unit": unit}}) == ["l/W", "l/b"]

"""The variable names of a ``rec`` layer with a string unit and an explicit ``name_scope``: the unit's params are
directly in that scope (no ``rec/`` level, which a layer without ``name_scope`` has), as observed from the reference
(RETURNN in /tmp/refvenv: ``lm/rec/W`` without it, ``x/W`` with ``"name_scope": "x"``)."""

import numpy as np
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


@pytest.mark.parametrize("name_scope, prefix", [(None, "lm/rec/l"), ("y", "lm/rec/y"), ("", "lm/rec")])
def test_in_loop_initial_state_var_names(name_scope, prefix):
    """``"initial_state": "var"`` in the loop: the variables are in the layer's scope without ``rec/`` (the unit's
    params keep it without ``name_scope``), as the reference (observed)"""
    desc = {"class": "rec", "unit": "lstm", "n_out": 3, "from": ["data:source", "prev:output"],
            "initial_state": "var"}
    if name_scope is not None:
        desc["name_scope"] = name_scope
    names = _var_names({"lm": {"class": "rec", "from": "data", "unit": {
        "l": desc, "output": {"class": "copy", "from": "l"}}}})
    params_prefix = prefix + "/rec" if name_scope is None else prefix
    assert names == sorted([f"{prefix}/initial_c", f"{prefix}/initial_h"]
                           + [f"{params_prefix}/{v}" for v in ("W", "W_re", "b")])


@pytest.mark.parametrize("in_loop, expected", [
    # observed from the reference: params loaded uniform [-1, 1) (seed 1) in sorted name order, then the input
    (True, [[0.0352, 0.0267, -0.1824], [0.0411, -0.0734, 0.4186], [0.1413, -0.0653, 0.2080]]),
    (False, [[-0.4799, 0.4288, -0.1033], [-0.4353, 0.2922, -0.1267], [-0.3501, 0.1358, -0.0079]]),
])
def test_initial_state_var_values_in_loop_and_moved_out(session, in_loop, expected):
    src = ["data:source", "prev:output"] if in_loop else ["data:source"]
    net = build_net({"output": {"class": "rec", "from": "data", "unit": {
        "l": {"class": "rec", "unit": "lstm", "n_out": 3, "from": src, "initial_state": "var"},
        "output": {"class": "copy", "from": "l"}}}}, extern_data={"data": {"dim": 2}}, train_flag=False)
    session.run(tf.compat.v1.global_variables_initializer())
    rs = np.random.RandomState(1)
    params = sorted(net.get_params_list(), key=lambda v: v.name)
    assert [v.name.split("/")[-1] for v in params if "initial" in v.name] == ["initial_c:0", "initial_h:0"]
    for v in params:
        v.load(rs.uniform(-1, 1, v.shape.as_list()).astype("float32"), session)
    x = rs.uniform(-1, 1, (2, 3, 2)).astype("float32")
    data = net.extern_data.data["data"]
    y = session.run(net.get_layer("output").output.copy_as_batch_major().placeholder,
                    {data.placeholder: x, data.size_placeholder[0]: [3, 2]})
    np.testing.assert_allclose(y[0], expected, atol=2e-4)


@pytest.mark.parametrize("unit", ["zoneoutlstm", "standardlstm"])
@pytest.mark.parametrize("name_scope, prefix", [(None, "lm/rec/.95.s/rec"), ("s/rec", "lm/rec/s/rec"),
                                                ("z", "lm/rec/z"), ("", "lm/rec")])
def test_rnn_cell_in_loop_weights_in_name_scope(unit, name_scope, prefix):
    """``rnn_cell`` in a loop: ``<loop>/rec/<layer>/rec/lstm_cell/...``; with ``name_scope`` directly in it (a
    published decoder uses ``"name_scope": "s/rec"`` for an ``rnn_cell`` to load an older rec layer's weights), as the
    reference (observed)"""
    cell = {"class": "rnn_cell", "unit": unit, "n_out": 3, "from": ["data:source", "prev:output"]}
    if unit == "zoneoutlstm":
        cell["unit_opts"] = {"zoneout_factor_cell": 0.15, "zoneout_factor_output": 0.05}
    if name_scope is not None:
        cell["name_scope"] = name_scope
    names = _var_names({"lm": {"class": "rec", "from": "data", "unit": {
        "_s": cell, "output": {"class": "copy", "from": "_s"}}}})
    assert names == [f"{prefix}/lstm_cell/bias", f"{prefix}/lstm_cell/kernel"]


@pytest.mark.parametrize("cls, name, name_scope, move_out, expected", [
    # observed from the reference (the LSTM weights of an rnn_cell stay in "<layer>/rec/lstm_cell")
    ("rnn_cell", "_s", None, False, ["lm/rec/.95.s/initial_c", "lm/rec/.95.s/initial_h"]),
    ("rnn_cell", "_s", None, True, ["lm/rec/.95.s/rec/initial_c", "lm/rec/.95.s/rec/initial_h"]),
    ("rnn_cell", "s", "y", False, ["lm/rec/y/initial_c", "lm/rec/y/initial_h"]),
    ("rnn_cell", "s", "", False, ["lm/rec/initial_c", "lm/rec/initial_h"]),
    ("rec", "_s", None, False, ["lm/rec/.95.s/initial_c", "lm/rec/.95.s/initial_h"]),
    ("rec", "_s", None, True, ["lm/rec/.95.s/rec/initial_c", "lm/rec/.95.s/rec/initial_h"]),
])
def test_initial_state_var_names_in_loop_and_moved_out(cls, name, name_scope, move_out, expected):
    """``"initial_state": "var"`` of an ``rnn_cell`` (or a string-unit ``rec``) in a loop: directly in the layer's
    scope (the layer name made a valid scope name, ``_s`` -> ``.95.s``); moved out of the loop: in its ``rec/``"""
    desc = {"class": cls, "unit": "LSTMBlock" if cls == "rnn_cell" else "lstm", "n_out": 3,
            "from": "data:source", "initial_state": "var"}
    if name_scope is not None:
        desc["name_scope"] = name_scope
    names = _var_names({"lm": {"class": "rec", "from": "data", "optimize_move_layers_out": move_out, "unit": {
        name: desc, "output": {"class": "copy", "from": name}}}})
    assert [n for n in names if "initial" in n] == expected

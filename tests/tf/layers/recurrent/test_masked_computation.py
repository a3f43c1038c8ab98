"""Tests of ``masked_computation`` and ``unmask``: outside rec layers (selected frames packed on a new time axis),
inside a rec loop (output and unit states held where the mask is false), moved out of the loop (run on the selected
frames, spread back), with ``masked_from``, with a subnetwork unit, and in a beam search. Parameter names are those
observed from the reference; values are checked against numpy or against the reference's outputs on the same
inputs and parameter values (written here)."""

import os
import sys
import zlib

import numpy as np
import pytest
import tensorflow as tf

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "ops", "rnn"))

from rnn_numpy_ref import tf_lstm_cell_step  # noqa: E402
from tf_net_helpers import build_net, make_feed  # noqa: E402

from returnn.config import Config  # noqa: E402
from returnn.errors import LayerArgError  # noqa: E402
from returnn.tf.network import TFNetwork  # noqa: E402

tf.compat.v1.disable_eager_execution()

EXT = {"data": {"dim": 3}}
MASK_TOP = {"r": {"class": "reduce", "mode": "max", "axis": "F", "from": "data"},
            "m": {"class": "compare", "from": "r", "value": 1.0, "kind": "greater"}}
MASK_LOOP = {"r": {"class": "reduce", "mode": "max", "axis": "F", "from": "data:source"},
             "m": {"class": "compare", "from": "r", "value": 1.0, "kind": "greater"}}


def _inputs():
    x = np.random.RandomState(1).normal(size=(2, 5, 3)).astype("float32")
    return x, np.array([5, 4], "int32")


def _selected(x, lens):
    return (x.max(-1) > 1.0) & (np.arange(x.shape[1])[None] < lens[:, None])


def _load_params(session, scale=0.5):
    """deterministic values by variable name (as the runs of the reference whose outputs are written here)"""
    values = {}
    for var in tf.compat.v1.global_variables():
        name = var.name[:-2]
        values[name] = np.random.RandomState(zlib.crc32(name.encode()) % 2 ** 31).normal(
            size=var.shape.as_list()).astype("float32") * scale
        var.load(values[name], session)
    return values


def _run(session, net, x, lens, layer="output"):
    out = net.get_layer(layer).output
    return session.run([out.copy_as_batch_major().placeholder, out.get_sequence_lengths()],
                       feed_dict=make_feed(net, {"data": x}, {"data": lens}))


@pytest.mark.parametrize("unit,params", [
    ({"class": "copy"}, []),
    ({"class": "linear", "activation": None, "n_out": 2}, ["output/W", "output/b"]),
    ({"class": "rec", "unit": "nativelstm2", "n_out": 2}, ["output/rec/W", "output/rec/W_re", "output/rec/b"]),
])
def test_outside_rec_packs_selected_frames(session, unit, params):
    net = build_net(dict(MASK_TOP, output={"class": "masked_computation", "mask": "m", "from": "data", "unit": unit}),
                    extern_data=EXT, train_flag=False)
    out = net.get_layer("output").output
    assert out.is_time_major and out.get_time_dim_tag().description == "output:masked:time"  # as the reference
    assert sorted(p.name[:-2] for p in net.get_params_list()) == params
    session.run(tf.compat.v1.global_variables_initializer())
    p = _load_params(session)
    x, lens = _inputs()
    x[1, 4] = 3.0  # padding frame: never selected
    y, out_lens = _run(session, net, x, lens)
    sel = _selected(x, lens)
    np.testing.assert_array_equal(out_lens, sel.sum(1))
    for b in range(2):
        packed = x[b][sel[b]]
        if unit["class"] == "linear":
            packed = packed @ p["output/W"] + p["output/b"]
        if unit["class"] == "rec":
            h, c, rows = np.zeros(2), np.zeros(2), []
            for frame in packed:
                j, i, f, o = np.split(frame @ p["output/rec/W"] + h @ p["output/rec/W_re"] + p["output/rec/b"], 4)
                c = 1 / (1 + np.exp(-f)) * c + 1 / (1 + np.exp(-i)) * np.tanh(j)
                h = 1 / (1 + np.exp(-o)) * np.tanh(c)
                rows.append(h)
            packed = np.array(rows).reshape(-1, 2)
        np.testing.assert_allclose(y[b, :len(packed)], packed, atol=1e-5)


def _loop_net(unit, move_out=True, extra_top=None):
    net = {"output": {"class": "rec", "from": "data", "optimize_move_layers_out": move_out,
                      "unit": dict(MASK_LOOP, **unit)},
           "r0": {"class": "reduce", "mode": "max", "axis": "F", "from": "data"},
           "m0": {"class": "compare", "from": "r0", "value": 1.0, "kind": "greater"},
           "packed": {"class": "masked_computation", "mask": "m0", "from": "data", "unit": {"class": "copy"}}}
    net.update(extra_top or {})
    return net


# observed from the reference with these inputs and parameter values (_load_params), batch-major
REF_HELD_LINEAR = [[[-0.88, -1.528], [-0.88, -1.528], [-0.995, -1.421], [2.129, -0.978], [0.525, -0.396]],
                   [[0., 0.], [0., 0.], [1.163, -1.087], [1.163, -1.087], [1.163, -1.087]]]
REF_HELD_LSTM = [[[-0.03, 0.016], [-0.03, 0.016], [-0.028, -0.039], [-0.013, 0.081], [-0.035, -0.148]],
                 [[0., 0.], [0., 0.], [0.064, -0.069], [0.064, -0.069], [0.064, -0.069]]]


@pytest.mark.parametrize("move_out", [True, False])
@pytest.mark.parametrize("kind", ["linear", "rnn_cell", "rnn_cell_masked_from"])
def test_in_rec_loop_holds_values(session, kind, move_out):
    """In the loop or moved out of it, with or without masked_from: the unit's output where the mask is true,
    held otherwise (numpy, and the values observed from the reference)."""
    if kind == "linear":
        unit = {"class": "linear", "n_out": 2, "activation": None}
    else:
        unit = {"class": "rnn_cell", "unit": "standardlstm", "n_out": 2}
    mc = {"class": "masked_computation", "mask": "m", "from": "data:source", "unit": unit}
    if kind == "rnn_cell_masked_from":
        mc["masked_from"] = "base:packed"
        if not move_out:
            pytest.skip("masked_from is for the moved-out computation only")
    net = build_net(_loop_net({"mc": mc, "um": {"class": "unmask", "from": "mc", "mask": "m"},
                               "output": {"class": "copy", "from": ["um", "mc"] if kind == "linear" else ["um"]}},
                              move_out=move_out), extern_data=EXT, train_flag=False)
    cell = net.get_layer("output").cell
    assert ("mc" in cell.loop) == (not move_out)
    session.run(tf.compat.v1.global_variables_initializer())
    p = _load_params(session)
    x = np.random.RandomState(1).normal(size=(2, 5, 3)).astype("float32")
    y, _ = _run(session, net, x, np.array([5, 5], "int32"))
    sel = _selected(x, np.array([5, 5]))
    expected = np.zeros((2, 5, 2))
    for b in range(2):
        held, state = np.zeros(2), None
        if kind == "linear":
            step = None
        else:
            step = tf_lstm_cell_step(p["output/rec/mc/rec/lstm_cell/kernel"], p["output/rec/mc/rec/lstm_cell/bias"])
        for t in range(5):
            if sel[b, t]:
                if step is None:
                    held = x[b, t] @ p["output/rec/mc/W"] + p["output/rec/mc/b"]
                else:
                    held, state = step(x[b, t], state)
            expected[b, t] = held
    np.testing.assert_allclose(y[..., :2], expected, atol=1e-5)
    np.testing.assert_allclose(y[..., :2], REF_HELD_LINEAR if kind == "linear" else REF_HELD_LSTM, atol=2e-3)
    if kind == "linear":
        np.testing.assert_allclose(y[..., 2:], y[..., :2])


@pytest.mark.parametrize("move_out", [True, False])
def test_sparse_input_outside_its_dim_where_not_selected(session, move_out):
    """As the transducer configs' masked label model: the input is the previous output, whose blank (index 4) lies
    outside the non-blank labels' sparse dim (4) that the unit's embedding has; the mask excludes those frames. In
    the loop the unit runs on every frame (its result kept only where selected): no invalid lookup, the held
    embedding rows as when moved out."""
    unit = {"nb": {"class": "compare", "from": "data:source", "value": 4, "kind": "not_equal"},
            "lab": {"class": "reinterpret_data", "from": "data:source", "set_sparse_dim": 4},
            "mc": {"class": "masked_computation", "mask": "nb", "from": "lab",
                   "unit": {"class": "linear", "n_out": 2, "activation": None}},
            "output": {"class": "unmask", "from": "mc", "mask": "nb"}}
    net = build_net({"output": {"class": "rec", "from": "data", "optimize_move_layers_out": move_out,
                                "unit": unit}}, extern_data={"data": {"dim": 5, "sparse": True}}, train_flag=False)
    assert ("mc" in net.get_layer("output").cell.loop) == (not move_out)
    session.run(tf.compat.v1.global_variables_initializer())
    p = _load_params(session)
    labels = np.array([[4, 1, 4, 4, 3], [2, 4, 0, 4, 4]], "int32")
    y, _ = _run(session, net, labels, np.array([5, 5], "int32"))
    expected = np.zeros((2, 5, 2))
    for b in range(2):
        held = np.zeros(2)
        for t in range(5):
            if labels[b, t] != 4:
                held = p["output/rec/mc/W"][labels[b, t]] + p["output/rec/mc/b"]
            expected[b, t] = held
    np.testing.assert_allclose(y, expected, atol=1e-5)


def test_moved_out_unit_reads_outer_loop_layers_on_the_selected_frames(session):
    """A subnetwork unit that reads a layer of the loop (``base:am``, as the transducer configs' masked label LSTM
    reads the encoder frame): moved out of the loop, that layer is read on the selected frames, which gives the
    values of the loop (where the unit sees ``am``'s frame at each selected step)."""
    unit = {"class": "subnetwork", "from": "data", "subnetwork": {
        "lin": {"class": "linear", "activation": None, "from": ["data", "base:am"], "n_out": 3},
        "lstm0": {"class": "rec", "unit": "nativelstm2", "n_out": 2, "from": "lin"},
        "output": {"class": "copy", "from": "lstm0"}}}
    ys = []
    for move_out in (False, True):
        with tf.Graph().as_default() as graph, tf.compat.v1.Session(graph=graph) as sess:
            net = build_net(_loop_net({"am": {"class": "linear", "from": "data:source", "n_out": 2},
                                       "mc": {"class": "masked_computation", "mask": "m", "from": "data:source",
                                              "unit": unit},
                                       "output": {"class": "unmask", "from": "mc", "mask": "m"}},
                                      move_out=move_out), extern_data=EXT, train_flag=False)
            assert ("mc" in net.get_layer("output").cell.loop) == (not move_out)
            sess.run(tf.compat.v1.global_variables_initializer())
            _load_params(sess)
            x, lens = _inputs()
            ys.append(_run(sess, net, x, lens)[0])
    x, lens = _inputs()
    sel, valid = _selected(x, lens), np.arange(x.shape[1])[None] < lens[:, None]
    assert sel.sum() >= 3 and not sel[valid].all()
    np.testing.assert_allclose(ys[1][valid], ys[0][valid], atol=1e-5)  # held on the frames not selected
    assert np.abs(ys[0][sel]).max() > 0.01


SUBNET_UNIT = {"class": "subnetwork", "from": "data", "subnetwork": {
    "input_embed": {"class": "linear", "activation": None, "with_bias": False, "from": "data", "n_out": 4},
    "lstm0": {"class": "rec", "unit": "nativelstm2", "n_out": 3, "from": ["input_embed"]},
    "output": {"class": "copy", "from": "lstm0"}}}
# observed from the reference (sequence 0, frames 0..3, the "a" then "um" features)
REF_SUBNET = [[-1.184, -0.348, 0.029, -0.324, -0.039], [-1.914, -0.537, 0.029, -0.324, -0.039],
              [-2.357, -0.638, 0.002, -0.355, -0.053], [-2.547, -0.617, -0.119, -0.356, 0.002]]


@pytest.mark.parametrize("move_out", [True, False])
def test_subnetwork_unit_with_rec_layer(session, move_out):
    """A subnetwork unit with a nativelstm2 ``rec`` layer (as the transducer configs): the reference's param
    names, the same values in the loop and moved out, equal to the reference's."""
    net = build_net(_loop_net({"mc": {"class": "masked_computation", "mask": "m", "from": "data:source",
                                      "unit": SUBNET_UNIT},
                               "um": {"class": "unmask", "from": "mc", "mask": "m"},
                               "a": {"class": "linear", "from": ["prev:a", "um"], "n_out": 2},
                               "output": {"class": "copy", "from": ["a", "um"]}}, move_out=move_out),
                    extern_data=EXT, train_flag=False)
    assert sorted(p.name[:-2] for p in net.get_params_list()) == [
        "output/rec/a/W", "output/rec/a/b", "output/rec/mc/input_embed/W", "output/rec/mc/lstm0/rec/W",
        "output/rec/mc/lstm0/rec/W_re", "output/rec/mc/lstm0/rec/b"]
    session.run(tf.compat.v1.global_variables_initializer())
    _load_params(session)
    x = np.random.RandomState(1).normal(size=(2, 5, 3)).astype("float32")
    y, _ = _run(session, net, x, np.array([5, 5], "int32"))
    np.testing.assert_allclose(y[0, :4], REF_SUBNET, atol=2e-3)
    assert np.all(y[1, :2, 2:] == 0)  # sequence 1: no frame selected before frame 2


@pytest.mark.parametrize("move_out", [True, False])
def test_subnetwork_unit_rec_layer_with_out_shape(session, move_out):
    """The unit's rec layer with ``out_shape`` {B, F} (one step of the loop): moved out, it runs over the selected
    frames and the out_shape holds with their dim (as the reference's test_reclayer_optimize_out_masked_computation_
    out_shape); the values are those without out_shape."""
    from returnn.tensor import Dim, batch_dim
    lstm_dim = Dim(3, name="lstm-out")
    unit = {**SUBNET_UNIT, "subnetwork": {**SUBNET_UNIT["subnetwork"], "lstm0": {
        "class": "rec", "unit": "nativelstm2", "out_dim": lstm_dim, "from": ["input_embed"],
        "out_shape": {batch_dim, lstm_dim}}}}
    net = build_net(_loop_net({"mc": {"class": "masked_computation", "mask": "m", "from": "data:source",
                                      "unit": unit},
                               "um": {"class": "unmask", "from": "mc", "mask": "m"},
                               "a": {"class": "linear", "from": ["prev:a", "um"], "n_out": 2},
                               "output": {"class": "copy", "from": ["a", "um"]}}, move_out=move_out),
                    extern_data=EXT, train_flag=False)
    assert ("mc" in net.get_layer("output").cell.loop) == (not move_out)
    session.run(tf.compat.v1.global_variables_initializer())
    _load_params(session)
    x = np.random.RandomState(1).normal(size=(2, 5, 3)).astype("float32")
    y, _ = _run(session, net, x, np.array([5, 5], "int32"))
    np.testing.assert_allclose(y[0, :4], REF_SUBNET, atol=2e-3)


def test_beam_search_as_reference(session):
    """A masked rnn_cell in a decoder searched with beam 3: the hypotheses the reference finds."""
    config = Config({"extern_data": {"data": {"dim": 3}, "classes": {"dim": 6, "sparse": True}}})
    unit = {"emb": {"class": "linear", "from": "prev:output", "n_out": 3, "activation": None},
            "m": {"class": "eval", "from": "prev:output", "eval": "tf.equal(tf.math.floormod(source(0), 2), 0)",
                  "out_type": {"dtype": "bool", "sparse": False, "dim": None, "shape": ()}},
            "mc": {"class": "masked_computation", "mask": "m", "from": "emb",
                   "unit": {"class": "rnn_cell", "unit": "standardlstm", "n_out": 4}},
            "um": {"class": "unmask", "from": "mc", "mask": "m"},
            "prob": {"class": "softmax", "from": ["um", "emb", "base:enc"], "target": "classes", "n_out": 6},
            "output": {"class": "choice", "from": "prob", "target": "classes", "beam_size": 3, "initial_output": 0},
            "end": {"class": "compare", "from": "output", "value": 1}}
    net = TFNetwork(config=config, train_flag=False, search_flag=True, eval_flag=True)
    net.construct_from_dict({"enc": {"class": "reduce", "mode": "mean", "axis": "T", "from": "data"},
                             "output": {"class": "rec", "from": [], "max_seq_len": 6, "target": "classes",
                                        "unit": unit},
                             "decision": {"class": "decide", "from": "output", "is_output_layer": True}})
    session.run(tf.compat.v1.global_variables_initializer())
    _load_params(session, scale=2.0)
    rng = np.random.RandomState(1)  # as the reference run: classes drawn first (not used), then data
    rng.randint(0, 6, size=(3, 4))
    rng.randint(1, 5, size=2)
    x = rng.normal(size=(3, 4, 3)).astype("float32")
    lens = np.array([4] + list(rng.randint(1, 5, size=2)), "int32")
    out = net.get_layer("output").output
    y = session.run(out.copy_as_batch_major().placeholder, feed_dict=make_feed(net, {"data": x}, {"data": lens}))
    hyps = [[2, 4, 4, 4, 4, 4], [2, 2, 4, 4, 4, 4], [2, 2, 2, 4, 4, 4]]
    np.testing.assert_array_equal(y, np.array(hyps * 3))


def test_unmask_outside_rec_is_an_error_as_in_reference(session):
    with pytest.raises(LayerArgError, match="inside a rec layer"):
        build_net(dict(MASK_TOP, mc={"class": "masked_computation", "mask": "m", "from": "data",
                                     "unit": {"class": "copy"}},
                       output={"class": "unmask", "from": "mc", "mask": "m"}), extern_data=EXT)


def test_mask_must_be_bool(session):
    with pytest.raises(LayerArgError, match="must be a bool layer"):
        build_net({"r": {"class": "reduce", "mode": "max", "axis": "F", "from": "data"},
                   "output": {"class": "masked_computation", "mask": "r", "from": "data",
                              "unit": {"class": "copy"}}}, extern_data=EXT)


@pytest.mark.parametrize("name_scope, expected", [
    ("", ["output/rec/linear/W:0", "output/rec/linear/b:0"]),
    (None, ["output/rec/mc/linear/W:0", "output/rec/mc/linear/b:0"])])
def test_subnetwork_unit_params_in_name_scope(name_scope, expected):
    """The masked_computation layer's name_scope is the scope of its subnetwork unit's layers (names observed from
    the reference)."""
    from returnn.tensor import Dim, batch_dim
    time_dim, feat = Dim(None, name="time"), Dim(5, name="feat")
    mc = {"class": "masked_computation", "from": "data", "mask": "data:mask", "unit": {
        "class": "subnetwork", "from": "data", "subnetwork": {
            "linear": {"class": "linear", "from": "data", "out_dim": feat},
            "output": {"class": "copy", "from": "linear"}}}}
    if name_scope is not None:
        mc["name_scope"] = name_scope
    with tf.Graph().as_default():
        net = build_net({"output": {"class": "rec", "from": "data", "unit": {
            "mask": {"class": "rec_unstack", "from": "base:data:mask"}, "mc": mc,
            "output": {"class": "copy", "from": "mc"}}}},
            extern_data={"data": {"dim_tags": (batch_dim, time_dim, feat)},
                         "mask": {"dim": 2, "dtype": "bool", "sparse": True, "dim_tags": (batch_dim, time_dim)}})
        assert sorted(p.name for p in net.get_params_list()) == expected


@pytest.mark.parametrize("move_out", [False, True])
def test_subnetwork_unit_sub_layers_held_in_loop(session, move_out):
    """The layers of a subnetwork unit as sub layers ``"mc/x"`` of the rec unit (as the reference's
    test_MaskedComputationLayer_sub_layers): in the loop and moved out of it, their values held where the mask is
    false, their ``initial_output`` before the first selected frame; no ``from`` needed."""
    unit = {"i_f": {"class": "cast", "from": ":i", "dtype": "float32"},
            "half": {"class": "eval", "from": "i_f", "eval": "tf.math.floormod(source(0), 2.)"},
            "m": {"class": "compare", "from": "half", "value": 1.0, "kind": "equal"},
            "mb": {"class": "combine", "kind": "logical_and", "from": ["m", "ones"]},
            "ones": {"class": "compare", "from": "in", "value": -1e9, "kind": "greater"},
            "in": {"class": "reduce", "mode": "sum", "axis": "F", "from": "data:source"},
            "mc": {"class": "masked_computation", "mask": "mb", "unit": {
                "class": "subnetwork", "subnetwork": {
                    "s1": {"class": "cumsum", "from": "base:in", "initial_output": 1, "is_output_layer": True},
                    "s2": {"class": "cumsum", "from": "base:in", "initial_output": 2, "is_output_layer": True},
                    "output": {"class": "copy", "from": "base:in"}}}},
            "output": {"class": "eval", "from": ["mc/s1", "mc/s2"], "eval": "source(0) * 2 + source(1) * 3"}}
    net = build_net({"output": {"class": "rec", "from": "data", "optimize_move_layers_out": move_out,
                                "unit": unit}}, extern_data=EXT, train_flag=False)
    cell = net.get_layer("output").cell
    assert ("mc/s1" in cell.layers_in_loop) == (not move_out)
    x, lens = _inputs()
    y, _ = _run(session, net, x, lens)
    for b in range(2):
        acc = 0.0
        for t in range(lens[b]):
            if t % 2 == 1:
                acc += x[b, t].sum()
            np.testing.assert_allclose(y[b, t], (1 + acc) * 2 + (2 + acc) * 3, rtol=1e-5)

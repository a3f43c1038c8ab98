"""Recurrent subnetworks (rec with a unit dict) in training: per-step semantics vs hand-unrolled numpy,
loop vs moved-out equality, losses accumulated per frame, construction-time errors."""

import numpy as np
import pytest
import tensorflow as tf

import returnn.tf.layers.recurrent.rnn_cell  # noqa: F401  (registers rnn_cell)
import returnn.tf.layers.recurrent.subnet  # noqa: F401  (registers rec with unit dicts)
import returnn.tf.layers.search.choice  # noqa: F401
from returnn.errors import LayerArgError
from returnn.tf.network.errors import LayerNotFound
from tf_net_helpers import build_net, make_feed

RNG = np.random.RandomState(3)
X = RNG.randn(2, 5, 3).astype("float32")
X_LENS = [5, 3]


def _params(session, net):
    return {p.name[:-2]: v for p, v in zip(net.get_params_list(), session.run(net.get_params_list()))}


def _set_params(session, net, values):
    for p in net.get_params_list():
        p.load(values[p.name[:-2]], session)


def test_prev_recurrence_matches_numpy(session):
    net_dict = {"output": {"class": "rec", "from": "data", "unit": {
        "lin": {"class": "linear", "activation": "tanh", "n_out": 4, "from": ["data:source", "prev:output"]},
        "output": {"class": "copy", "from": "lin"}}}}
    net = build_net(net_dict)
    out = net.get_layer("output").output
    assert out.time_dim_axis == 0 and out.batch_dim_axis == 1 and out.dim == 4
    session.run(tf.compat.v1.global_variables_initializer())
    y = session.run(out.placeholder, make_feed(net, {"data": X}, {"data": X_LENS}))
    p = _params(session, net)
    w, b = p["output/rec/lin/W"], p["output/rec/lin/b"]
    assert w.shape == (7, 4)
    h = np.zeros((2, 4), "float32")
    for t in range(5):
        h = np.tanh(np.concatenate([X[:, t], h], axis=1) @ w + b)
        np.testing.assert_allclose(y[t, 0], h[0], rtol=1e-5, atol=1e-5)
        if t < 3:
            np.testing.assert_allclose(y[t, 1], h[1], rtol=1e-5, atol=1e-5)


def _np_lstm_step(x, h, c, kernel, bias, forget_bias=1.0):
    z = np.concatenate([x, h], axis=1) @ kernel + bias
    i, j, f, o = np.split(z, 4, axis=1)
    sig = lambda v: 1 / (1 + np.exp(-v))  # noqa: E731
    c = sig(f + forget_bias) * c + sig(i) * np.tanh(j)
    return sig(o) * np.tanh(c), c


@pytest.mark.parametrize("move_out", [True, False])
def test_rnn_cell_lstm_and_step_index_match_numpy(session, move_out):
    net_dict = {"output": {"class": "rec", "from": "data", "optimize_move_layers_out": move_out, "unit": {
        "s": {"class": "rnn_cell", "unit": "LSTMBlock", "n_out": 4, "from": ["data:source"]},
        "output": {"class": "linear", "activation": None, "n_out": 2, "from": ["s", "prev:s"]}}}}
    net = build_net(net_dict)
    out = net.get_layer("output").output
    session.run(tf.compat.v1.global_variables_initializer())
    y = session.run(out.placeholder, make_feed(net, {"data": X}, {"data": X_LENS}))
    p = _params(session, net)
    assert p["output/rec/s/rec/lstm_cell/kernel"].shape == (7, 16)
    h = c = np.zeros((2, 4), "float32")
    for t in range(5):
        h_prev = h
        h, c = _np_lstm_step(X[:, t], h, c, p["output/rec/s/rec/lstm_cell/kernel"], p["output/rec/s/rec/lstm_cell/bias"])
        expected = np.concatenate([h, h_prev], 1) @ p["output/rec/output/W"] + p["output/rec/output/b"]
        np.testing.assert_allclose(y[t, 0], expected[0], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("move_out", [True, False])
def test_rnn_cell_initial_state_var(session, move_out):
    """``initial_state: "var"``: trainable state vectors named as the reference names them (observed: moved out
    ``<layer>/rec/initial_c``, in the loop ``<layer>/initial_c``; ``initial_h`` for an LSTM, ``initial_var`` for a
    GRU, shape [n]); step 0 starts from them, in the loop and moved out alike."""
    net_dict = {"output": {"class": "rec", "from": "data", "optimize_move_layers_out": move_out, "unit": {
        "s": {"class": "rnn_cell", "unit": "standardlstm", "n_out": 4, "from": ["data:source"],
              "initial_state": "var"},
        "g": {"class": "rnn_cell", "unit": "gru", "n_out": 2, "from": ["data:source"], "initial_state": "var"},
        "output": {"class": "copy", "from": ["s", "g"]}}}}
    net = build_net(net_dict)
    out = net.get_layer("output").output
    session.run(tf.compat.v1.global_variables_initializer())
    st = "rec/" if move_out else ""
    shapes = {k: v.shape for k, v in _params(session, net).items() if "initial" in k}
    assert shapes == {f"output/rec/s/{st}initial_c": (4,), f"output/rec/s/{st}initial_h": (4,),
                      f"output/rec/g/{st}initial_var": (2,)}
    values = _params(session, net)
    values[f"output/rec/s/{st}initial_c"] = RNG.randn(4).astype("float32")
    values[f"output/rec/s/{st}initial_h"] = RNG.randn(4).astype("float32")
    _set_params(session, net, values)
    feed = make_feed(net, {"data": X}, {"data": X_LENS})
    y = session.run(out.placeholder, feed)
    p = values
    h0 = np.tile(p[f"output/rec/s/{st}initial_h"], (2, 1))
    c0 = np.tile(p[f"output/rec/s/{st}initial_c"], (2, 1))
    h1, _ = _np_lstm_step(X[:, 0], h0, c0, p["output/rec/s/rec/lstm_cell/kernel"], p["output/rec/s/rec/lstm_cell/bias"])
    np.testing.assert_allclose(y[0, :, :4], h1, rtol=1e-5, atol=1e-5)
    var = [v for v in net.get_trainable_params() if v.name == f"output/rec/s/{st}initial_h:0"]
    grad = session.run(tf.gradients(tf.reduce_sum(out.placeholder), var)[0], feed)
    assert np.abs(grad).sum() > 0


def test_rnn_cell_initial_state_var_outside_rec_unit(session):
    """An ``rnn_cell`` directly in the network (over the time axis): the state variable is one of its params."""
    net = build_net({"output": {"class": "rnn_cell", "unit": "gru", "n_out": 3, "from": "data", "initial_state": "var"}})
    layer = net.get_layer("output")
    assert layer.params["rec/initial_var"].shape.as_list() == [3]
    assert "output/rec/initial_var:0" in [v.name for v in net.get_trainable_params()]


ENC_DEC = {
    "input_embed": {"class": "linear", "activation": None, "with_bias": False, "n_out": 5, "from": "data"},
    "output": {"class": "rec", "from": [], "target": "classes", "unit": {
        "output_embed": {"class": "linear", "activation": None, "with_bias": False, "n_out": 3, "from": "output"},
        "s": {"class": "rnn_cell", "unit": "standardlstm", "n_out": 6, "from": ["prev:output_embed"]},
        "readout": {"class": "linear", "activation": "tanh", "n_out": 5, "from": ["s", "prev:output_embed"]},
        "prob": {"class": "softmax", "from": "readout", "target": "classes", "loss": "ce"},
        "output": {"class": "choice", "from": "prob", "target": "classes", "beam_size": 4, "initial_output": 0},
        "end": {"class": "compare", "from": "output", "value": 0}}},
}
ED_EXTERN = {"data": {"dim": 5, "sparse": True}, "classes": {"dim": 4, "sparse": True}}
CLASSES = np.array([[1, 2, 3, 0], [3, 1, 0, 0]], "int32")
CLASSES_LENS = [4, 2]


def _run_enc_dec(move_out, values=None):
    graph = tf.Graph()
    with graph.as_default(), tf.compat.v1.Session(graph=graph) as session:
        net_dict = {k: dict(v) for k, v in ENC_DEC.items()}
        net_dict["output"]["optimize_move_layers_out"] = move_out
        net = build_net(net_dict, extern_data=ED_EXTERN)
        cell = net.get_layer("output").cell
        session.run(tf.compat.v1.global_variables_initializer())
        if values is not None:
            _set_params(session, net, values)
        feed = make_feed(net, {"data": np.array([[1, 2], [3, 4]], "int32"), "classes": CLASSES},
                         {"data": [2, 2], "classes": CLASSES_LENS})
        holder = net.get_losses_initialized()[0]["output/prob"]
        prob = net.get_layer("output/prob").output.copy_as_batch_major()
        grads = [tf.convert_to_tensor(g) for g in tf.gradients(net.get_objective(), net.get_trainable_params())]
        loss, prob_v, out_v, grads_v = session.run(
            [holder.get_loss_value(), prob.placeholder, net.get_layer("output").output.placeholder, grads], feed)
        return dict(params=_params(session, net), loss=loss, prob=prob_v, out=out_v, grads=grads_v,
                    in_loop=set(cell.loop), names=[p.name for p in net.get_params_list()])


def test_move_out_equals_loop_and_loss_is_summed_per_frame():
    moved = _run_enc_dec(True)
    looped = _run_enc_dec(False, values=moved["params"])
    assert moved["in_loop"] == set()  # as the reference: even the rnn_cell runs over the whole sequence
    # as the reference (observed): without moving out, the end layer runs in the loop although the length is known
    assert looped["in_loop"] == {"s", "readout", "prob", "output", "output_embed", "end"}
    assert sorted(moved["names"]) == sorted(looped["names"])
    np.testing.assert_array_equal(moved["out"], CLASSES.T)  # choice returns the target in training
    for b, n in enumerate(CLASSES_LENS):  # padded frames differ (the whole-sequence kernel zeroes them)
        np.testing.assert_allclose(moved["prob"][b, :n], looped["prob"][b, :n], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(moved["loss"], looped["loss"], rtol=1e-5, atol=1e-5)
    for a, b in zip(moved["grads"], looped["grads"]):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
    # ce summed over the valid frames only
    expected = -sum(np.log(moved["prob"][b, t, CLASSES[b, t]]) for b in range(2) for t in range(CLASSES_LENS[b]))
    np.testing.assert_allclose(moved["loss"], expected, rtol=1e-5)


def _unit_net(unit, **rec_opts):
    return {"output": {"class": "rec", "from": [], "target": "classes", "unit": unit, **rec_opts}}


def test_error_prev_of_missing_layer(session):
    with pytest.raises(LayerNotFound) as info:
        build_net(_unit_net({"output": {"class": "linear", "n_out": 4, "from": "prev:outptu"}}),
                  extern_data=ED_EXTERN)
    assert "output/output" in str(info.value) and "prev:output" in str(info.value)


def test_error_base_of_missing_layer(session):
    with pytest.raises(LayerNotFound) as info:
        build_net(_unit_net({"output": {"class": "linear", "n_out": 4, "from": "base:encodr"}}),
                  extern_data=ED_EXTERN)
    assert "'output/output'" in str(info.value) and "base:encodr" in str(info.value)


def test_error_choice_without_target_in_training(session):
    with pytest.raises(LayerArgError) as info:
        build_net(_unit_net({"prob": {"class": "softmax", "n_out": 4, "from": "prev:output"},
                             "output": {"class": "choice", "from": "prob", "beam_size": 4}}), extern_data=ED_EXTERN)
    assert (info.value.layer, info.value.arg) == ("output/output", "target")


def test_error_beam_size_zero(session):
    with pytest.raises(LayerArgError) as info:
        build_net(_unit_net({"prob": {"class": "softmax", "n_out": 4, "from": "prev:output"},
                             "output": {"class": "choice", "from": "prob", "target": "classes", "beam_size": 0}}),
                  extern_data=ED_EXTERN)
    assert (info.value.layer, info.value.arg, info.value.got) == ("output/output", "beam_size", 0)


def test_error_prev_without_initial_output(session):
    extern = {"data": {"dim": 3}, "classes": {"dim": 4, "sparse": True}}
    net_dict = {"enc": {"class": "copy", "from": "data"},
                "output": {"class": "rec", "from": [], "target": "classes", "unit": {
                    "att": {"class": "copy", "from": ["base:enc"], "initial_output": "no_such_thing"},
                    "output": {"class": "linear", "n_out": 2, "from": "prev:att"}}}}
    with pytest.raises(LayerArgError) as info:
        build_net(net_dict, extern_data=extern)
    assert (info.value.layer, info.value.arg, info.value.got) == ("output/att", "initial_output", "no_such_thing")


@pytest.mark.parametrize("initial, expected", [("ones", 1.0), (0.5, 0.5), ("var", 0.0), ("base:init", 3.0)])
def test_initial_output_kinds(session, initial, expected):
    net_dict = {"init": {"class": "reduce", "mode": "sum", "axes": "T", "from": "data"},  # 3 frames of 1: 3.0
                "output": {"class": "rec", "from": "data", "unit": {
                    "acc": {"class": "combine", "kind": "add", "from": ["prev:acc", "data:source"],
                            "initial_output": initial},
                    "output": {"class": "copy", "from": "acc"}}}}
    extern = {"data": {"dim": 1}}
    if initial != "base:init":
        del net_dict["init"]
    net = build_net(net_dict, extern_data=extern)
    session.run(tf.compat.v1.global_variables_initializer())
    x = np.ones([1, 3, 1], "float32")
    y = session.run(net.get_layer("output").output.placeholder, make_feed(net, {"data": x}, {"data": [3]}))
    np.testing.assert_allclose(y[:, 0, 0], expected + np.arange(1, 4), rtol=1e-6)
    if initial == "var":
        # the reference's name (observed): output/rec/acc/init_acc_var, keyed relative to "output/rec/" (as the
        # reference's rec layer params, observed: "output/W" for the sub layer "output")
        assert "acc/init_acc_var" in [k for k in net.get_layer("output").params]


def test_error_data_source_without_rec_input(session):
    extern = {"data": {"dim": 3}, "classes": {"dim": 4, "sparse": True}}
    net_dict = {"output": {"class": "rec", "from": [], "target": "classes", "unit": {
        "frames": {"class": "linear", "n_out": 2, "from": ["data:source"]},
        "output": {"class": "linear", "n_out": 2, "from": ["prev:frames"]}}, "max_seq_len": 3}}
    # "data:source" is missing: the rec layer has no input
    with pytest.raises(LayerArgError) as info:
        build_net(net_dict, extern_data=extern)
    assert info.value.layer.startswith("output") and "data:source" in str(info.value)


def test_step_index_layers_move_out_with_the_loop_values():
    """Layers that read the step index ``:i`` (the published RNN-T configs' attention window: ``gather_nd`` of
    ``base:enc_ctx_win`` at ``:i``; ``:i == 0``) move out of the loop in training, as the reference moves them, where
    ``:i`` is each frame's step: the same values as in the loop (numpy check of the window gather)."""
    unit = {"w": {"class": "gather_nd", "from": "base:enc", "position": ":i"},
            "wm": {"class": "merge_dims", "from": "w", "axes": "static"},
            "first": {"class": "compare", "from": ":i", "kind": "equal", "value": 0},
            "lin": {"class": "linear", "from": ["wm", "data:source"], "n_out": 2},
            "lin2": {"class": "linear", "from": "data:source", "n_out": 2},
            "output": {"class": "switch", "condition": "first", "true_from": "lin", "false_from": "lin2"}}
    x = np.random.RandomState(1).randn(2, 5, 3).astype("float32")
    results = []
    for move_out in (False, True):
        with tf.Graph().as_default() as graph, tf.compat.v1.Session(graph=graph) as sess:
            net = build_net({"enc": {"class": "window", "from": "data", "window_size": 3},
                             "output": {"class": "rec", "from": "data", "optimize_move_layers_out": move_out,
                                        "unit": unit}}, extern_data={"data": {"dim": 3}}, train_flag=True)
            cell = net.get_layer("output").cell
            assert (cell.loop == set()) == move_out  # moved out: nothing left in the loop
            sess.run(tf.compat.v1.global_variables_initializer())
            params = {}
            for var in tf.compat.v1.global_variables():
                params[var.name[:-2]] = np.random.RandomState(len(var.name)).randn(*var.shape.as_list())
                var.load(params[var.name[:-2]].astype("float32"), sess)
            out = net.get_layer("output").output.copy_as_batch_major().placeholder
            results.append(sess.run(out, make_feed(net, {"data": x}, {"data": [5, 3]})))
    np.testing.assert_allclose(results[1][0], results[0][0], atol=1e-5)
    np.testing.assert_allclose(results[1][1, :3], results[0][1, :3], atol=1e-5)
    padded = np.pad(x[0], ((1, 1), (0, 0)))  # window 3 around frame 0 of sequence 0 (zero padded)
    lin_w, lin_b = params["output/rec/lin/W"], params["output/rec/lin/b"]
    np.testing.assert_allclose(results[0][0, 0], np.concatenate([padded[0:3].reshape(-1), x[0, 0]]) @ lin_w + lin_b,
                               rtol=1e-4)


def test_moved_out_layers_net(session):
    """``cell.output_layers_net`` (the reference's name): the network of the layers moved out of the loop, whose
    ``layers`` hold them over the whole sequence (``[B, T, ...]``)."""
    net = build_net({"output": {"class": "rec", "from": "data", "unit": {
        "lin": {"class": "linear", "from": "data:source", "n_out": 2},
        "output": {"class": "copy", "from": "lin"}}}}, extern_data={"data": {"dim": 3}}, train_flag=True)
    cell = net.get_layer("output").cell
    assert cell.loop == set()
    lin = cell.output_layers_net.layers["lin"]
    assert lin.output.dim == 2 and lin.output.time_dim_axis is not None
    session.run(tf.compat.v1.global_variables_initializer())
    y = session.run(lin.output.copy_as_batch_major().placeholder, make_feed(net, {"data": X}, {"data": X_LENS}))
    assert y.shape == (2, 5, 2)

"""``subnetwork`` layers inside a rec unit are flattened into the unit (``"sub/x"``), as the reference lists them:
the name rewriting (pure dicts), then rec layers built with such units (which layers run in the loop, values
against numpy, params loaded with ``load_on_init``)."""

from returnn.tf.layers.recurrent.subnet.flatten import flatten_unit, pop_load_on_init


def test_flatten_rewrites_names_into_the_unit():
    unit = {
        "outside": {"class": "reduce", "mode": "max", "axis": "t", "from": "base:encoder"},
        "subnet": {"class": "subnetwork", "from": "data:source", "initial_output": 0, "subnetwork": {
            "a": {"class": "eval", "from": "base:outside", "eval": "source(0)"},
            "b": {"class": "combine", "kind": "add", "from": ["data", "a", "base:prev:inside", "prev:b"]},
            "c": {"class": "linear", "n_out": 2},  # no "from": the subnetwork's input
            "d": {"class": "copy", "from": "base:base:encoder"},
            "output": {"class": "copy", "from": "b"}}},
        "inside": {"class": "combine", "kind": "add", "from": ["subnet/a", "subnet"]},
        "output": {"class": "copy", "from": "inside"},
    }
    flat = flatten_unit(unit)
    assert list(flat) == ["outside", "subnet", "subnet/a", "subnet/b", "subnet/c", "subnet/d", "subnet/output",
                          "inside", "output"]
    assert flat["subnet"] == {"class": "copy", "from": "subnet/output", "initial_output": 0}
    assert flat["subnet/a"]["from"] == "outside"
    assert flat["subnet/b"]["from"] == ["data:source", "subnet/a", "prev:inside", "prev:subnet/b"]
    assert flat["subnet/c"]["from"] == "data:source"
    assert flat["subnet/d"]["from"] == "base:encoder"
    assert flat["subnet/output"]["from"] == "subnet/b"
    assert flat["inside"] is unit["inside"]
    assert flatten_unit(flat) is flat  # nothing left to flatten


def test_flatten_kept_subnetwork_inside_gets_its_base_names_rebased():
    # a subnetwork with a random layer on an explicit state stays a subnetwork; flattening the level around it
    # removes one "base:" level from its inner names (as in the reference's test_specaugment_pure_returnn)
    unit = {
        "mask": {"class": "subnetwork", "from": [], "subnetwork": {
            "len": {"class": "length", "from": "base:prev:mask"},
            "random": {"class": "subnetwork", "from": [], "subnetwork": {
                "random": {"class": "random", "shape": (), "explicit_state": "base:base:base:state_var",
                           "distribution": "uniform", "minval": 0, "maxval": 3, "auto_update_state": True},
                "x": {"class": "combine", "kind": "add", "from": ["random", "base:len", "base:base:prev:mask"]},
                "output": {"class": "copy", "from": "x"}}},
            "output": {"class": "copy", "from": "random"}}},
        "output": {"class": "copy", "from": "mask"},
    }
    flat = flatten_unit(unit)
    kept = flat["mask/random"]["subnetwork"]
    assert kept["random"]["explicit_state"] == "base:base:state_var"
    assert kept["x"]["from"] == ["random", "base:mask/len", "base:prev:mask"]
    assert flat["mask/len"]["from"] == "prev:mask"
    assert unit["mask"]["subnetwork"]["random"]["subnetwork"]["x"]["from"][1] == "base:len"  # input unchanged


def test_flatten_rewrites_attention_base_ctx():
    """``base_ctx`` of a ``dot_attention`` names a layer too (reference test_attention_subnetwork_base_dependency)."""
    unit = {"att": {"class": "subnetwork", "from": "s", "subnetwork": {
        "c_in": {"class": "linear", "from": "data", "n_out": 4},
        "output": {"class": "dot_attention", "from": "c_in", "base": "base:base:enc", "base_ctx": "base:base:enc"}}}}
    flat = flatten_unit(unit)
    assert (flat["att/output"]["base"], flat["att/output"]["base_ctx"]) == ("base:enc", "base:enc")


def test_flatten_several_sources_nested_and_load_on_init():
    unit = {
        "s": {"class": "subnetwork", "from": ["data:source", "prev:output"], "dropout": 0.1, "load_on_init": "m",
              "subnetwork": {
                  "t": {"class": "subnetwork", "from": "data", "subnetwork": {
                      "x": {"class": "linear", "from": ["data", "base:base:prev:output"], "n_out": 3,
                            "reuse_params": {"map": {"W": {"reuse_layer": "base:y"}}}},
                      "output": {"class": "copy", "from": "x"}}},
                  "y": {"class": "linear", "n_out": 3},
                  "output": {"class": "copy", "from": "t"}}},
        "output": {"class": "copy", "from": "s"},
    }
    flat = flatten_unit(unit)
    assert flat["s/data"] == {"class": "copy", "from": ["data:source", "prev:output"], "dropout": 0.1}
    assert flat["s/t"] == {"class": "copy", "from": "s/t/output"}
    assert flat["s/t/x"]["from"] == ["s/data", "prev:output"]
    assert flat["s/t/x"]["reuse_params"] == {"map": {"W": {"reuse_layer": "s/y"}}}
    assert flat["s/y"]["from"] == "s/data"
    assert flat["s"]["_flattened_load_on_init"] == "m"
    assert pop_load_on_init(flat) == {"s": "m"}
    assert flat["s"] == {"class": "copy", "from": "s/output"}


def test_flatten_concat_sources_false():
    unit = {"s": {"class": "subnetwork", "from": ["a", "b"], "concat_sources": False, "subnetwork": {
        "output": {"class": "combine", "kind": "add", "from": ["data:1", "data:0", "data:classes"]}}}}
    flat = flatten_unit(unit)
    assert flat["s/output"]["from"] == ["b", "a", "data:classes"]
    assert "s/data" not in flat


# ---- rec layers with such units

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from tf_net_helpers import build_net, make_feed  # noqa: E402

tf.compat.v1.disable_eager_execution()


def test_sub_layers_in_loop_or_moved_out_like_reference(session):
    """As the reference's test_reclayer_subnetwork_sublayer (lists observed there): the inner layer reading only a
    layer outside the loop is moved out before it, the one reading prev: runs in the loop; values against numpy."""
    net = build_net({
        "encoder": {"class": "eval", "from": "data", "eval": "source(0) + 1"},
        "output": {"class": "rec", "from": "data", "unit": {
            "outside": {"class": "reduce", "mode": "max", "axis": "t", "from": "base:encoder"},
            "subnet": {"class": "subnetwork", "from": "data:source", "subnetwork": {
                "a": {"class": "eval", "from": "base:outside", "eval": "source(0) * 2"},
                "b": {"class": "combine", "kind": "add", "from": ["data", "a", "base:prev:inside"]},
                "output": {"class": "copy", "from": "b"}}},
            "subnet_a": {"class": "copy", "from": "subnet/a"},
            "subnet_b": {"class": "copy", "from": "subnet/b"},
            "inside": {"class": "combine", "kind": "add", "from": ["subnet_a", "subnet_b", "subnet"]},
            "output": {"class": "copy", "from": "inside"}}}}, extern_data={"data": {"dim": 3}})
    cell = net.get_layer("output").cell
    assert set(cell.input_layers_moved_out) == {"outside", "subnet/a", "subnet_a"}
    assert set(cell.layers_in_loop) == {"inside", "subnet", "subnet/b", "subnet/output", "subnet_b"}
    assert set(cell.output_layers_moved_out) == {"output"}
    x = np.random.RandomState(3).normal(size=(2, 4, 3)).astype("float32")
    lens = np.array([4, 3], "int32")
    y = session.run(net.get_layer("output").output.copy_as_batch_major().placeholder,
                    feed_dict=make_feed(net, {"data": x}, {"data": lens}))
    for b in range(2):
        a = 2 * (x[b, :lens[b]] + 1).max(axis=0)
        inside = np.zeros(3)
        for t in range(lens[b]):
            sub_b = x[b, t] + a + inside
            inside = a + sub_b + sub_b
            np.testing.assert_allclose(y[b, t], inside, rtol=1e-5)


def test_prev_of_inner_layer_and_base_base(session):
    """``prev:`` of an inner layer (reference's test_reclayer_prev_in_subnet) and ``base:base:x`` (a layer outside the
    rec layer); the frames summed, against numpy."""
    net = build_net({"bias": {"class": "reduce", "mode": "sum", "axis": "t", "from": "data"},
                     "output": {"class": "rec", "from": "data", "unit": {
                         "accum_sub": {"class": "subnetwork", "from": [], "subnetwork": {
                             "accum": {"class": "combine", "kind": "add",
                                       "from": ["prev:accum", "base:data:source", "base:base:bias"]},
                             "output": {"class": "copy", "from": "accum"}}},
                         "output": {"class": "copy", "from": "accum_sub"}}}}, extern_data={"data": {"dim": 2}})
    cell = net.get_layer("output").cell  # lists as the reference's (observed)
    assert cell.layers_in_loop == ["accum_sub/accum"]
    assert cell.input_layers_moved_out == []
    assert set(cell.output_layers_moved_out) == {"output", "accum_sub", "accum_sub/output"}
    x = np.random.RandomState(4).normal(size=(2, 3, 2)).astype("float32")
    y = session.run(net.get_layer("output").output.copy_as_batch_major().placeholder,
                    feed_dict=make_feed(net, {"data": x}, {"data": np.array([3, 3], "int32")}))
    bias = x.sum(axis=1)
    np.testing.assert_allclose(y, np.cumsum(x, axis=1) + bias[:, None] * np.arange(1, 4)[None, :, None], rtol=1e-5)


def test_load_on_init_converts_lstm_params(session, tmp_path):
    """``load_on_init`` of a subnetwork in a rec unit (reference's test_subnet_load_on_init_rec): the inner params
    from a checkpoint of a network of the inner layers, an LSTM ``rec`` layer's native params converted into the
    ``rnn_cell`` LSTMBlock's; the step-by-step output equals the full-sequence one."""
    rnd = {"forward_weights_init": "random_normal_initializer(mean=0.0, stddev=1.0)"}
    net1 = build_net({"input": dict(rnd, **{"class": "linear", "n_out": 3, "activation": None, "from": "data"}),
                      "lstm0": {"class": "rec", "unit": "nativelstm2", "n_out": 3, "from": "input",
                                "recurrent_weights_init": "random_normal_initializer(mean=0.0, stddev=1.0)"},
                      "output": {"class": "copy", "from": "lstm0"}}, extern_data={"data": {"dim": 2}})
    net1.initialize_params(session)
    filename = str(tmp_path / "model")
    net1.save_params_to_file(filename, session)
    x = np.random.RandomState(5).normal(size=(2, 3, 2)).astype("float32")
    lens = np.array([3, 2], "int32")
    y1 = session.run(net1.get_layer("output").output.copy_as_batch_major().placeholder,
                     feed_dict=make_feed(net1, {"data": x}, {"data": lens}))
    with tf.compat.v1.variable_scope("second"):
        net2 = build_net({"output": {"class": "rec", "from": "data", "optimize_move_layers_out": False, "unit": {
            "output": {"class": "subnetwork", "from": "data:source", "load_on_init": filename, "subnetwork": {
                "input": {"class": "linear", "n_out": 3, "activation": None},
                "lstm0": {"class": "rnn_cell", "unit": "LSTMBlock", "unit_opts": {"forget_bias": 0.0}, "n_out": 3,
                          "from": "input"},
                "output": {"class": "copy", "from": "lstm0"}}}}}}, extern_data={"data": {"dim": 2}})
    net2.initialize_params(session)
    params = net2.get_layer("output").params
    assert sorted(params) == ["output/input/W", "output/input/b", "output/lstm0/rec/lstm_cell/bias",
                              "output/lstm0/rec/lstm_cell/kernel"]
    y2 = session.run(net2.get_layer("output").output.copy_as_batch_major().placeholder,
                     feed_dict=make_feed(net2, {"data": x}, {"data": lens}))
    np.testing.assert_allclose(y2[0], y1[0], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(y2[1, :2], y1[1, :2], rtol=1e-4, atol=1e-5)

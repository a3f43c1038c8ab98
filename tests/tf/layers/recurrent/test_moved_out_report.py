"""The rec cell's report of where its layers run (``input_layers_moved_out``, ``output_layers_moved_out``,
``layers_in_loop``), as the reference (observed): a layer moved out that the loop does not read counts as moved out
after the loop; and ``TFNetwork.epoch_step`` (None, as the reference)."""

import tensorflow as tf

from tf_net_helpers import build_net


def test_all_moved_out_are_output_layers():
    with tf.Graph().as_default():
        net = build_net({"output": {"class": "rec", "from": "data", "unit": {
            "lin": {"class": "linear", "from": "data:source", "n_out": 4},
            "output": {"class": "linear", "from": "lin", "n_out": 2}}}})
        cell = net.layers["output"].cell
        assert cell.input_layers_moved_out == []
        assert cell.output_layers_moved_out == ["output", "lin"]  # observed order: "lin" once "output" is taken
        assert cell.layers_in_loop == []
        assert net.epoch_step is None


def test_loop_reads_moved_out_input():
    with tf.Graph().as_default():
        net = build_net({"output": {"class": "rec", "from": "data", "unit": {
            "lin": {"class": "linear", "from": "data:source", "n_out": 4},
            "acc": {"class": "combine", "kind": "add", "from": ["lin", "prev:acc"]},
            "output": {"class": "linear", "from": "acc", "n_out": 2}}}})
        cell = net.layers["output"].cell
        assert cell.input_layers_moved_out == ["lin"]
        assert cell.layers_in_loop == ["acc"]
        assert cell.output_layers_moved_out == ["output"]


def test_layer_data_templates_per_frame():
    with tf.Graph().as_default():
        net = build_net({"output": {"class": "rec", "from": "data", "unit": {
            "output": {"class": "linear", "from": ["data:source", "prev:output"], "n_out": 5}}}})
        out = net.layers["output"].cell.layer_data_templates["output"].output
        assert out.time_dim_axis is None and out.batch_dim_axis == 0 and out.batch_shape == (None, 5)


def _unit_with_loss_and_base_layers():
    return {
        "target_embed_raw": {"class": "linear", "activation": None, "from": "prev:output", "n_out": 6,
                             "with_bias": False},
        "encoder_int": {"class": "linear", "activation": None, "from": "base:encoder", "n_out": 5, "with_bias": False},
        "encoder_reduced": {"class": "reduce", "mode": "sum", "axis": "T", "from": "encoder_int"},
        "output_prob": {"class": "softmax", "from": ["target_embed_raw", "encoder_reduced"], "target": "classes",
                        "loss": "ce"},
        "output": {"class": "choice", "target": "classes", "beam_size": 4, "from": "output_prob",
                   "initial_output": 0},
        "end": {"class": "compare", "from": "output", "value": 0},
    }


def _moved_out(unit):
    with tf.Graph().as_default():
        net = build_net({"encoder": {"class": "linear", "activation": "tanh", "n_out": 5, "from": "data"},
                         "output": {"class": "rec", "from": [], "target": "classes", "unit": unit}},
                        extern_data={"data": {"dim": 3}, "classes": {"dim": 7, "sparse": True}})
        return net.layers["output"].cell.output_layers_moved_out


def test_output_layers_moved_out_order_as_reference():
    # observed from the reference: one at a time, the first (depth-first from the needed layers, by name) that no
    # other layer still to move out depends on
    assert _moved_out(_unit_with_loss_and_base_layers()) == [
        "output_prob", "target_embed_raw", "output", "encoder_reduced", "encoder_int"]
    unit = _unit_with_loss_and_base_layers()
    unit["output_prob"]["from"] = ["encoder_reduced", "target_embed_raw"]
    assert _moved_out(unit) == ["output_prob", "encoder_reduced", "encoder_int", "target_embed_raw", "output"]
    unit = _unit_with_loss_and_base_layers()
    unit["a_extra"] = {"class": "linear", "from": "encoder_reduced", "n_out": 7, "loss": "ce", "target": "classes",
                       "activation": "softmax"}
    assert _moved_out(unit) == ["a_extra", "output_prob", "encoder_reduced", "encoder_int", "target_embed_raw",
                                "output"]


def test_moved_out_split_is_listed_with_its_sub_layers():
    """Observed from the reference: a moved-out ``split`` read as ``split/0`` and ``split/1`` is listed with them
    (``{"output", "split", "split/0", "split/1"}``); the loop keeps the ``prev:`` layer."""
    with tf.Graph().as_default():
        net = build_net({"output": {"class": "rec", "from": [], "max_seq_len": 5, "target": "classes", "unit": {
            "input": {"class": "linear", "n_out": 10, "from": ["prev:input"], "with_bias": True},
            "split": {"class": "split", "from": "input", "size_splits": [1, 9]},
            "output": {"class": "linear", "from": ["split/0", "split/1"], "target": "classes"},
            "end_compare": {"class": "compare", "kind": "greater", "from": ["split/0"], "value": 0},
            "end": {"class": "squeeze", "from": ["end_compare"], "axis": "F"}}}},
            {"data": {"dim": 11}, "classes": {"dim": 10, "available_for_inference": False}})
        cell = net.layers["output"].cell
        assert cell.input_layers_moved_out == []
        assert cell.output_layers_moved_out == ["output", "split", "split/0", "split/1"]
        assert cell.layers_in_loop == ["input"]


# observed from the reference (sequence 0; params by load order below): the same with and without moving out
REF_PREV_OF_MOVED_OUT = [
    [-0.1746, 0.0864, -0.1002, 0.0, 0.0, 0.0], [-0.2131, 0.1388, -0.0417, -0.1746, 0.0864, -0.1002],
    [-0.0498, 0.0667, 0.0138, -0.2131, 0.1388, -0.0417], [-0.0342, 0.1308, 0.0545, -0.0498, 0.0667, 0.0138]]


def test_layers_read_via_prev_without_a_cycle_move_out():
    """A layer read via ``prev:`` that does not depend on itself through ``prev:`` (a cumsum of the input frames, an
    LSTM over them) moves out of the loop, prev: being its shifted frames; the loop is empty, as the reference
    (observed: its report and values)."""
    import numpy as np
    unit = {"lin": {"class": "linear", "from": "data:source", "n_out": 2, "activation": None},
            "acc": {"class": "cumsum", "from": "lin"},
            "fb": {"class": "linear", "from": "prev:acc", "n_out": 2, "activation": None},
            "s": {"class": "rnn_cell", "unit": "standardlstm", "from": ["fb"], "n_out": 3},
            "output": {"class": "copy", "from": ["s", "prev:s"]}}
    for opt in (True, False):
        with tf.Graph().as_default(), tf.compat.v1.Session() as session:
            net = build_net({"output": {"class": "rec", "from": "data", "unit": unit,
                                        "optimize_move_layers_out": opt}})
            cell = net.layers["output"].cell
            if opt:
                assert cell.input_layers_moved_out == [] and cell.layers_in_loop == []
                assert cell.output_layers_moved_out == ["output", "s", "fb", "acc", "lin"]
            rs = np.random.RandomState(3)
            for param in net.get_params_list():  # sorted by name, as the reference's run
                param.load(rs.normal(size=param.shape.as_list()).astype("float32") * 0.5, session)
            data = net.extern_data.data["data"]
            x = np.random.RandomState(1).normal(size=(2, 4, 3)).astype("float32")
            y = session.run(net.get_layer("output").output.copy_as_batch_major().placeholder,
                            {data.placeholder: x, data.get_sequence_lengths(): [4, 3]})
            np.testing.assert_allclose(y[0], REF_PREV_OF_MOVED_OUT, atol=1e-4)

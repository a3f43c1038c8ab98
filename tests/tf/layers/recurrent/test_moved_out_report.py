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
        assert cell.output_layers_moved_out == ["lin", "output"]
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

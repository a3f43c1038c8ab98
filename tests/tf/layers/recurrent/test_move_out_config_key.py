"""The config key ``optimize_move_layers_out`` (read through NetworkOptions): every rec layer's default; a rec
layer's own ``optimize_move_layers_out`` wins."""

import pytest
import tensorflow as tf

from tf_net_helpers import build_net


def _rec(**rec_opts):
    return {"output": {"class": "rec", "from": "data", **rec_opts, "unit": {
        "lin": {"class": "linear", "from": "data:source", "n_out": 4},
        "output": {"class": "combine", "kind": "add", "from": ["lin", "prev:output"]}}}}


@pytest.mark.parametrize("config, rec_opts, moved_out", [
    ({}, {}, ["lin"]),
    ({"optimize_move_layers_out": False}, {}, []),
    ({"optimize_move_layers_out": False}, {"optimize_move_layers_out": True}, ["lin"]),
    ({"optimize_move_layers_out": True}, {"optimize_move_layers_out": False}, [])])
def test_optimize_move_layers_out_key(config, rec_opts, moved_out):
    with tf.Graph().as_default():
        net = build_net(_rec(**rec_opts), **config)
        cell = net.layers["output"].cell
        assert cell.input_layers_moved_out == moved_out
        assert ("lin" in cell.loop) == (not moved_out)

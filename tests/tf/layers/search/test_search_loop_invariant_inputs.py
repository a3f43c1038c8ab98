"""In search, a layer of the unit that reads only ``base:`` layers (the same in every step) is computed once before
the loop, as the reference (observed: ``encoder_int`` in ``input_layers_moved_out`` of its
test_reclayer_move_out_input_train_and_search); the loop reads it for its hypotheses (tiled over the beam): the same
search result as without moving layers out."""

import numpy as np
import tensorflow as tf

from returnn.config import Config
from returnn.tf.network import ExternData, TFNetwork

tf.compat.v1.disable_eager_execution()


def _search(optimize):
    unit = {
        "target_embed": {"class": "linear", "activation": None, "from": "prev:output", "n_out": 4, "with_bias": False},
        "encoder_int": {"class": "linear", "activation": None, "from": "base:encoder", "n_out": 3, "with_bias": False},
        "encoder_reduced": {"class": "reduce", "mode": "sum", "axis": "T", "from": "encoder_int"},
        "s": {"class": "rnn_cell", "unit": "standardlstm", "from": ["target_embed", "encoder_reduced"], "n_out": 5},
        "output_prob": {"class": "softmax", "from": ["s", "encoder_reduced"], "target": "classes"},
        "output": {"class": "choice", "target": "classes", "beam_size": 3, "from": "output_prob",
                   "initial_output": 0},
        "end": {"class": "compare", "from": "output", "value": 0}}
    net_dict = {"encoder": {"class": "linear", "activation": "tanh", "n_out": 5, "from": "data:data"},
                "output": {"class": "rec", "from": [], "unit": unit, "target": "classes", "max_seq_len": 6,
                           "optimize_move_layers_out": optimize},
                "decision": {"class": "decide", "from": "output", "target": "classes"}}
    with tf.Graph().as_default(), tf.compat.v1.Session() as session:
        extern = ExternData({"data": {"dim": 5, "sparse": True},
                             "classes": {"dim": 7, "sparse": True, "available_for_inference": False}})
        net = TFNetwork(extern_data=extern, search_flag=True, train_flag=False, eval_flag=False, config=Config())
        net.construct_from_dict(net_dict)
        cell = net.get_layer("output").cell
        rs = np.random.RandomState(3)
        for param in sorted(net.get_params_list(), key=lambda v: v.name):
            param.load(rs.normal(size=param.shape.as_list()).astype("float32"), session)
        data = net.extern_data.data["data"]
        out = net.get_layer("decision").output
        values = session.run([out.copy_as_batch_major().placeholder, out.get_sequence_lengths()],
                             {data.placeholder: [[1, 2, 3, 4], [4, 3, 0, 0]], data.get_sequence_lengths(): [4, 2]})
        return cell, values


def test_loop_invariant_layers_move_out_in_search():
    cell, (labels, lengths) = _search(optimize=True)
    assert cell.input_layers_moved_out == ["encoder_int", "encoder_reduced"]
    assert "encoder_int" not in cell.layers_in_loop and "s" in cell.layers_in_loop
    cell_in_loop, (labels_in_loop, lengths_in_loop) = _search(optimize=False)
    assert "encoder_int" in cell_in_loop.layers_in_loop
    np.testing.assert_array_equal(lengths, lengths_in_loop)
    np.testing.assert_array_equal(labels, labels_in_loop)

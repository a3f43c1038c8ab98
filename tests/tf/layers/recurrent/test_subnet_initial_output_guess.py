"""A ``prev:`` cycle whose layer starts from a layer outside the loop (``initial_output: "base:x"``): its first
template guess is that layer's shape. Here the location-aware attention does not read the encoder at all: the
accumulated weights ``{B, T_enc, 1}`` start from zeros of the encoder's shape and only the convolution over them
and the decoder state give the energies (as the reference's test_attention_no_encoder_dependency). The values were
observed by running the reference on the same network, inputs and parameter values."""

import numpy as np
import pytest
import tensorflow as tf

import returnn.tf.layers  # noqa: F401
from returnn.config import Config
from returnn.tf.network import TFNetwork
from returnn.tf.util.data import SpatialDim


def _net_dict(enc_time):
    unit = {
        "output": {"class": "choice", "target": "classes", "beam_size": 2, "from": ["output_prob"]},
        "end": {"class": "compare", "from": ["output"], "value": 0},
        "orth_embed": {"class": "linear", "activation": None, "from": ["output"], "n_out": 3},
        "s": {"class": "rnn_cell", "unit": "LSTMBlock", "from": ["prev:c", "prev:orth_embed"], "n_out": 3},
        "output_prob": {"class": "softmax", "from": ["prev:s", "c"], "target": "classes", "loss": "ce"},
        "s_transformed": {"class": "linear", "from": ["s"], "n_out": 6, "activation": None},
        "att_energy_tanh": {"class": "activation", "from": ["att_energy_in"], "activation": "tanh"},
        "att_energy": {"class": "linear", "from": ["att_energy_tanh"], "n_out": 1, "activation": None,
                       "out_type": {"same_dim_tags_as": {"T": enc_time}}},
        "att_weights": {"class": "softmax_over_spatial", "from": ["att_energy"]},
        "accum_att_weights": {"class": "combine", "kind": "add", "from": ["att_weights", "prev:accum_att_weights"],
                              "initial_output": "base:zero_enc_transformed"},
        "convolved_att": {"class": "conv", "from": ["prev:accum_att_weights"], "filter_size": (3,), "n_out": 4,
                          "padding": "same"},
        "location_feedback": {"class": "linear", "from": ["convolved_att"], "n_out": 6, "activation": None},
        "att_energy_in": {"class": "combine", "kind": "add", "from": ["location_feedback", "s_transformed"]},
        "c": {"class": "generic_attention", "base": "base:encoder", "weights": "att_weights", "auto_squeeze": True},
    }
    return {
        "encoder": {"class": "linear", "activation": "tanh", "n_out": 5, "out_type": {}, "from": "data:data"},
        "enc_transformed": {"class": "linear", "from": ["encoder"], "n_out": 1, "activation": None},
        "zero_enc_transformed": {"class": "eval", "from": ["enc_transformed"], "eval": "tf.zeros_like(source(0))"},
        "output": {"class": "rec", "from": [], "target": "classes", "max_seq_len": 5, "unit": unit},
        "decision": {"class": "decide", "from": ["output"], "loss": "edit_distance"},
    }


@pytest.mark.parametrize("search", [False, True])
def test_location_feedback_without_encoder_in_the_energies(search):
    enc_time = SpatialDim("enc time")
    graph = tf.Graph()
    with graph.as_default(), tf.compat.v1.Session(graph=graph) as session:
        net = TFNetwork(config=Config({"extern_data": {"data": {"dim": 2, "same_dim_tags_as": {"T": enc_time}},
                                                       "classes": {"dim": 7, "sparse": True}}}),
                        train_flag=not search, eval_flag=True, search_flag=search)
        net.construct_from_dict(_net_dict(enc_time))
        accum = net.get_layer("output").cell.layers["accum_att_weights"].output  # the frame's template
        assert enc_time in accum.dims and accum.batch_dim_axis is not None and len(accum.dims) == 3
        params = {v.name[:-2]: v for v in tf.compat.v1.global_variables()}
        session.run(tf.compat.v1.global_variables_initializer())
        rs = np.random.RandomState(5)
        for name in sorted(params):
            params[name].load(rs.uniform(-1.0, 1.0, size=params[name].shape.as_list()).astype("float32"), session)
        ed = net.extern_data.data
        feed = {ed["data"].placeholder: rs.normal(size=(2, 4, 2)).astype("float32"),
                ed["data"].size_placeholder[0]: np.array([4, 3]),
                ed["classes"].placeholder: np.array([[1, 2, 3, 4, 0], [2, 3, 1, 0, 0]]),
                ed["classes"].size_placeholder[0]: np.array([5, 3])}
        out = net.get_layer("output").output
        fetch = {"out": out.placeholder, "lens": out.get_sequence_lengths()}
        if not search:
            net.maybe_construct_objective()
            fetch["loss"] = net.losses_dict["output/output_prob"].get_loss_value_for_fetch()
        v = session.run(fetch, feed)
    if search:
        np.testing.assert_array_equal(v["out"], [[0, 4, 0, 4]])
        np.testing.assert_array_equal(v["lens"], [0, 1, 0, 1])
    else:
        np.testing.assert_array_equal(v["out"], [[1, 2], [2, 3], [3, 1], [4, 0], [0, 0]])
        np.testing.assert_allclose(v["loss"], 16.955845, rtol=1e-5)

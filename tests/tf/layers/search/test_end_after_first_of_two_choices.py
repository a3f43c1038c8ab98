"""Two dependent choices in a search step with different beam sizes (5, then 3) and the ``end`` layer reading the
first one: its flags are taken over into the hypotheses of the last choice (was: a shape error [B*3] vs [B*5]), as
the reference's test_attention_two_dependent_targets. Decided outputs and lengths observed by running the reference
on the same network, inputs and parameter values."""

import numpy as np
import pytest
import tensorflow as tf

import returnn.tf.layers  # noqa: F401
from returnn.config import Config
from returnn.tf.network import TFNetwork

UNIT = {
    "end": {"class": "compare", "from": ["output_0"], "value": 0},
    "orth_embed_0": {"class": "linear", "activation": None, "from": ["output_0"], "n_out": 3},
    "orth_embed_1": {"class": "linear", "activation": None, "from": ["output_1"], "n_out": 3},
    "orth_embed": {"class": "copy", "from": ["orth_embed_0", "orth_embed_1"]},
    "s": {"class": "linear", "activation": "tanh", "from": ["prev:orth_embed", "base:enc"], "n_out": 4},
    "output_prob_0": {"class": "softmax", "from": ["s"], "target": "classes_0"},
    "output_prob_1": {"class": "softmax", "from": ["s", "orth_embed_0"], "target": "classes_1"},
    "output_0": {"class": "choice", "target": "classes_0", "beam_size": 5, "from": "output_prob_0",
                 "length_normalization": False},
    "output_1": {"class": "choice", "target": "classes_1", "beam_size": 3, "from": "output_prob_1"},
    "output": {"class": "copy", "from": "output_1"},
    "o0": {"class": "copy", "from": "output_0", "is_output_layer": True},
}


@pytest.mark.parametrize("seed, d0, d1", [(1, [[2] * 6] * 2, [[1] * 6] * 2), (2, [[1], [1]], [[4], [4]])])
def test_end_layer_on_the_first_of_two_choices(seed, d0, d1):
    graph = tf.Graph()
    with graph.as_default(), tf.compat.v1.Session(graph=graph) as session:
        net = TFNetwork(config=Config({"extern_data": {"data": {"dim": 2}, "classes_0": {"dim": 4, "sparse": True},
                                                       "classes_1": {"dim": 5, "sparse": True}}}),
                        train_flag=False, search_flag=True)
        net.construct_from_dict({"enc": {"class": "reduce", "mode": "mean", "axis": "T", "from": "data"},
                                 "output": {"class": "rec", "from": [], "max_seq_len": 6, "unit": UNIT},
                                 "d0": {"class": "decide", "from": "output/o0", "is_output_layer": True},
                                 "d1": {"class": "decide", "from": "output", "is_output_layer": True}})
        params = {v.name[:-2]: v for v in tf.compat.v1.global_variables()}
        session.run(tf.compat.v1.global_variables_initializer())
        rs = np.random.RandomState(seed)
        for name in sorted(params):
            params[name].load(rs.uniform(-2.0, 2.0, size=params[name].shape.as_list()).astype("float32"), session)
        ed = net.extern_data.data
        feed = {ed["data"].placeholder: rs.normal(size=(2, 3, 2)).astype("float32"),
                ed["data"].size_placeholder[0]: np.array([3, 2])}
        out0, out1 = net.get_layer("d0").output, net.get_layer("d1").output
        v = session.run({"d0": out0.placeholder, "d1": out1.placeholder, "l0": out0.get_sequence_lengths(),
                         "l1": out1.get_sequence_lengths()}, feed)
    np.testing.assert_array_equal(v["d0"], d0)
    np.testing.assert_array_equal(v["d1"], d1)
    np.testing.assert_array_equal(v["l0"], [len(d0[0])] * 2)
    np.testing.assert_array_equal(v["l1"], [len(d1[0])] * 2)

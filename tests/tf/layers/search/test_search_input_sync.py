"""A beam search over the input frames (the loop's length known before the loop): the hypotheses of a sequence
shorter than the batch's longest are extended and scored as usual one step past the sequence's end, then count as
ended (extended by label 0 at no cost, their score rescaled by (t + 1) / t at each later step t, as for the length
normalization); the output keeps each sequence's length. All numbers were observed by running the reference on the
same network, inputs and parameter values."""

import numpy as np
import tensorflow as tf

import returnn.tf.layers  # noqa: F401
from returnn.config import Config
from returnn.tf.network import TFNetwork
from tf_net_helpers import load_uniform_params

EXTERN = {"data": {"dim": 3}, "classes": {"dim": 4, "sparse": True}}
NET = {"output": {"class": "rec", "from": "data", "target": "classes", "unit": {
    "emb": {"class": "linear", "from": "prev:output", "n_out": 4, "activation": None},
    "s": {"class": "linear", "activation": "tanh", "from": ["emb", "data:source"], "n_out": 4},
    "prob": {"class": "softmax", "from": "s", "target": "classes"},
    "output": {"class": "choice", "from": "prob", "target": "classes", "beam_size": 2, "initial_output": 0},
    "sc": {"class": "choice_get_beam_scores", "from": "output", "is_output_layer": True}}}}


def _search(net_dict):
    """:return: output, lengths and beam scores (``sc``) of the searched rec layer, seeded parameters and inputs"""
    graph = tf.Graph()
    with graph.as_default(), tf.compat.v1.Session(graph=graph) as session:
        net = TFNetwork(config=Config({"extern_data": EXTERN, "behavior_version": 12}), search_flag=True,
                        eval_flag=False)
        net.construct_from_dict(net_dict)
        rec = net.get_layer("output")
        session.run(tf.compat.v1.global_variables_initializer())
        rs = np.random.RandomState(5)
        load_uniform_params(session, {v.name[:-2]: v for v in tf.compat.v1.trainable_variables()}, rs)
        ed = net.extern_data.data
        feed = {ed["data"].placeholder: rs.normal(size=(2, 4, 3)).astype("float32"),
                ed["data"].size_placeholder[0]: np.array([4, 1])}
        return session.run({"out": rec.output.placeholder, "lens": rec.output.get_sequence_lengths(),
                            "sc": rec.sub_layers["sc"].output.placeholder}, feed)


def test_input_sync_search_scores_one_step_past_the_end_then_rescales():
    v = _search(NET)
    np.testing.assert_array_equal(v["lens"], [4, 4, 1, 1])
    np.testing.assert_array_equal(v["out"][:, :2], [[2, 2], [2, 2], [2, 2], [2, 3]])
    assert list(v["out"][0, 2:]) == [2, 1]
    sc = v["sc"]  # [T, B*K], backtracked beam scores per step
    np.testing.assert_allclose(sc, [[-0.0784, -0.0784, -0.0748, -3.1217], [-0.1476, -0.1476, -0.146, -3.1918],
                                    [-0.4125, -0.4125, -0.219, -4.7877], [-0.8481, -1.5788, -0.292, -6.3836]],
                               atol=2e-4)
    # sequence 2 (length 1): scored at steps 0 and 1, ended from step 2 on: score * 3 / 2, then * 4 / 3
    np.testing.assert_allclose(sc[2, 2:], sc[1, 2:] * 3 / 2, rtol=1e-5)
    np.testing.assert_allclose(sc[3, 2:], sc[2, 2:] * 4 / 3, rtol=1e-5)


def test_input_sync_search_without_length_normalization_freezes_after_one_step_past_the_end():
    unit = dict(NET["output"]["unit"])
    unit["output"] = dict(unit["output"], length_normalization=False)
    sc = _search({"output": dict(NET["output"], unit=unit)})["sc"]
    # observed in the reference: as above up to step 1, then the scores of sequence 2 stay
    np.testing.assert_allclose(sc, [[-0.0784, -0.0784, -0.0748, -3.1217], [-0.1476, -0.1476, -0.146, -3.1918],
                                    [-0.4125, -0.4125, -0.146, -3.1918], [-0.8481, -1.5788, -0.146, -3.1918]],
                               atol=2e-4)

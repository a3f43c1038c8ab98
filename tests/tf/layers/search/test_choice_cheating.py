"""``choice`` with ``cheating`` in a search: the loop runs for the target's length and the last hypothesis of the
beam is the target (the gold hypothesis); outputs, lengths and scores observed from the reference on the same
network and parameters."""

import numpy as np
import pytest
import tensorflow as tf

from returnn.config import Config
from returnn.tf.network import TFNetwork

EXTERN = {"data": {"dim": 3}, "classes": {"dim": 5, "sparse": True, "available_for_inference": True}}
TARGETS, TARGET_LENS = [[3, 1, 4, 0], [2, 2, 0, 0]], [4, 3]


def _search(session, beam, cheating):
    net = TFNetwork(config=Config({"extern_data": EXTERN}), train_flag=False, search_flag=True)
    net.construct_from_dict({
        "output": {"class": "rec", "from": [], "target": "classes", "max_seq_len": 10, "unit": {
            "output": {"class": "choice", "target": "classes", "beam_size": beam, "from": "prob",
                       "initial_output": 0, "cheating": cheating},
            "end": {"class": "compare", "from": "output", "value": 0},
            "emb": {"class": "linear", "from": "prev:output", "n_out": 4},
            "prob": {"class": "softmax", "from": "emb", "n_out": 5}}},
        "decision": {"class": "decide", "from": "output", "is_output_layer": True}})
    session.run(tf.compat.v1.global_variables_initializer())
    rs = np.random.RandomState(0)
    for var in tf.compat.v1.trainable_variables():  # emb/W, emb/b, prob/W, prob/b
        var.load(rs.uniform(-2, 2, var.shape.as_list()), session)
    data, classes = net.extern_data.data["data"], net.extern_data.data["classes"]
    feed = {data.placeholder: np.zeros((2, 4, 3), "float32"), data.size_placeholder[0]: [4, 4],
            classes.placeholder: TARGETS, classes.size_placeholder[0]: TARGET_LENS}
    out = net.layers["output"].output
    hyps, lens, scores, decision = session.run(
        [out.copy_as_batch_major().placeholder, out.get_sequence_lengths(), out.beam.scores,
         net.layers["decision"].output.copy_as_batch_major().placeholder], feed)
    return hyps.tolist(), lens.tolist(), scores, decision.tolist()


@pytest.mark.parametrize("beam, expected_hyps, expected_scores", [
    (1, [[3, 1, 4, 0], [2, 2, 0, 0]], [[-2.648], [-7.241]]),
    (3, [[3, 3, 3, 3], [3, 3, 3, 3], [3, 1, 4, 0], [3, 3, 3, 3], [3, 0, 3, 3], [2, 2, 0, 0]],
     [[-0.304, -0.304, -2.648], [-0.304, -0.423, -7.241]]),
])
def test_choice_cheating_gold_hypothesis_last_like_reference(session, beam, expected_hyps, expected_scores):
    hyps, lens, scores, decision = _search(session, beam, cheating=True)
    assert hyps == expected_hyps
    assert lens == [4] * beam + [3] * beam  # the target's lengths
    np.testing.assert_allclose(scores, expected_scores, atol=1e-3)
    assert decision == ([[3, 1, 4, 0], [2, 2, 0, 0]] if beam == 1 else [[3, 3, 3, 3], [3, 3, 3, 3]])


def test_choice_without_cheating_searches_to_max_seq_len(session):
    hyps, lens, scores, _ = _search(session, 3, cheating=False)
    assert lens == [10, 9, 8, 10, 9, 8] and hyps[0] == [3] * 10
    np.testing.assert_allclose(scores, [[-0.407, -0.503, -0.509]] * 2, atol=1e-3)

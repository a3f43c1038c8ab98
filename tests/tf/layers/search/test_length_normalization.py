"""Beam search with ``length_normalization`` against the reference's results (observed on the same network with
a fixed table of label probabilities): which hypotheses survive, their order, lengths, the output's time axis
(up to the longest hypothesis) and the final scores (the rec layer's beam scores)."""

import numpy as np
import pytest
import tensorflow as tf

from returnn.config import Config
from returnn.tf.network import TFNetwork

# p(next label | previous label); label 0 is the initial label, label 1 the end of sequence
TABLE = [[0.001, 0.6, 0.3, 0.099], [1e-9, 0.9994, 0.0006, 1e-9], [0.001, 0.1, 0.1, 0.799], [0.001, 0.5, 0.25, 0.249]]
ENC_ROWS = [[0, 5.0, 0, 0], [0, 0, 0, 0]]  # the encoder's first feature favours the end label


def _search(session, beam, max_seq_len, data, length_norm=True):
    v = len(TABLE)
    unit = {"emb": {"class": "linear", "activation": None, "from": "prev:output", "n_out": v, "with_bias": False},
            "prob": {"class": "softmax", "from": ["emb", "base:enc"], "n_out": v, "with_bias": False},
            "output": {"class": "choice", "from": "prob", "target": "classes", "beam_size": beam,
                       "initial_output": 0, "length_normalization": length_norm},
            "end": {"class": "compare", "from": "output", "value": 1}}
    net = TFNetwork(config=Config({"extern_data": {"data": {"dim": 2}, "classes": {"dim": v, "sparse": True}}}),
                    train_flag=False, search_flag=True)
    net.construct_from_dict({"enc": {"class": "reduce", "mode": "mean", "axis": "T", "from": "data"},
                             "output": {"class": "rec", "from": [], "max_seq_len": max_seq_len, "target": "classes",
                                        "unit": unit},
                             "decision": {"class": "decide", "from": "output"}})
    session.run(tf.compat.v1.global_variables_initializer())
    params = {p.name[:-2]: p for p in net.get_params_list()}
    logits = np.log(np.array(TABLE))
    params["output/rec/prob/W"].load(np.concatenate([logits, ENC_ROWS], 0).astype("float32"), session)
    params["output/rec/emb/W"].load(np.eye(v, dtype="float32"), session)
    out = net.get_layer("output").output
    data = np.array(data, "float32")
    ed = net.extern_data.data["data"]
    return session.run({"output": out.copy_as_batch_major().placeholder, "lens": out.get_sequence_lengths(),
                        "scores": out.beam.scores, "decision": net.get_layer("decision").output.placeholder},
                       feed_dict={ed.placeholder: data, ed.size_placeholder[0]: [data.shape[1]] * data.shape[0]})


# observed from the reference (beam 3, one sequence, zero input)
@pytest.mark.parametrize("max_seq_len,output,lens,scores", [
    (1, [[1], [2], [3]], [0, 1, 1], [-0.2554, -0.6020, -1.1563]),
    (3, [[1, 0, 0], [2, 3, 1], [2, 3, 2]], [0, 2, 3], [-0.3831, -0.5304, -0.7037]),
    (4, [[1, 0, 0, 0], [2, 3, 1, 0], [2, 3, 2, 3]], [0, 2, 4], [-0.4087, -0.5657, -0.6078]),
    (5, [[1, 0, 0, 0], [2, 3, 1, 0], [2, 3, 2, 3]], [0, 2, 4], [-0.5108, -0.7072, -0.7464]),
])
def test_as_reference(session, max_seq_len, output, lens, scores):
    res = _search(session, 3, max_seq_len, [[[0.0, 0.0]]])
    assert res["output"].tolist() == output and res["lens"].tolist() == lens
    np.testing.assert_allclose(res["scores"], [scores], atol=1e-4)
    assert res["decision"].shape == (1, 0)  # the best hypothesis is the end label alone


def test_without_length_normalization_as_reference(session):
    res = _search(session, 3, 4, [[[0.0, 0.0]]], length_norm=False)
    assert res["output"].tolist() == [[1, 0, 0, 0], [2, 3, 1, 0], [2, 3, 2, 3]]
    np.testing.assert_allclose(res["scores"], [[-0.5108, -2.1215, -3.0391]], atol=1e-4)


def test_batch_normalized_by_longest_hypothesis_as_reference(session):
    """Two sequences ending at different steps: the normalization uses the longest hypothesis of the batch."""
    res = _search(session, 3, 3, [[[0.0, 0.0]], [[1.0, 0.0]]])
    assert res["output"].tolist() == [[1, 0, 0], [2, 3, 1], [2, 3, 2], [1, 0, 0], [2, 1, 0], [3, 1, 0]]
    assert res["lens"].tolist() == [0, 2, 3, 0, 1, 1]
    np.testing.assert_allclose(res["scores"], [[-0.3831, -0.5304, -0.7037], [-0.0034, -2.1587, -2.5549]], atol=1e-4)

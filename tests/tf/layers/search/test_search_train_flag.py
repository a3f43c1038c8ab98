"""A beam search with the train flag (as in MBR training, e.g. ``search_score`` / ``expected_loss`` on the beam):
the loop runs for the target's length (the ``end`` layer does not end it), hypotheses of a shorter sequence are
scored one step past its end and count as ended from then on (their score rescaled for the length normalization),
and gradients flow back through the beam scores. All numbers were observed by running the reference on the same
network, inputs and parameter values."""

import numpy as np
import tensorflow as tf

import returnn.tf.layers  # noqa: F401
from tf_net_helpers import search_net_with_uniform_params

EXTERN = {"data": {"dim": 3}, "classes": {"dim": 5, "sparse": True}}
UNIT = {
    "emb": {"class": "linear", "activation": None, "n_out": 4, "from": "prev:output"},
    "s": {"class": "linear", "activation": "tanh", "n_out": 4, "from": ["emb", "base:enc"]},
    "prob": {"class": "softmax", "from": "s", "target": "classes"},
    "output": {"class": "choice", "from": "prob", "beam_size": 3, "target": "classes", "input_type": "prob",
               "initial_output": 0},
    "sc": {"class": "choice_get_beam_scores", "from": "output", "is_output_layer": True},
    "end": {"class": "compare", "from": "output", "value": 0},
}
NET = {"enc": {"class": "reduce", "mode": "mean", "axis": "T", "from": "data"},
       "dec": {"class": "rec", "from": [], "max_seq_len": 6, "target": "classes", "unit": UNIT},
       "output": {"class": "copy", "from": "dec", "loss": "search_score"}}


def _run(train_flag):
    graph = tf.Graph()
    with graph.as_default(), tf.compat.v1.Session(graph=graph) as session:
        built = search_net_with_uniform_params(session, {"extern_data": EXTERN, "behavior_version": 12}, NET,
                                               train_flag=train_flag)
        net, params, loss, grads, feed = (built[k] for k in ("net", "params", "loss", "grads", "feed"))
        dec = net.get_layer("dec")
        fetch = {"out": dec.output.placeholder, "lens": dec.output.get_sequence_lengths(), "loss": loss,
                 "scores": dec.output.beam.scores, "sc": dec.sub_layers["sc"].output.placeholder}
        values = session.run(fetch, feed)
        if train_flag:
            values["grads"] = {k: session.run(tf.convert_to_tensor(g), feed) if g is not None else None
                               for k, g in zip(sorted(params), grads)}
        return values


def test_search_with_train_flag_runs_for_the_target_length_with_gradients():
    v = _run(True)
    # every hypothesis gets its target's length; label 0 (the end label) does not end it
    np.testing.assert_array_equal(v["lens"], [4, 4, 4, 2, 2, 2])
    out = v["out"]  # [T, B*K], time-major, backtracked
    assert out.shape == (4, 6)
    np.testing.assert_array_equal(out[:, :3], [[1, 1, 1], [1, 1, 2], [1, 2, 1], [1, 1, 1]])
    np.testing.assert_array_equal(out[:2, 3:], [[2, 1, 1], [2, 2, 1]])
    # accumulated beam scores (backtracked): the sequence of length 2 is scored at step 2 too (one step past its
    # end), at step 3 its hypotheses count as ended: score * (3 + 1) / 3
    np.testing.assert_allclose(v["sc"], [[-0.7335, -0.7335, -0.7335, -0.793, -1.2043, -1.2043],
                                         [-1.5995, -1.5995, -1.8472, -1.2724, -2.1646, -2.1746],
                                         [-2.4656, -2.7132, -2.6237, -1.7519, -2.644, -3.1349],
                                         [-3.3316, -3.4898, -3.4898, -2.3359, -3.5254, -4.1799]], atol=2e-4)
    np.testing.assert_allclose(v["sc"][3, 3:], v["sc"][2, 3:] * 4 / 3, rtol=1e-5)
    # final scores divided by the longest length + 1
    np.testing.assert_allclose(v["scores"], [[-0.6663, -0.698, -0.698], [-0.4672, -0.7051, -0.836]], atol=2e-4)
    np.testing.assert_allclose(v["loss"], 4.070457, rtol=1e-5)
    # gradients through the beam scores: sum of abs values per parameter, as observed
    expected = {"dec/rec/emb/W": 0.65552, "dec/rec/emb/b": 0.34404, "dec/rec/s/W": 2.28959, "dec/rec/s/b": 0.34624,
                "dec/rec/prob/W": 8.00346, "dec/rec/prob/b": 2.54375}
    assert sorted(v["grads"]) == sorted(expected)
    for k, total in expected.items():
        assert v["grads"][k] is not None, k
        np.testing.assert_allclose(np.abs(v["grads"][k]).sum(), total, rtol=1e-4, err_msg=k)


def test_search_without_train_flag_ends_at_the_end_layer():
    v = _run(False)
    # without the train flag, only the end layer (label 0) or max_seq_len (6) ends the hypotheses; here none
    # chooses label 0, so all run to 6 frames (observed in the reference, with these scores and loss)
    np.testing.assert_array_equal(v["lens"], [6] * 6)
    np.testing.assert_array_equal(v["out"][3:, :], [[1, 1, 1, 2, 2, 2]] * 3)
    np.testing.assert_allclose(v["scores"], [[-0.7234, -0.746, -0.746], [-0.4558, -0.5832, -0.6533]], atol=2e-4)
    np.testing.assert_allclose(v["loss"], 3.9076273, rtol=1e-5)

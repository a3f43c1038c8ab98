"""Beam search over the frames of the rec layer's input (the choice reads per-frame log-probabilities from
``data:source``): the final hypotheses are the best label sequences (checked by enumerating all of them), the
``ChoiceLayer._debug_out`` records of each step, the beam of the choice's output, and an ``end`` layer that ends
hypotheses within the input's frames (lengths observed from the reference)."""

import itertools

import numpy as np
import pytest
import tensorflow as tf

from returnn.tf.layers.search.choice import ChoiceLayer
from returnn.tf.network import ExternData, TFNetwork

LOGP = np.log(np.array([
    [[0.5, 0.3, 0.15, 0.05], [0.1, 0.2, 0.3, 0.4], [0.25, 0.25, 0.4, 0.1]],
    [[0.05, 0.05, 0.1, 0.8], [0.6, 0.1, 0.2, 0.1], [0.3, 0.3, 0.2, 0.2]],
], dtype="float32"))  # [B, T, V]


@pytest.fixture
def debug_records():
    ChoiceLayer._debug_out = []
    yield ChoiceLayer._debug_out
    ChoiceLayer._debug_out = None


def _build(with_end: bool):
    unit = {"output": {"class": "choice", "from": "data:source", "input_type": "log_prob", "beam_size": 3,
                       "target": "classes", "initial_output": 0}}
    if with_end:
        unit["end"] = {"class": "compare", "from": "output", "value": 0}
    extern = ExternData({"data": {"dim": 4}, "classes": {"dim": 4, "sparse": True, "available_for_inference": False}})
    net = TFNetwork(extern_data=extern, search_flag=True, train_flag=False, eval_flag=False)
    net.construct_from_dict({"output": {"class": "rec", "from": "data", "max_seq_len": 3, "unit": unit}})
    data = net.extern_data.data["data"]
    feed = {data.placeholder: LOGP, data.size_placeholder[0]: [3, 3]}
    return net, feed


def test_best_sequences_and_debug_records(session, debug_records):
    net, feed = _build(with_end=False)
    rec = net.layers["output"]
    assert rec.get_search_beam_size() == 3
    assert rec.cell.net.layers["output"].output.beam.beam_size == 3
    assert net.get_search_choices(sources=rec.sources) is None
    out, lens = session.run((rec.output.placeholder, rec.output.get_sequence_lengths()), feed_dict=feed)
    assert out.shape == (3, 6) and lens.tolist() == [3] * 6
    for b in range(2):  # independent frames: the beam keeps the prefixes of the best full sequences
        ranked = sorted(itertools.product(range(4), repeat=3), key=lambda seq: -sum(LOGP[b, t, l] for t, l in
                                                                                   enumerate(seq)))
        assert [tuple(out[:, b * 3 + k]) for k in range(3)] == ranked[:3]
    assert sorted(r["step"] for r in debug_records) == [0, 1, 2]
    for record in debug_records:
        t = record["step"]
        for key in ("src_beam_idxs", "scores", "labels"):
            assert record[key].shape == (2, 3)
        for b in range(2):
            prefixes = sorted(itertools.product(range(4), repeat=t + 1),
                              key=lambda seq: -sum(LOGP[b, i, l] for i, l in enumerate(seq)))[:3]
            np.testing.assert_allclose(record["scores"][b], [sum(LOGP[b, i, l] for i, l in enumerate(seq))
                                                             for seq in prefixes], rtol=1e-5)
            assert record["labels"][b].tolist() == [seq[-1] for seq in prefixes]


def test_end_layer_within_input_frames_as_reference(session, debug_records):
    net, feed = _build(with_end=True)
    rec = net.layers["output"]
    assert rec.cell.layers_in_loop == ["end", "output"]
    out, lens = session.run((rec.output.placeholder, rec.output.get_sequence_lengths()), feed_dict=feed)
    # observed from the reference (same network and input): the end label 0 ends a hypothesis (length without it)
    assert lens.tolist() == [0, 3, 3, 1, 2, 3]
    assert out.T.tolist() == [[0, 0, 0], [1, 3, 2], [1, 2, 2], [3, 0, 0], [3, 2, 0], [3, 2, 1]]
    records = sorted(debug_records, key=lambda r: r["step"])
    assert [r["labels"].tolist() for r in records] == [[[0, 1, 2], [3, 2, 0]], [[0, 3, 2], [0, 2, 1]],
                                                       [[0, 2, 2], [0, 0, 1]]]
    # an ended hypothesis' score is rescaled to its length-normalized value at the step (score * (t + 1) / t)
    np.testing.assert_allclose(records[2]["scores"], [[-2.0794415, -3.0365543, -3.3242364],
                                                      [-1.1009536, -3.0365543, -3.0365543]], rtol=1e-5)


def test_no_debug_records_by_default(session):
    assert ChoiceLayer._debug_out is None
    net, feed = _build(with_end=False)
    session.run(net.layers["output"].output.placeholder, feed_dict=feed)
    assert ChoiceLayer._debug_out is None


def test_choice_with_search_true_searches_without_search_flag(session):
    extern = ExternData({"data": {"dim": 4}, "classes": {"dim": 4, "sparse": True}})
    net = TFNetwork(extern_data=extern, train_flag=False, eval_flag=True)
    assert not net.search_flag
    unit = {"output": {"class": "choice", "from": "data:source", "input_type": "log_prob", "beam_size": 3,
                       "target": "classes", "initial_output": 0, "search": True}}
    net.construct_from_dict({"output": {"class": "rec", "from": "data", "unit": unit}})
    rec = net.layers["output"]
    assert rec.output.beam is not None and rec.output.beam.beam_size == 3
    data = net.extern_data.data["data"]
    out = session.run(rec.output.placeholder, feed_dict={data.placeholder: LOGP, data.size_placeholder[0]: [3, 3]})
    assert out.shape == (3, 6)
    assert out[:, 0].tolist() == [int(np.argmax(LOGP[0, t])) for t in range(3)]

"""``choice_get_beam_scores``, ``choice_get_src_beams`` and ``decide_keep_beam`` in and after a searched rec loop,
against the values observed from the reference on the same network (fixed table of label probabilities)."""

import numpy as np
import pytest
import tensorflow as tf

from returnn.config import Config
from returnn.errors import LayerArgError
from returnn.tf.network import TFNetwork

TABLE = [[0.001, 0.6, 0.3, 0.099], [1e-9, 0.9994, 0.0006, 1e-9], [0.001, 0.1, 0.1, 0.799], [0.001, 0.5, 0.25, 0.249]]


def _build(session, extra_unit, extra_top, search=True):
    v = len(TABLE)
    unit = {"emb": {"class": "linear", "activation": None, "from": "prev:output", "n_out": v, "with_bias": False},
            "prob": {"class": "softmax", "from": ["emb"], "n_out": v, "with_bias": False, "target": "classes",
                     "loss": "ce"},
            "output": {"class": "choice", "from": "prob", "target": "classes", "beam_size": 3, "initial_output": 0},
            "end": {"class": "compare", "from": "output", "value": 1}}
    unit.update(extra_unit)
    net_dict = {"enc": {"class": "reduce", "mode": "mean", "axis": "T", "from": "data"},
                "output": {"class": "rec", "from": [], "max_seq_len": 5, "target": "classes", "unit": unit}}
    net_dict.update(extra_top)
    net = TFNetwork(config=Config({"extern_data": {"data": {"dim": 2}, "classes": {"dim": v, "sparse": True}}}),
                    train_flag=not search, search_flag=search, eval_flag=not search)
    net.construct_from_dict(net_dict)
    session.run(tf.compat.v1.global_variables_initializer())
    params = {p.name[:-2]: p for p in net.get_params_list()}
    params["output/rec/prob/W"].load(np.log(np.array(TABLE)).astype("float32"), session)
    params["output/rec/emb/W"].load(np.eye(v, dtype="float32"), session)
    ed = net.extern_data.data
    feed = {ed["data"].placeholder: np.zeros((2, 2, 2), "float32"), ed["data"].size_placeholder[0]: [2, 2]}
    if not search:
        feed.update({ed["classes"].placeholder: [[2, 3, 1], [3, 1, 0]], ed["classes"].size_placeholder[0]: [3, 2]})
    return net, feed


def test_in_loop_as_reference(session):
    net, feed = _build(session, {
        "sc": {"class": "choice_get_beam_scores", "from": "output", "is_output_layer": True},
        "src": {"class": "choice_get_src_beams", "from": "output", "is_output_layer": True},
        "keep": {"class": "decide_keep_beam", "from": "output", "is_output_layer": True}}, {})
    sc, src, keep = session.run([net.get_layer(f"output/{n}").output.placeholder for n in ("sc", "src", "keep")],
                                feed_dict=feed)
    # observed ([T, B*K], time-major; both sequences alike): scores and source beams of each final hypothesis's
    # history; decide_keep_beam's values as chosen per step (not re-ordered by later steps)
    ref_sc = [[-0.5108, -1.204, -1.204], [-1.0217, -1.4284, -1.4284], [-1.5325, -2.1215, -2.8147],
              [-2.0433, -2.8287, -3.0391]]
    np.testing.assert_allclose(sc, [row * 2 for row in ref_sc], atol=1e-4)
    assert src.tolist() == [row * 2 for row in [[0, 0, 0], [0, 1, 1], [0, 1, 1], [0, 1, 2]]]
    assert keep.tolist() == [row * 2 for row in [[1, 2, 3], [0, 3, 1], [0, 1, 2], [0, 0, 3]]]


def test_after_loop_as_reference(session):
    net, feed = _build(session, {}, {
        "fs": {"class": "choice_get_beam_scores", "from": "output", "is_output_layer": True},
        "fsrc": {"class": "choice_get_src_beams", "from": "output", "is_output_layer": True},
        "dkb": {"class": "decide_keep_beam", "from": "output", "is_output_layer": True}})
    fs, fsrc, dkb, out = session.run([net.get_layer(n).output.placeholder for n in ("fs", "fsrc", "dkb", "output")],
                                     feed_dict=feed)
    assert net.get_layer("fs").output.dims[0].is_batch_dim() and fs.shape == (6,)
    np.testing.assert_allclose(fs, [-0.5108, -0.7072, -0.7464] * 2, atol=1e-4)  # final, length-normalized
    assert fsrc.tolist() == [0, 1, 2] * 2
    assert dkb.tolist() == out.tolist() == [row * 2 for row in [[1, 2, 2], [0, 3, 3], [0, 1, 2], [0, 0, 3]]]


@pytest.mark.parametrize("layer_class", ["choice_get_beam_scores", "choice_get_src_beams"])
def test_without_search_is_an_error_as_in_reference(session, layer_class):
    with pytest.raises(LayerArgError, match="no search choices"):
        _build(session, {"x": {"class": layer_class, "from": "output", "is_output_layer": True}}, {}, search=False)


def test_decide_keep_beam_without_search_is_identity(session):
    net, feed = _build(session, {"keep": {"class": "decide_keep_beam", "from": "output", "is_output_layer": True}},
                       {}, search=False)
    keep = net.get_layer("output/keep").output
    assert session.run(keep.copy_as_batch_major().placeholder, feed_dict=feed).tolist() == [[2, 3, 1], [3, 1, 0]]

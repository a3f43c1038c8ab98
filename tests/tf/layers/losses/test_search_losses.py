"""search_score, expected_loss and bleu on a small beam search: values observed from the reference (same params and
inputs), and the formulas recomputed in numpy from the beam's scores and hypotheses."""

import numpy as np
import pytest
import tensorflow as tf

import returnn.tf.layers  # noqa: F401
from returnn.config import Config
from returnn.errors import LayerArgError
from returnn.tf.layers.losses.bleu import sentence_bleu
from returnn.tf.network import TFNetwork
from returnn.util.edit_distance import edit_distance_counts

EXTERN = {"data": {"dim": 3}, "classes": {"dim": 5, "sparse": True}}
_SHAPES = {"output/rec/emb/W": (5, 4), "output/rec/emb/b": (4,), "output/rec/s/W": (7, 4), "output/rec/s/b": (4,),
           "output/rec/prob/W": (4, 5), "output/rec/prob/b": (5,)}
_R = np.random.RandomState(21)
PARAMS = {k: (_R.normal(size=s) * 0.8).astype("float32") for k, s in sorted(_SHAPES.items())}
X = np.random.RandomState(0).normal(size=(2, 4, 3)).astype("float32")
Y = np.array([[1, 2, 3, 0], [4, 2, 0, 0]], "int32")


def _net_dict():
    return {
        "enc": {"class": "reduce", "mode": "mean", "axis": "T", "from": "data"},
        "output": {"class": "rec", "from": [], "max_seq_len": 6, "target": "classes", "unit": {
            "emb": {"class": "linear", "activation": None, "n_out": 4, "from": "prev:output"},
            "s": {"class": "linear", "activation": "tanh", "n_out": 4, "from": ["emb", "base:enc"]},
            "prob": {"class": "softmax", "from": "s", "target": "classes", "loss": "ce"},
            "output": {"class": "choice", "from": "prob", "beam_size": 3, "target": "classes", "input_type": "prob",
                       "initial_output": 0},
            "end": {"class": "compare", "from": "output", "value": 0}}},
        "decision": {"class": "decide", "from": "output", "loss": "search_score", "target": "classes"},
        "ss2": {"class": "copy", "from": "output", "loss": "search_score"},
        "exp": {"class": "copy", "from": "output", "loss": "expected_loss", "target": "classes",
                "loss_opts": {"loss": {"class": "edit_distance"}, "loss_kind": "error"}},
        "exp2": {"class": "copy", "from": "output", "loss": "expected_loss", "target": "classes",
                 "loss_opts": {"loss": {"class": "edit_distance"}, "loss_kind": "error", "divide_beam_size": False,
                               "norm_scores_stop_gradient": False, "subtract_average_loss": False}},
        "exp_bleu": {"class": "copy", "from": "output", "loss": "expected_loss", "target": "classes",
                     "loss_opts": {"loss": {"class": "bleu"}, "loss_kind": "error"}},
        "bleu": {"class": "decide", "from": "output", "loss": "bleu", "target": "classes"},
    }


@pytest.fixture
def results(session):
    net = TFNetwork(config=Config({"extern_data": EXTERN}), train_flag=False, eval_flag=True, search_flag=True)
    net.construct_from_dict(_net_dict())
    losses = net.get_losses_initialized()[0]
    session.run(tf.compat.v1.global_variables_initializer())
    for v in tf.compat.v1.global_variables():
        if v.name[:-2] in PARAMS:
            v.load(PARAMS[v.name[:-2]], session)
    fetches = {f"{kind}:{name}": getattr(h, f"get_{kind}_value")() for name, h in losses.items()
               for kind in ("loss", "error") if getattr(h, f"get_{kind}_value")() is not None}
    fetches.update({f"norm:{name}": h.get_norm_factor() for name, h in losses.items()})
    out = net.get_layer("output").output
    fetches.update(scores=out.beam.scores, hyps=out.placeholder, hyp_lens=out.get_sequence_lengths(),
                   best=net.get_layer("decision").output.placeholder,
                   best_lens=net.get_layer("decision").output.get_sequence_lengths())
    feed = {net.extern_data.data["data"].placeholder: X, net.extern_data.data["data"].size_placeholder[0]: [4, 3],
            net.extern_data.data["classes"].placeholder: Y, net.extern_data.data["classes"].size_placeholder[0]: [4, 2]}
    return session.run(fetches, feed)


def test_observed_from_reference(results):
    expected = {"loss:decision": 1.1192338, "norm:decision": 1 / 6, "loss:ss2": 3.8895497, "norm:ss2": 1 / 35,
                "loss:exp": 0.007752, "norm:exp": 1 / 18, "loss:exp2": 9.023256, "error:bleu": -0.2435009,
                "norm:bleu": 1 / 6}
    for key, value in expected.items():
        assert results[key] == pytest.approx(value, rel=1e-5), key
    assert "error:decision" not in results and "error:exp" not in results and "loss:bleu" not in results


def test_formulas(results):
    scores = results["scores"]  # [B, K]
    hyps = [list(results["hyps"][:n, i]) for i, n in enumerate(results["hyp_lens"])]
    refs = [list(Y[0, :4]), list(Y[1, :2])]
    k = scores.shape[1]
    ed = np.array([edit_distance_counts(refs[i // k], h).errors for i, h in enumerate(hyps)], float).reshape(-1, k)
    neg_bleu = -np.array([sentence_bleu(refs[i // k], h) for i, h in enumerate(hyps)]).reshape(-1, k)
    w = np.exp(scores - np.log(np.exp(scores).sum(1, keepdims=True)))
    assert results["loss:ss2"] == pytest.approx(-scores.sum(), rel=1e-5)
    assert results["loss:exp2"] == pytest.approx((w * ed).sum(), rel=1e-5)
    assert results["loss:exp"] == pytest.approx((w * (ed - ed.mean(1, keepdims=True))).sum() / k, rel=1e-4, abs=1e-6)
    assert results["loss:exp_bleu"] == pytest.approx((w * (neg_bleu - neg_bleu.mean(1, keepdims=True))).sum() / k,
                                                     rel=1e-4, abs=1e-6)
    best = [list(results["best"][i, :n]) for i, n in enumerate(results["best_lens"])]
    assert results["error:bleu"] == pytest.approx(-sum(sentence_bleu(r, h) for r, h in zip(refs, best)), rel=1e-5)


def test_search_score_without_search(session):
    net = TFNetwork(config=Config({"extern_data": EXTERN}), train_flag=True)
    net.construct_from_dict({"output": {"class": "softmax", "from": "data", "loss": "search_score",
                                        "target": "classes"}})
    with pytest.raises(LayerArgError) as info:
        net.get_losses_initialized()[0]["output"].get_loss_value()
    assert "search" in str(info.value)


def test_expected_loss_value_kind_without_values(session):
    net = TFNetwork(config=Config({"extern_data": EXTERN}), train_flag=False, eval_flag=True, search_flag=True)
    net_dict = _net_dict()
    net_dict["exp"]["loss_opts"]["loss_kind"] = "value"  # edit_distance has no value (the reference fails too)
    net.construct_from_dict(net_dict)
    with pytest.raises(LayerArgError) as info:
        net.get_losses_initialized()[0]["exp"].get_loss_value()
    assert "loss_kind" in str(info.value)

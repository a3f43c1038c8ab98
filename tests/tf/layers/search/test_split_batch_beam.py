"""``split_batch_beam``: the hypotheses of a search as an axis ``{B, K}``, and ``decide`` on values without time axis
(the final scores of ``choice_get_beam_scores``): checked against the searched rec layer's beam scores."""

import numpy as np
import pytest
import tensorflow as tf

from returnn.config import Config
from returnn.errors import LayerArgError
from returnn.tensor import SpatialDim, batch_dim
from returnn.tf.network import TFNetwork


def _net_dict(beam_dim):
    return {
        "dec": {"class": "rec", "from": "data", "target": "classes", "unit": {
            "emb": {"class": "linear", "from": "prev:output", "n_out": 4},
            "lin": {"class": "linear", "from": ["data:source", "emb"], "n_out": 5},
            "prob": {"class": "activation", "from": "lin", "activation": "softmax"},
            "output": {"class": "choice", "from": "prob", "beam_size": 3, "target": "classes", "initial_output": 0}}},
        "scores": {"class": "choice_get_beam_scores", "from": "dec"},
        "scores_split": {"class": "split_batch_beam", "from": "scores", "beam_dim": beam_dim},
        "best": {"class": "decide", "from": "scores"},
        "lse": {"class": "reduce", "mode": "logsumexp", "from": "scores_split", "axis": beam_dim},
        "output": {"class": "combine", "kind": "sub", "from": ["best", "lse"]},
    }


def test_split_and_decide_scores(session):
    beam_dim = SpatialDim("beam", 3)
    net = TFNetwork(config=Config({"extern_data": {"data": {"dim": 2}, "classes": {"dim": 5, "sparse": True}}}),
                    search_flag=True, train_flag=False)
    net.construct_from_dict(_net_dict(beam_dim))
    scores = net.get_layer("scores").output
    assert scores.beam is not None and scores.beam.beam_size == 3 and scores.dims == (batch_dim,)
    split = net.get_layer("scores_split").output
    assert split.beam is None and split.dims == (batch_dim, beam_dim)
    session.run(tf.compat.v1.global_variables_initializer())
    data = net.extern_data.data["data"]
    feed = {data.placeholder: np.random.RandomState(1).normal(size=(4, 3, 2)), data.size_placeholder[0]: [3, 2, 3, 1]}
    flat, split_v, best, out = session.run([scores.placeholder, split.placeholder,
                                            net.get_layer("best").output.placeholder,
                                            net.get_layer("output").output.placeholder], feed_dict=feed)
    np.testing.assert_allclose(split_v, flat.reshape(4, 3))
    np.testing.assert_allclose(best, split_v.max(axis=1))  # the hypotheses are sorted: the first is the best
    np.testing.assert_allclose(out, best - np.log(np.exp(split_v).sum(axis=1)), rtol=1e-5)


def test_split_without_beam_is_an_error(session):
    net = TFNetwork(config=Config({"extern_data": {"data": {"dim": 2}}}), train_flag=False)
    with pytest.raises(LayerArgError, match="no beam"):
        net.construct_from_dict({"output": {"class": "split_batch_beam", "from": "data"}})

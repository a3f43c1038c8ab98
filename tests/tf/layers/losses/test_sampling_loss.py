"""sampling_loss: NCE values observed from the reference (fixed params, graph seed 42), full softmax and sampled
softmax against a numpy cross entropy."""

import numpy as np
import pytest
import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import SpatialDim
from tf_net_helpers import build_net, make_feed

TIME = SpatialDim("time")
EXTERN = {"data": {"dim": 6, "same_dim_tags_as": {"t": TIME}},
          "classes": {"dim": 20, "sparse": True, "same_dim_tags_as": {"t": TIME}}}
_R = np.random.RandomState(7)
X = _R.normal(size=(2, 5, 6)).astype("float32")
Y = _R.randint(0, 20, size=(2, 5)).astype("int32")
LENS = [5, 4]
_P = np.random.RandomState(11)
W = (_P.normal(size=(20, 6)) * 0.5).astype("float32")
B = (_P.normal(size=(20,)) * 0.5).astype("float32")


def _loss_value(session, **opts):
    tf.compat.v1.set_random_seed(42)
    net = build_net({"output": {"class": "softmax", "from": "data", "loss": "sampling_loss", "target": "classes",
                                "use_transposed_weights": True, "loss_opts": opts}}, EXTERN, train_flag=True)
    holder = net.get_losses_initialized()[0]["output"]
    session.run(tf.compat.v1.global_variables_initializer())
    net.layers["output"].params["W"].load(W, session)
    net.layers["output"].params["b"].load(B, session)
    feed = make_feed(net, {"data": X, "classes": Y}, {"data": LENS, "classes": LENS})
    return session.run([holder.get_loss_value(), holder.get_error_value(), holder.get_num_frames()], feed)


def _full_ce():
    mask = np.arange(5)[None] < np.array(LENS)[:, None]
    logits = X[mask] @ W.T + B
    logits -= logits.max(-1, keepdims=True)
    lp = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    return -lp[np.arange(mask.sum()), Y[mask]].sum(), (lp.argmax(-1) != Y[mask]).sum()


@pytest.mark.parametrize("opts, expected", [
    ({"num_sampled": 4, "nce_loss": True}, 87.0733),
    ({"num_sampled": 4, "nce_loss": True, "num_splits": 2, "remove_accidental_hits": True}, 86.60928),
    ({"num_sampled": 4, "nce_loss": True, "num_splits": 3}, 80.980194),
    ({"num_sampled": 4, "nce_loss": True, "num_splits": 2, "sampler": "uniform", "remove_accidental_hits": True,
      "nce_log_norm_term": 1.5}, 41.49118),
])
def test_nce_values_observed_from_reference(session, opts, expected):
    value, error, frames = _loss_value(session, **opts)
    assert value == pytest.approx(expected, rel=1e-6)
    assert error == _full_ce()[1] and frames == 9  # error: frame error of the full softmax


def test_full_softmax_is_cross_entropy(session):
    value, error, _ = _loss_value(session, num_sampled=4, use_full_softmax=True)
    assert value == pytest.approx(31.227524, rel=1e-6)  # observed from the reference
    assert value == pytest.approx(_full_ce()[0], rel=1e-5) and error == _full_ce()[1]


def test_sampled_softmax_over_all_classes_is_cross_entropy(session):
    """Uniform unique draws of all 20 classes, the true class removed as accidental hit: every logit is shifted by
    the same log expected count, so the sampled softmax equals the full cross entropy."""
    value, _, _ = _loss_value(session, num_sampled=20, sampler="uniform")
    assert value == pytest.approx(_full_ce()[0], rel=1e-5)


def test_needs_transposed_weights(session):
    net = build_net({"output": {"class": "softmax", "from": "data", "loss": "sampling_loss", "target": "classes"}},
                    EXTERN)
    with pytest.raises(LayerArgError) as info:
        net.get_losses_initialized()[0]["output"].get_loss_value()
    assert "use_transposed_weights" in str(info.value)


def test_unknown_sampler(session):
    with pytest.raises(LayerArgError) as info:
        build_net({"output": {"class": "softmax", "from": "data", "loss": "sampling_loss", "target": "classes",
                              "loss_opts": {"sampler": "zipf"}}}, EXTERN)
    assert info.value.arg == "loss_opts" and "log_uniform" in str(info.value)

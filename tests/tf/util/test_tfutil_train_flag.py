"""dropout / cond_on_train_flag (legacy TFUtil) against values observed from the reference, and the train flag
taken from the network under construction."""

import numpy as np
import pytest
import tensorflow as tf

from returnn.tf.util import basic as tf_util
from tf_net_helpers import build_net

tf1 = tf.compat.v1

# observed from the reference: dropout(ones(4, 6), keep_prob=0.5, seed=1) in a fresh graph without graph seed
_OBSERVED_MASK_SEED1 = np.array([[0, 1, 0, 0, 1, 0], [0, 0, 1, 1, 1, 0], [0, 0, 0, 1, 0, 0], [0, 1, 0, 1, 1, 1]])


def test_dropout_observed(session):
    x = tf.ones((4, 6))
    np.testing.assert_array_equal(session.run(tf_util.dropout(x, keep_prob=0.5, seed=1)), _OBSERVED_MASK_SEED1 * 2.0)
    np.testing.assert_array_equal(session.run(tf_util.dropout(x, keep_prob=0.5, seed=1, apply_correction_factor=False)),
                                  _OBSERVED_MASK_SEED1 * 1.0)
    # noise shape (1, 6): the first row of the same random numbers, shared over rows
    np.testing.assert_array_equal(session.run(tf_util.dropout(x, keep_prob=0.5, noise_shape=[1, 6], seed=1)),
                                  np.tile(_OBSERVED_MASK_SEED1[:1] * 2.0, (4, 1)))
    # None in the noise shape takes x's size (observed: rows kept/dropped as a whole)
    np.testing.assert_array_equal(session.run(tf_util.dropout(x, keep_prob=0.5, noise_shape=[None, 1], seed=1)),
                                  np.tile([[0.0], [2.0], [0.0], [0.0]], (1, 6)))


def test_dropout_keep_prob(session):
    x = tf.ones((2, 2))
    assert tf_util.dropout(x, keep_prob=1.0) is x
    for bad in (0.0, 1.5):
        with pytest.raises(ValueError) as exc:
            tf_util.dropout(x, keep_prob=bad)
        assert "(0, 1]" in str(exc.value)
    out = session.run(tf_util.dropout(tf.fill((1000,), 3.0), keep_prob=tf.constant(0.25), seed=3))
    assert set(np.unique(out).tolist()) <= {0.0, 12.0}
    assert 0.15 < np.mean(out > 0) < 0.35


def test_cond_on_train_outside_network_uses_global_placeholder(session):
    x = tf.ones((4, 6))
    out = tf_util.dropout(x, keep_prob=0.5, seed=1, cond_on_train=True)
    flag = tf_util.get_global_train_flag_placeholder()
    assert flag.name == "global_tensor_train_flag/train_flag:0"
    assert tf_util.get_global_train_flag_placeholder() is flag
    np.testing.assert_array_equal(session.run(out, {flag: False}), np.ones((4, 6)))
    assert set(np.unique(session.run(out, {flag: True})).tolist()) <= {0.0, 2.0}
    assert session.run(tf_util.cond_on_train_flag(lambda: x * 2.0, lambda: x), {flag: True})[0, 0] == 2.0


@pytest.mark.parametrize("train_flag", [True, False])
def test_cond_on_train_inside_network(session, train_flag):
    net = build_net({
        "drop": {"class": "eval", "from": "data", "eval": "dropout(source(0), keep_prob=0.5, cond_on_train=True)"},
        "flag": {"class": "eval", "from": "data", "eval": "cond_on_train_flag(lambda: source(0) * 2.0, lambda: source(0))"},
        "output": {"class": "copy", "from": ["drop", "flag"]}}, train_flag=train_flag)
    feed = {net.extern_data.data["data"].placeholder: np.ones((2, 50, 3), np.float32),
            net.extern_data.data["data"].size_placeholder[0]: [50, 50]}
    drop, flag = session.run([net.get_layer("drop").output.placeholder, net.get_layer("flag").output.placeholder], feed)
    if train_flag:
        assert set(np.unique(drop).tolist()) == {0.0, 2.0}
        assert np.all(flag == 2.0)
    else:
        assert np.all(drop == 1.0) and np.all(flag == 1.0)


def test_cond_on_train_inside_network_with_flag_placeholder(session):
    flag = tf1.placeholder_with_default(False, (), name="train_flag")
    net = build_net({"output": {"class": "eval", "from": "data",
                                "eval": "cond_on_train_flag(lambda: source(0) * 2.0, lambda: source(0))"}},
                    train_flag=flag)
    feed = {net.extern_data.data["data"].placeholder: np.ones((1, 2, 3), np.float32),
            net.extern_data.data["data"].size_placeholder[0]: [2]}
    out = net.get_layer("output").output.placeholder
    assert np.all(session.run(out, feed) == 1.0)
    assert np.all(session.run(out, {**feed, flag: True}) == 2.0)


def test_current_network_is_the_one_constructing():
    """get_current_network(): the network that constructs the layer whose code asks (the innermost one: a
    subnetwork's), None outside any construction; no stack frames are inspected."""
    from returnn.tf.util.train_flag import get_current_network

    seen = []

    def record(source, **_kwargs):
        seen.append(get_current_network())
        return source(0)

    net = build_net({
        "outer": {"class": "eval", "from": "data", "eval": record},
        "sub": {"class": "subnetwork", "from": "data", "subnetwork": {
            "inner": {"class": "eval", "from": "data", "eval": record},
            "output": {"class": "copy", "from": "inner"}}},
        "output": {"class": "copy", "from": ["outer", "sub"]}})
    assert len(seen) == 2
    assert seen[0] is net
    assert seen[1] is not net and seen[1].parent_net is net
    assert get_current_network(must_exist=False) is None

    def helper(network):  # a network in a caller's locals is not one under construction
        return get_current_network(must_exist=False)

    assert helper(net) is None
    with pytest.raises(LookupError, match="no TFNetwork is being constructed"):
        get_current_network()

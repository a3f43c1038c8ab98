"""L2 of the layers of a rec unit counts in the objective, in the loop and moved out of it, as the reference."""

import pytest
import tensorflow as tf

from tf_net_helpers import build_net


@pytest.mark.parametrize("move_out", [None, False])
def test_rec_unit_l2_in_total_constraints(session, move_out):
    # observed from the reference (RETURNN 1.20261022) for this network, with both move-out settings: 3293.2 =
    # enc 0.1 * 12 + loop 1.0 * 12 + out_of_loop 10.0 * 8 + lstm 100.0 * 32 (L2 * sum of squares, all weights 1,
    # biases 0); this project left out the unit's layers before (1.2)
    rec = {"class": "rec", "from": "enc", "unit": {
        "loop": {"class": "linear", "from": ["prev:loop", "data:source"], "n_out": 2, "L2": 1.0,
                 "forward_weights_init": 1.0},
        "lstm": {"class": "rec", "unit": "nativelstm2", "from": ["prev:loop"], "n_out": 2, "L2": 100.0,
                 "forward_weights_init": 1.0, "recurrent_weights_init": 1.0},
        "out_of_loop": {"class": "linear", "from": "data:source", "n_out": 2, "L2": 10.0, "forward_weights_init": 1.0},
        "output": {"class": "copy", "from": ["loop", "out_of_loop", "lstm"]}}}
    if move_out is not None:
        rec["optimize_move_layers_out"] = move_out
    net = build_net({"enc": {"class": "linear", "from": "data", "n_out": 4, "L2": 0.1, "forward_weights_init": 1.0},
                     "rnn": rec, "output": {"class": "copy", "from": "rnn"}}, {"data": {"dim": 3}})
    constraints = net.get_total_constraints()
    session.run(tf.compat.v1.global_variables_initializer())
    assert session.run(constraints) == pytest.approx(3293.2, rel=1e-6)


@pytest.mark.parametrize("l2_owner, l2_sharer, expected", [(1.0, 1.0, 9.0), (1.0, 5.0, 9.0), (None, 5.0, 0.0)])
def test_reused_params_l2_counts_only_in_the_owner(session, l2_owner, l2_sharer, expected):
    # observed from the reference (RETURNN 1.20261022): W [3, 3] of ones; a layer sharing it (reuse_params) adds no
    # L2 term for it, whatever its own L2 (this project counted it once per layer before: 18, 54, 45)
    owner = {"class": "linear", "from": "data", "n_out": 3, "forward_weights_init": 1.0}
    if l2_owner is not None:
        owner["L2"] = l2_owner
    net = build_net({"a": owner,
                     "b": {"class": "linear", "from": "a", "n_out": 3, "L2": l2_sharer, "forward_weights_init": 1.0,
                           "reuse_params": "a"},
                     "output": {"class": "copy", "from": "b"}}, {"data": {"dim": 3}})
    constraints = net.get_total_constraints()
    session.run(tf.compat.v1.global_variables_initializer())
    value = session.run(constraints) if isinstance(constraints, tf.Tensor) else constraints
    assert value == pytest.approx(expected)


def test_rec_unit_l2_of_moved_out_layer_with_loss_counts_once(session):
    # observed from the reference (RETURNN 1.20261022): 108 = s 1.0 * 8 + prob 10.0 * 10; "prob" (moved out of the
    # loop, with a loss) is also the network's layer "output/prob": counted once (this project: 208 before)
    net = build_net({"output": {"class": "rec", "from": [], "target": "classes", "unit": {
        "emb": {"class": "linear", "from": "prev:output", "n_out": 2, "forward_weights_init": 1.0},
        "s": {"class": "linear", "from": ["prev:s", "emb"], "n_out": 2, "L2": 1.0, "forward_weights_init": 1.0},
        "prob": {"class": "softmax", "from": "s", "target": "classes", "loss": "ce", "L2": 10.0,
                 "forward_weights_init": 1.0},
        "output": {"class": "choice", "from": "prob", "target": "classes", "beam_size": 4, "initial_output": 0}}}},
        {"data": {"dim": 3}, "classes": {"dim": 5, "sparse": True}})
    constraints = net.get_total_constraints()
    session.run(tf.compat.v1.global_variables_initializer())
    assert session.run(constraints) == pytest.approx(108.0)

"""States kept from one ``Session.run`` to the next (``initial_state`` ``"keep_over_epoch"``) and fed initial states
(``self_attention`` ``initial_state="placeholder"``): a sequence run in two parts equals the run on the whole
sequence; the state variables are no params (not saved, not trained)."""

import numpy as np
import pytest
import tensorflow as tf

from tf_net_helpers import build_net, make_feed

tf.compat.v1.disable_eager_execution()


def _run_in_parts(session, net, x, parts):
    out = net.get_layer("output").output.copy_as_batch_major().placeholder
    pieces, start = [], 0
    for step, length in enumerate(parts):
        feed = make_feed(net, {"data": x[:, start:start + length]}, {"data": [length] * x.shape[0]})
        feed[net.get_epoch_step()] = step
        pieces.append(session.run([out, net.get_post_control_dependencies()], feed)[0])
        start += length
    return np.concatenate(pieces, axis=1)


@pytest.mark.parametrize("unit", ["nativelstm2", "standardlstm", "gru", "rhn"])
def test_rec_unit_keep_over_epoch(session, unit):
    net = build_net({"output": {"class": "rec", "unit": unit, "initial_state": "keep_over_epoch", "n_out": 4,
                                "from": "data"}}, extern_data={"data": {"dim": 3}}, train_flag=False)
    state_vars = [v for v in tf.compat.v1.global_variables() if "keep_state" in v.name]
    assert state_vars and not any(v in net.get_saveable_params_list() for v in state_vars)
    assert not any(v in tf.compat.v1.trainable_variables() for v in state_vars)
    net.initialize_params(session)
    x = np.random.RandomState(1).uniform(-1, 1, (2, 6, 3)).astype("float32")
    parts = _run_in_parts(session, net, x, [2, 3, 1])
    full = _run_in_parts(session, net, x, [6])  # epoch step 0 again: starts fresh
    np.testing.assert_allclose(parts, full, rtol=1e-5, atol=1e-6)


def test_lstm_keep_state_var_names(session):
    build_net({"output": {"class": "rec", "unit": "lstm", "initial_state": "keep_over_epoch", "n_out": 4,
                          "from": "data"}})
    names = sorted(v.op.name for v in tf.compat.v1.global_variables() if "keep_state" in v.op.name)
    assert names == ["output/rec/keep_state_c", "output/rec/keep_state_h"]


def _self_att_net(move_out, initial_state):
    return build_net({"loop": {"class": "rec", "from": "data", "optimize_move_layers_out": move_out, "unit": {
        "self_att": {"class": "self_attention", "from": "data:source", "attention_left_only": True, "num_heads": 2,
                     "total_key_dim": 4, "n_out": 6, "initial_state": initial_state},
        "output": {"class": "copy", "from": "self_att"}}},
        "output": {"class": "copy", "from": "loop"}}, extern_data={"data": {"dim": 3}}, train_flag=False)


@pytest.mark.parametrize("move_out", [False, True])
def test_self_attention_keep_over_epoch(session, move_out):
    net = _self_att_net(move_out, "keep_over_epoch")
    names = sorted(v.op.name for v in tf.compat.v1.global_variables())
    assert names == ["loop/rec/self_att/QKV", "loop/rec/self_att/keep_state_k_left",
                     "loop/rec/self_att/keep_state_v_left"]
    assert [v.op.name for v in net.get_saveable_params_list() if "keep" in v.op.name] == []
    net.initialize_params(session)
    x = np.random.RandomState(2).uniform(-1, 1, (2, 5, 3)).astype("float32")
    parts = _run_in_parts(session, net, x, [2, 3])
    full = _run_in_parts(session, net, x, [5])
    np.testing.assert_allclose(parts, full, rtol=1e-5, atol=1e-6)


def test_self_attention_placeholder_state_loop_equals_moved_out():
    rng = np.random.RandomState(3)
    x = rng.uniform(-1, 1, (2, 4, 3)).astype("float32")
    k_init = rng.normal(size=(2, 2, 3, 2)).astype("float32")
    v_init = rng.normal(size=(2, 2, 3, 3)).astype("float32")
    results, params = [], None
    for move_out in (False, True):
        with tf.Graph().as_default() as graph, tf.compat.v1.Session(graph=graph) as session:
            net = _self_att_net(move_out, "placeholder")
            assert len(net.get_layer("loop").cell.loop) == (0 if move_out else 2)
            session.run(tf.compat.v1.global_variables_initializer())
            (qkv,) = net.get_params_list()
            if params is None:
                params = session.run(qkv)
            else:
                qkv.load(params, session)
            feed = make_feed(net, {"data": x}, {"data": [4, 4]})
            feed[graph.get_tensor_by_name("loop/rec/self_att/initial_state_placeholder_k_left:0")] = k_init
            feed[graph.get_tensor_by_name("loop/rec/self_att/initial_state_placeholder_v_left:0")] = v_init
            results.append(session.run([net.get_layer("output").output.copy_as_batch_major().placeholder,
                                        graph.get_tensor_by_name("loop/rec/self_att/last_state_k_left:0")], feed))
    for loop_value, moved_value in zip(*results):
        np.testing.assert_allclose(loop_value, moved_value, rtol=1e-5, atol=1e-6)
    assert results[0][1].shape == (2, 2, 3 + 4, 2)

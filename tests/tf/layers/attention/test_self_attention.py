"""self_attention (heads, causal mask, padding, key_shift), relative and sinusoidal positional encodings vs numpy."""

import math

import numpy as np
import tensorflow as tf

import returnn.tf.layers  # noqa: F401
from tf_net_helpers import build_net, make_feed

RNG = np.random.RandomState(7)
X = RNG.randn(2, 5, 4).astype("float32")
LENS = [5, 3]


def _np_self_att(x, n, w, heads, key_dim, n_out, left_only, shift=None):
    qkv = x[:n] @ w
    dk, dv = key_dim // heads, n_out // heads
    outs = []
    for h in range(heads):  # the columns of QKV grouped by head: [q_h | k_h | v_h] (the reference's layout)
        col = qkv[:, h * (2 * dk + dv):(h + 1) * (2 * dk + dv)]
        qh, kh, vh = col[:, :dk] * dk ** -0.5, col[:, dk:2 * dk], col[:, 2 * dk:]
        e = qh @ kh.T
        if shift is not None:
            e = e + np.einsum("id,ijd->ij", qh, shift[:n, :n])
        if left_only:
            e = np.where(np.tril(np.ones((n, n), bool)), e, -np.inf)
        a = np.exp(e - e.max(axis=1, keepdims=True))
        a /= a.sum(axis=1, keepdims=True)
        outs.append(a @ vh)
    return np.concatenate(outs, axis=1)


def test_self_attention_heads_causal_and_key_shift(session):
    net = build_net({
        "rel": {"class": "relative_positional_encoding", "from": "data", "n_out": 3, "clipping": 2},
        "output": {"class": "self_attention", "from": "data", "num_heads": 2, "total_key_dim": 6, "n_out": 4,
                   "attention_left_only": True, "key_shift": "rel"}}, extern_data={"data": {"dim": 4}})
    out = net.get_layer("output").output
    session.run(tf.compat.v1.global_variables_initializer())
    y, rel = session.run([out.copy_as_batch_major().placeholder, net.get_layer("rel").output.placeholder],
                         make_feed(net, {"data": X}, {"data": LENS}))
    w = session.run(net.get_layer("output").params["QKV"])
    table = session.run(net.get_layer("rel").params["encoding_matrix"])
    assert w.shape == (4, 16) and table.shape == (5, 3) and rel.shape == (5, 5, 3)
    for i in range(5):
        for j in range(5):
            np.testing.assert_allclose(rel[i, j], table[min(max(j - i, -2), 2) + 2])
    for b, n in enumerate(LENS):
        np.testing.assert_allclose(y[b, :n], _np_self_att(X[b], n, w, 2, 6, 4, True, rel), rtol=1e-4, atol=1e-5)


def test_self_attention_qkv_layout_observed_from_reference(session):
    # the reference's output for this input and QKV (RETURNN 1.20261022, observed): the columns of QKV are grouped
    # by head (query, key, value of head 0, then of head 1), not [all queries | all keys | all values]
    net = build_net({"output": {"class": "self_attention", "from": "data", "num_heads": 2, "total_key_dim": 4,
                                "n_out": 4}}, extern_data={"data": {"dim": 3}})
    session.run(tf.compat.v1.global_variables_initializer())
    x = np.arange(9, dtype="float32").reshape(1, 3, 3) / 4.0 - 1.0
    net.get_layer("output").params["QKV"].load((np.arange(36, dtype="float32").reshape(3, 12) % 7 - 3.0) / 5.0,
                                               session)
    y = session.run(net.get_layer("output").output.copy_as_batch_major().placeholder,
                    make_feed(net, {"data": x}, {"data": [3]}))
    np.testing.assert_allclose(y[0], [[-0.17616028, -0.20000002, 0.12998268, -0.13994804],
                                      [-0.19522724, -0.19999999, 0.1425822, -0.1777466],
                                      [-0.21431349, -0.19999999, 0.15530083, -0.21590246]], rtol=1e-5, atol=1e-6)


def test_self_attention_full_context_ignores_padding(session):
    net = build_net({"output": {"class": "self_attention", "from": "data", "num_heads": 1, "total_key_dim": 4,
                                "n_out": 2}}, extern_data={"data": {"dim": 4}})
    session.run(tf.compat.v1.global_variables_initializer())
    y = session.run(net.get_layer("output").output.copy_as_batch_major().placeholder,
                    make_feed(net, {"data": X}, {"data": LENS}))
    w = session.run(net.get_layer("output").params["QKV"])
    np.testing.assert_allclose(y[1, :3], _np_self_att(X[1], 3, w, 1, 4, 2, False), rtol=1e-4, atol=1e-5)


def test_positional_encoding_sinusoids(session):
    net = build_net({"output": {"class": "positional_encoding", "from": "data", "n_out": 6}},
                    extern_data={"data": {"dim": 4}})
    y = session.run(net.get_layer("output").output.copy_as_batch_major().placeholder,
                    make_feed(net, {"data": X}, {"data": LENS}))
    inv = np.exp(np.arange(3) * -math.log(1e4) / 2)
    for t in range(5):
        np.testing.assert_allclose(y[0, t], np.concatenate([np.sin(t * inv), np.cos(t * inv)]), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(y[0], y[1])


def test_positional_encoding_inside_rec_unit_uses_step_index(session):
    net = build_net({"outside": {"class": "positional_encoding", "from": "data", "n_out": 6},
                     "output": {"class": "rec", "from": "data", "unit": {
                         "output": {"class": "positional_encoding", "from": "data:source", "n_out": 6}}}},
                    extern_data={"data": {"dim": 4}})
    feed = make_feed(net, {"data": X}, {"data": LENS})
    inside, outside = session.run([net.get_layer("output").output.copy_as_batch_major().placeholder,
                                   net.get_layer("outside").output.copy_as_batch_major().placeholder], feed)
    np.testing.assert_allclose(inside, outside, rtol=1e-5, atol=1e-6)


def _rec_self_att(move_out, values=None, key_shift=False):
    graph = tf.Graph()
    with graph.as_default(), tf.compat.v1.Session(graph=graph) as session:
        unit = {
            "att": {"class": "self_attention", "from": "data:source", "num_heads": 2, "total_key_dim": 4,
                    "n_out": 4, "attention_left_only": True},
            "output": {"class": "copy", "from": "att"}}
        if key_shift:
            unit["rel"] = {"class": "relative_positional_encoding", "from": "data:source", "n_out": 2, "clipping": 2}
            unit["att"]["key_shift"] = "rel"
        net = build_net({"output": {"class": "rec", "from": "data", "optimize_move_layers_out": move_out,
                                    "unit": unit}}, extern_data={"data": {"dim": 4}})
        session.run(tf.compat.v1.global_variables_initializer())
        if values is not None:
            for p in net.get_params_list():
                p.load(values[p.name], session)
        y = session.run(net.get_layer("output").output.copy_as_batch_major().placeholder,
                        make_feed(net, {"data": X}, {"data": LENS}))
        return y, {p.name: session.run(p) for p in net.get_params_list()}, net.get_layer("output").cell.loop


def test_self_attention_step_wise_in_loop_equals_whole_sequence():
    moved, params, loop_moved = _rec_self_att(True)
    stepped, _, loop_stepped = _rec_self_att(False, params)
    assert loop_moved == set() and loop_stepped == {"att", "output"}
    for b, n in enumerate(LENS):
        np.testing.assert_allclose(stepped[b, :n], moved[b, :n], rtol=1e-4, atol=1e-5)
        w = params["output/rec/att/QKV:0"]
        np.testing.assert_allclose(moved[b, :n], _np_self_att(X[b], n, w, 2, 4, 4, True), rtol=1e-4, atol=1e-5)


def test_self_attention_key_shift_step_wise_in_loop_equals_whole_sequence():
    """key_shift inside a rec unit: the relative encodings of the current query position, as in the whole-sequence
    computation (moved out of the loop) and in numpy."""
    moved, params, loop_moved = _rec_self_att(True, key_shift=True)
    stepped, _, loop_stepped = _rec_self_att(False, params, key_shift=True)
    assert loop_moved == set() and loop_stepped == {"att", "output", "rel"}
    table = params["output/rec/rel/encoding_matrix:0"]  # [2 * clipping + 1, 2]
    pos = np.arange(5)
    shift = table[np.clip(pos[None, :] - pos[:, None], -2, 2) + 2]  # [T, T', 2]
    for b, n in enumerate(LENS):
        np.testing.assert_allclose(stepped[b, :n], moved[b, :n], rtol=1e-4, atol=1e-5)
        w = params["output/rec/att/QKV:0"]
        np.testing.assert_allclose(moved[b, :n], _np_self_att(X[b], n, w, 2, 4, 4, True, shift=shift),
                                   rtol=1e-4, atol=1e-5)


def test_attention_dropout_one_mask_value_per_weight(session):
    """attention_dropout draws one mask value per attention weight [B, H, T, T'] (as the reference's graph: its
    mask has the weights' shape), not one mask shared over batch, heads and queries."""
    net = build_net({"output": {"class": "self_attention", "from": "data", "num_heads": 2, "total_key_dim": 4,
                                "n_out": 4, "attention_dropout": 0.5}}, extern_data={"data": {"dim": 3}})
    randoms = [op for op in tf.compat.v1.get_default_graph().get_operations()
               if op.type == "RandomUniform" and op.name.startswith("output/dropout")]
    assert len(randoms) == 1
    session.run(tf.compat.v1.global_variables_initializer())
    shape = session.run(randoms[0].inputs[0], make_feed(net, {"data": X[:, :, :3]}, {"data": LENS}))
    assert list(shape) == [2, 2, 5, 5]

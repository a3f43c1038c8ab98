"""Attention building blocks vs numpy: softmax_over_spatial (masked), generic_attention, and the attention
pattern of the search benchmark inside a rec unit (base: encoder, combine broadcasting)."""

import numpy as np
import tensorflow as tf

import returnn.tf.layers  # noqa: F401
from tf_net_helpers import build_net, make_feed

RNG = np.random.RandomState(5)
X = RNG.randn(2, 4, 3).astype("float32")
LENS = [4, 2]


def _softmax(x):
    e = np.exp(x - x.max())
    return e / e.sum()


def test_softmax_over_spatial_masks_padding(session):
    net = build_net({"energy": {"class": "linear", "activation": None, "n_out": 1, "from": "data"},
                     "output": {"class": "softmax_over_spatial", "from": "energy"}})
    session.run(tf.compat.v1.global_variables_initializer())
    feed = make_feed(net, {"data": X}, {"data": LENS})
    energy, out = session.run([net.get_layer("energy").output.placeholder, net.get_layer("output").output.placeholder],
                              feed)
    for b, n in enumerate(LENS):
        np.testing.assert_allclose(out[b, :n, 0], _softmax(energy[b, :n, 0]), rtol=1e-5)
        assert np.all(out[b, n:] == 0.0)


def test_generic_attention_weighted_sum(session):
    net = build_net({"energy": {"class": "linear", "activation": None, "n_out": 1, "from": "data"},
                     "weights": {"class": "softmax_over_spatial", "from": "energy"},
                     "output": {"class": "generic_attention", "weights": "weights", "base": "data"}})
    out = net.get_layer("output").output
    assert out.batch_ndim == 2 and out.dim == 3
    session.run(tf.compat.v1.global_variables_initializer())
    feed = make_feed(net, {"data": X}, {"data": LENS})
    w, y = session.run([net.get_layer("weights").output.placeholder, out.placeholder], feed)
    for b, n in enumerate(LENS):
        np.testing.assert_allclose(y[b], (w[b, :n] * X[b, :n]).sum(axis=0), rtol=1e-5, atol=1e-6)


def test_attention_in_rec_unit_matches_numpy(session):
    extern = {"data": {"dim": 3}, "classes": {"dim": 4, "sparse": True}}
    net_dict = {
        "enc_ctx": {"class": "linear", "activation": None, "n_out": 5, "from": "data"},
        "output": {"class": "rec", "from": [], "target": "classes", "unit": {
            "s": {"class": "linear", "activation": "tanh", "n_out": 5, "from": ["prev:context"]},
            "energy_in": {"class": "combine", "kind": "add", "from": ["base:enc_ctx", "s"]},
            "energy": {"class": "linear", "activation": None, "with_bias": False, "n_out": 1,
                       "from": "energy_in"},
            "att_weights": {"class": "softmax_over_spatial", "from": "energy"},
            "context": {"class": "generic_attention", "weights": "att_weights", "base": "base:data"},
            "output": {"class": "copy", "from": "context"}}}}
    net = build_net(net_dict, extern_data=extern)
    session.run(tf.compat.v1.global_variables_initializer())
    classes = np.zeros([2, 3], "int32")
    feed = make_feed(net, {"data": X, "classes": classes}, {"data": LENS, "classes": [3, 2]})
    y = session.run(net.get_layer("output").output.placeholder, feed)  # [T, B, 3]
    p = {v.name[:-2]: session.run(v) for v in net.get_params_list()}
    ctx_all = X @ p["enc_ctx/W"] + p["enc_ctx/b"]
    for b in range(2):
        n = LENS[b]
        context = np.zeros(3, "float32")
        for t in range([3, 2][b]):
            s = np.tanh(context @ p["output/rec/s/W"] + p["output/rec/s/b"])
            energy = ((ctx_all[b, :n] + s) @ p["output/rec/energy/W"])[:, 0]
            context = (_softmax(energy)[:, None] * X[b, :n]).sum(axis=0)
            np.testing.assert_allclose(y[t, b], context, rtol=1e-5, atol=1e-5)

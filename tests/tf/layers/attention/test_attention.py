"""Attention building blocks vs numpy: softmax_over_spatial (masked), generic_attention, and the attention
pattern of the search benchmark inside a rec unit (base: encoder, combine broadcasting)."""

import numpy as np
import pytest
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
    # the softmax axis moves to the end, as in the reference (observed: [B,F|F'energy:feature-dense'(1),T|...])
    assert [d.description for d in net.get_layer("output").output.dims[1:]] == [
        net.get_layer("energy").output.feature_dim.description, "time:var:extern_data:data"]
    session.run(tf.compat.v1.global_variables_initializer())
    feed = make_feed(net, {"data": X}, {"data": LENS})
    energy, out = session.run([net.get_layer("energy").output.placeholder, net.get_layer("output").output.placeholder],
                              feed)
    for b, n in enumerate(LENS):
        np.testing.assert_allclose(out[b, 0, :n], _softmax(energy[b, :n, 0]), rtol=1e-5)
        assert np.all(out[b, 0, n:] == 0.0)


def test_generic_attention_weighted_sum(session):
    net = build_net({"energy": {"class": "linear", "activation": None, "n_out": 1, "from": "data"},
                     "weights": {"class": "softmax_over_spatial", "from": "energy"},
                     "output": {"class": "generic_attention", "weights": "weights", "base": "data"}})
    out = net.get_layer("output").output
    assert out.batch_ndim == 2 and out.dim == 3
    # the reference's attributes of the layer
    assert net.get_layer("output").weights is net.get_layer("weights")
    assert net.get_layer("output").base is net.get_layer("data")
    session.run(tf.compat.v1.global_variables_initializer())
    feed = make_feed(net, {"data": X}, {"data": LENS})
    w, y = session.run([net.get_layer("weights").output.placeholder, out.placeholder], feed)
    for b, n in enumerate(LENS):
        np.testing.assert_allclose(y[b], (w[b, 0, :n, None] * X[b, :n]).sum(axis=0), rtol=1e-5, atol=1e-6)


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


# Deterministic input for the reference-observed cases below: data [2, 3, 12], lengths [3, 2]; the weights are a
# softmax over time of the first H features, the base is the data (optionally split).
_GA_X = (np.arange(2 * 3 * 12).reshape(2, 3, 12) % 7 - 3).astype("float32") / 4.
_GA_LENS = [3, 2]


def _generic_attention_net(w_dim, base_dims):
    return {"e": {"class": "slice", "axis": "F", "slice_end": w_dim, "from": "data"},
            "w": {"class": "softmax_over_spatial", "from": "e"},
            "val": ({"class": "split_dims", "axis": "F", "dims": base_dims, "from": "data"} if base_dims
                    else {"class": "copy", "from": "data"}),
            "output": {"class": "generic_attention", "weights": "w", "base": "val"}}


def _masked_softmax_np(e, lens):
    w = np.zeros_like(e)  # [B, T, H]
    for b, n in enumerate(lens):
        x = np.exp(e[b, :n] - e[b, :n].max(axis=0))
        w[b, :n] = x / x.sum(axis=0)
    return w


def test_generic_attention_heads_match_split_base(session):
    """weights {B,T,H}, base {B,T,H,V} (split_dims): {B,H,V} summed per head, as the reference (observed)."""
    net = build_net(_generic_attention_net(3, (3, 4)), extern_data={"data": {"dim": 12}})
    out = net.get_layer("output").output
    assert out.batch_shape == (None, 3, 4) and out.feature_dim_axis == 2
    assert out.dims[1] is net.get_layer("e").output.dims[-1]  # the weights' head axis
    y = session.run(out.placeholder, make_feed(net, {"data": _GA_X}, {"data": _GA_LENS}))
    w = _masked_softmax_np(_GA_X[..., :3], _GA_LENS)
    np.testing.assert_allclose(y, np.einsum("bth,bthv->bhv", w, _GA_X.reshape(2, 3, 3, 4)), rtol=1e-5, atol=1e-6)
    observed_ref = np.array([[[0.150616, 0.400616, -0.273825, -0.023825],
                              [-0.334527, -0.084527, 0.165473, 0.150616],
                              [0.130024, 0.094964, 0.344964, -0.399992]],
                             [[0.471625, -0.63865, -0.38865, -0.13865],
                              [0.31123, 0.56123, -0.278074, -0.028074],
                              [-0.43877, -0.18877, 0.06123, 0.31123]]])
    np.testing.assert_allclose(y, observed_ref, atol=2e-6)


def test_generic_attention_unmatched_heads_outer_product(session):
    """weights {B,T,3}, base {B,T,12}: {B,3,12} (each head's weighted sum of the whole base), as the reference."""
    net = build_net(_generic_attention_net(3, None), extern_data={"data": {"dim": 12}})
    out = net.get_layer("output").output
    assert out.batch_shape == (None, 3, 12) and out.feature_dim_axis == 2
    y = session.run(out.placeholder, make_feed(net, {"data": _GA_X}, {"data": _GA_LENS}))
    w = _masked_softmax_np(_GA_X[..., :3], _GA_LENS)
    np.testing.assert_allclose(y, np.einsum("bth,btf->bhf", w, _GA_X), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(y[1, 1, :4], [-0.028074, -0.43877, -0.18877, 0.06123], atol=2e-6)  # observed


def test_generic_attention_size1_weights_squeezed(session):
    """weights {B,T,1}: auto_squeeze drops the 1 ({B,F}); with auto_squeeze=False it stays ({B,1,F})."""
    net = build_net(_generic_attention_net(1, None), extern_data={"data": {"dim": 12}})
    assert net.get_layer("output").output.batch_shape == (None, 12)
    d = _generic_attention_net(1, None)
    d["output"]["auto_squeeze"] = False
    net = build_net(d, extern_data={"data": {"dim": 12}})
    assert net.get_layer("output").output.batch_shape == (None, 1, 12)


def test_generic_attention_rejects_unmatched_base_axis(session):
    """base {B,T,5,3} with weights {B,T,3}: the base axis of 5 matches no weights axis (the reference asserts)."""
    from returnn.errors import LayerShapeError
    import pytest
    with pytest.raises(LayerShapeError, match="match one weights axis"):
        build_net(_generic_attention_net(3, (5, 3)), extern_data={"data": {"dim": 15}})


def _split_attention_net(w_dims, base_dims):
    """weights: softmax over time of the first prod(w_dims) features split to w_dims; base: features from 40 on,
    split to base_dims (its last entry the feature axis)."""
    nw, nb = int(np.prod(w_dims)), int(np.prod(base_dims))
    return {"w0": {"class": "slice", "axis": "F", "slice_start": 0, "slice_end": nw, "from": "data"},
            "w": {"class": "split_dims", "axis": "F", "dims": w_dims, "from": "w0"},
            "ws": {"class": "softmax_over_spatial", "from": "w"},
            "b0": {"class": "slice", "axis": "F", "slice_start": 40, "slice_end": 40 + nb, "from": "data"},
            "b": {"class": "split_dims", "axis": "F", "dims": base_dims, "from": "b0"},
            "output": {"class": "generic_attention", "weights": "ws", "base": "b"}}


# (weights axes besides B/T, base axes besides B/T incl. its feature axis last) ->
# output axes as (weights split index or "F"), observed from the reference; None: the reference rejects it
_GA_AXES_OBSERVED = [
    ((1,), (1, 8), [0, "F"]),  # a size-1 head axis matched, not squeezed (LSTM decoders with AttNumHeads=1)
    ((1, 1), (1, 8), [1, "F"]),  # the last size-1 weights axis matches, the other is squeezed
    ((2, 1), (2, 8), [0, "F"]),
    ((1, 2, 1), (2, 8), [1, "F"]),
    ((2, 3), (3, 8), [1, 0, "F"]),  # matched axes first, then the unmatched ones
    ((2, 3), (2, 8), [0, 1, "F"]),
    ((2, 2), (2, 8), [1, 0, "F"]),  # the base's axis takes the last weights axis of its size
    ((2, 2, 2), (2, 8), [2, 0, 1, "F"]),
    ((2, 3, 5), (3, 5, 8), [1, 2, 0, "F"]),
    ((2, 3, 5), (2, 5, 8), [0, 2, 1, "F"]),
    ((2, 1), (1, 8), [1, 0, "F"]),
    ((1, 1), (8,), ["F"]),
    ((3, 2), (2, 3, 8), None),  # order must be kept
    ((2, 1, 1), (1, 2, 8), None),
    ((1,), (1, 1, 8), None),
    ((1,), (2, 8), None),
]


@pytest.mark.parametrize("w_dims, base_dims, expected", _GA_AXES_OBSERVED)
def test_generic_attention_axis_matching_as_reference(session, w_dims, base_dims, expected):
    from returnn.errors import LayerShapeError
    if expected is None:
        with pytest.raises(LayerShapeError, match="same order"):
            build_net(_split_attention_net(w_dims, base_dims), extern_data={"data": {"dim": 200}})
        return
    net = build_net(_split_attention_net(w_dims, base_dims), extern_data={"data": {"dim": 200}})
    out, w = net.get_layer("output").output, net.get_layer("w").output
    w_split = [d for d in w.dims if d.description.startswith("w_split_dims")]
    want = [net.get_layer("b").output.dims[-1] if e == "F" else w_split[e] for e in expected]
    assert list(out.dims[1:]) == want
    assert out.feature_dim_axis == len(expected) and out.time_dim_axis is None


def test_generic_attention_last_equal_size_axis_values(session):
    """weights {B,T,2a,2b}, base {B,T,2,8}: the base's 2 is summed with 2b, output {B,2b,2a,8}; the values equal
    the reference's for the same input (max abs diff 1.2e-7 observed) and this numpy expression."""
    rng = np.random.RandomState(7)
    x = rng.randn(2, 4, 120).astype("float32")
    net = build_net(_split_attention_net((2, 2), (2, 8)), extern_data={"data": {"dim": 120}})
    y = session.run(net.get_layer("output").output.placeholder, make_feed(net, {"data": x}, {"data": [4, 3]}))
    w = np.stack([_masked_softmax_np(x[..., :4], [4, 3])[..., k] for k in range(4)], -1).reshape(2, 4, 2, 2)
    want = np.einsum("btij,btjf->bjif", w, x[..., 40:56].reshape(2, 4, 2, 8))
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-6)


def test_generic_attention_weights_with_a_second_time_axis(session):
    """weights {B, T2, T} (e.g. stacked over a decoder loop) with base {B, T, F}: the sum runs over the base's time
    axis T, T2 stays as the output's time axis; with a size-1 head on both sides it is kept and comes first. Shapes
    and values observed from the reference."""
    net = build_net({
        "e": {"class": "dot", "red1": "F", "red2": "F", "var1": "T", "var2": "T", "from": ["data:data2", "data"]},
        "w": {"class": "softmax_over_spatial", "axis": "dyn:-1", "from": "e"},
        "b": {"class": "split_dims", "axis": "F", "dims": (1, 6), "from": "data"},
        "e1": {"class": "expand_dims", "axis": "F", "from": "e"},
        "w1": {"class": "softmax_over_spatial", "axis": "dyn:-1", "from": "e1"},
        "out": {"class": "generic_attention", "weights": "w", "base": "data", "is_output_layer": True},
        "out1": {"class": "generic_attention", "weights": "w1", "base": "b", "is_output_layer": True}},
        extern_data={"data": {"dim": 6}, "data2": {"dim": 6}})
    out, out1 = net.get_layer("out").output, net.get_layer("out1").output
    t_dec = net.extern_data.data["data2"].dims[1]
    assert out.dims[1] == t_dec and out.time_dim_axis == 1 and out.feature_dim_axis == 2 and out.batch_ndim == 3
    assert out1.dims[1] == net.get_layer("e1").output.dims[-1] and out1.dims[2] == t_dec and out1.time_dim_axis == 2
    assert out1.batch_shape == (None, 1, None, 6)
    rng = np.random.RandomState(2)
    x, x2 = rng.randn(2, 4, 6).astype("float32"), rng.randn(2, 3, 6).astype("float32")
    y = session.run(out.placeholder, make_feed(net, {"data": x, "data2": x2}, {"data": [4, 2], "data2": [3, 2]}))
    observed = [-0.1725655049085617, -0.7503706812858582, -0.12743458151817322, -0.35511985421180725,
                -0.017266439273953438, 0.5299254655838013, -0.5018091201782227, -0.04011917486786842]
    np.testing.assert_allclose(y.ravel()[:8], observed, rtol=1e-5, atol=1e-6)


def test_generic_attention_weights_with_the_base_time_dim_twice(session):
    """weights ``{B, T, T}`` with the same Dim on both axes (a decoder loop over the encoder's own frames, moved
    out): the sum runs over the weights' time axis (the softmax axis), as the reference (observed)."""
    net = build_net({
        "e": {"class": "dot", "red1": "F", "red2": "F", "var1": "T", "var2": "T", "from": ["data", "data"]},
        "w": {"class": "softmax_over_spatial", "from": "e"},
        "output": {"class": "generic_attention", "weights": "w", "base": "data"}},
        extern_data={"data": {"dim": 3}})
    w = net.get_layer("w").output
    assert w.dims[1] == w.dims[2] and w.time_dim_axis == 2
    rng = np.random.RandomState(3)
    x = rng.randn(2, 4, 3).astype("float32")
    lens = [4, 2]
    y = session.run(net.get_layer("output").output.copy_as_batch_major().placeholder,
                    make_feed(net, {"data": x}, {"data": lens}))
    energy = np.einsum("bsf,btf->bts", x, x)  # [B, T (query), T (softmax)]
    weights = _masked_softmax_np(energy.transpose(0, 2, 1), lens).transpose(0, 2, 1)
    want = np.einsum("bts,bsf->btf", weights, x)
    for b, n in enumerate(lens):
        np.testing.assert_allclose(y[b, :n], want[b, :n], rtol=1e-5, atol=1e-6)

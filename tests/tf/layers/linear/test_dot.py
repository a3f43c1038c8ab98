"""dot with old-style red/var axis descriptions: common-axis matching, the dummy var2 axis and the output's
time/feature axes, as observed from the reference (RETURNN, TF backend), and values vs numpy."""

import numpy as np
import pytest
import tensorflow as tf

import returnn.tf.layers  # noqa: F401
from returnn.errors import LayerShapeError
from tf_net_helpers import build_net, make_feed

EXTERN = {"data": {"dim": 12}, "data2": {"dim": 12}, "classes": {"dim": 5, "sparse": True}}
SPLITS = {"a": {"class": "split_dims", "axis": "F", "dims": (2, 3, 2), "from": "data"},
          "b": {"class": "split_dims", "axis": "F", "dims": (3, 2, 2), "from": "data:data2"},
          "b2": {"class": "split_dims", "axis": "F", "dims": (2, 3, 2), "from": "data:data2"},
          "ra": {"class": "reduce", "mode": "max", "axis": "T", "from": "a"},
          "rb": {"class": "reduce", "mode": "max", "axis": "T", "from": "b"},
          "rb2": {"class": "reduce", "mode": "max", "axis": "T", "from": "b2"},
          "c": {"class": "split_dims", "axis": "F", "dims": (4, 3), "from": "data:data2"},
          "rc": {"class": "reduce", "mode": "max", "axis": "T", "from": "c"}}


def _dot(**opts):
    net = build_net(dict(SPLITS, out=dict({"class": "dot", "is_output_layer": True}, **opts)), extern_data=EXTERN)
    return net, net.get_layer("out").output


def _descr(out):
    return [d.description for d in out.dims], out.time_dim_axis, out.feature_dim_axis


def test_dot_heads_of_separate_split_dims_match_by_size(session):
    # keys (B, T, H, D) x query (B, H, D) with var2 "T?" absent: reference gives
    # [B, F'a_split_dims0'(2), F'a_split_dims1'(3), T, F|'out:dot:dummy-var2'(1)], time axis 3, feature axis 4
    net, out = _dot(**{"from": ["a", "rb2"], "red1": -1, "red2": -1, "var1": "T", "var2": "T?"})
    assert _descr(out)[0][1:] == ["a_split_dims0", "a_split_dims1", "time:var:extern_data:data", "out:dot:dummy-var2"]
    assert out.batch_dim_axis == 0 and out.time_dim_axis == 3 and out.feature_dim_axis == 4
    assert [d.dimension for d in out.dims[1:]] == [2, 3, None, 1]
    rng = np.random.RandomState(5)
    x, y = rng.randn(2, 4, 12).astype("float32"), rng.randn(2, 3, 12).astype("float32")
    got = session.run(out.placeholder, make_feed(net, {"data": x, "data2": y}, {"data": [4, 2], "data2": [3, 1]}))
    q = np.stack([y[0, :3].max(axis=0), y[1, :1].max(axis=0)]).reshape(2, 2, 3, 2)
    want = np.einsum("bthvd,bhvd->bhvt", x.reshape(2, 4, 2, 3, 2), q)[..., None]
    assert got.shape == (2, 2, 3, 4, 1)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_dot_without_dummy_var2(session):
    # reference: [B, F|F'a_split_dims0'(2), F'a_split_dims1'(3), T] ... feature axis is the last static one
    _, out = _dot(**{"from": ["a", "rb2"], "red1": -1, "red2": -1, "var1": "T", "var2": "T?",
                     "add_var2_if_empty": False})
    assert [d.dimension for d in out.dims[1:]] == [2, 3, None]
    assert out.time_dim_axis == 3 and out.feature_dim_axis == 2


def test_dot_common_static_axes_paired_by_size_not_order(session):
    # (B, 2, 3, 2) . (B, 3, 2, 2) reducing the last axes: the reference pairs 2<->2 and 3<->3 (transposing the second);
    # observed values for these inputs (np.random.RandomState(1), one frame each):
    observed = [-0.2887692153453827, 1.0329861640930176, -3.5871100425720215, 2.8154590129852295,
                -0.13186901807785034, 0.28301388025283813]
    net, out = _dot(**{"from": ["ra", "rb"], "red1": -1, "red2": -1, "var1": None, "var2": None})
    assert _descr(out)[0][1:] == ["a_split_dims0", "a_split_dims1", "out:dot:dummy-var2"]
    assert out.time_dim_axis is None and out.feature_dim_axis == 3
    rng = np.random.RandomState(1)
    x, y = rng.randn(1, 1, 12).astype("float32"), rng.randn(1, 1, 12).astype("float32")
    got = session.run(out.placeholder, make_feed(net, {"data": x, "data2": y}, {"data": [1], "data2": [1]}))
    assert got.shape == (1, 2, 3, 1)
    np.testing.assert_allclose(got.ravel(), observed, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[0, :, :, 0], np.einsum("ijk,jik->ij", x.reshape(2, 3, 2), y.reshape(3, 2, 2)),
                               rtol=1e-5, atol=1e-6)


def test_dot_int_axes_count_the_batch_axis(session):
    # reference: red 3 = a_split_dims1 of [B,T,2,3,2], var 1 = T ->
    # [B, F'a_split_dims0'(2), F|F'a_split_dims2'(2), T(data), T(data2)], time axis 3, feature axis 2
    _, out = _dot(**{"from": ["a", "b2"], "red1": 3, "red2": 3, "var1": 1, "var2": 1})
    assert _descr(out)[0][1:] == ["a_split_dims0", "a_split_dims2", "time:var:extern_data:data",
                                  "time:var:extern_data:data2"]
    assert _descr(out)[1:] == (3, 2)


def test_dot_feature_axis_dynamic_when_no_static_axis(session):
    # reference: [B, T|data, F|data2] (the last non-batch, non-time axis is the feature axis)
    _, out = _dot(**{"from": ["a", "b2"], "red1": ["static:0", "static:1", "static:2"],
                     "red2": ["static:0", "static:1", "static:2"], "var1": "T", "var2": "T"})
    assert _descr(out)[1:] == (1, 2) and out.batch_ndim == 3


def test_dot_var_lists_order(session):
    # reference: [B, a0(2), T|data, a1(3), T(data2), F|b2_split_dims1(3)]
    _, out = _dot(**{"from": ["a", "b2"], "red1": "F", "red2": "F", "var1": ["T", "static:1"],
                     "var2": ["T", "static:1"]})
    assert _descr(out)[0][1:] == ["a_split_dims0", "time:var:extern_data:data", "a_split_dims1",
                                  "time:var:extern_data:data2", "b2_split_dims1"]
    assert _descr(out)[1:] == (2, 5)


@pytest.mark.parametrize("opts", [
    # common time axes of different lengths (the reference: "cannot match the axes")
    {"from": ["a", "b2"], "red1": -1, "red2": -1, "var1": None, "var2": None},
    # reducing two different time axes (the reference rejects it)
    {"from": ["a", "b2"], "red1": "T", "red2": "T", "var1": None, "var2": None},
    # common static axes of different sizes
    {"from": ["ra", "rc"], "red1": "static:1", "red2": "static:1", "var1": None, "var2": None},
])
def test_dot_unmatched_axes_rejected(session, opts):
    with pytest.raises(LayerShapeError):
        _dot(**opts)


def test_dot_attention_energies_in_rec_loop(session):
    # keys (B, enc-T, H, D) outside, query (B, H, D) inside a rec loop, as in the transformer decoders of the published
    # configs; output values observed from the reference for these inputs and weights.
    net = build_net({
        "key": {"class": "split_dims", "axis": "F", "dims": (2, 2), "from": "data"},
        "output": {"class": "rec", "from": [], "target": "classes", "unit": {
            "emb": {"class": "linear", "activation": None, "with_bias": False, "n_out": 4, "from": "data:classes"},
            "s": {"class": "combine", "kind": "add", "from": ["emb", "prev:att"]},
            "q": {"class": "split_dims", "axis": "F", "dims": (2, 2), "from": "s"},
            "energy": {"class": "dot", "red1": -1, "red2": -1, "var1": "T", "var2": "T?", "from": ["base:key", "q"]},
            "w": {"class": "softmax_over_spatial", "from": "energy"},
            "att0": {"class": "generic_attention", "weights": "w", "base": "base:key"},
            "att": {"class": "merge_dims", "axes": "except_batch", "from": "att0"},
            "output": {"class": "copy", "from": "att"}}}},
        extern_data={"data": {"dim": 4}, "classes": {"dim": 5, "sparse": True}})
    out = net.get_layer("output").output
    assert [d.dimension for d in out.dims] == [None, None, 4] and out.time_dim_axis == 0
    observed = [[[-0.0051842983812093735, -0.340241938829422, -1.161907434463501, 0.6868605613708496],
                 [-0.5318711400032043, -1.5156923532485962, 0.7564073801040649, -0.9322907328605652]],
                [[-0.13391420245170593, -0.39478451013565063, -0.07459797710180283, -1.4164597988128662],
                 [-0.5452505946159363, -1.5462276935577393, 0.8759551644325256, -1.0215848684310913]]]
    rng = np.random.RandomState(3)
    x = rng.randn(2, 3, 4).astype("float32")
    w = rng.randn(5, 4).astype("float32")
    (param,) = tf.compat.v1.trainable_variables()
    session.run(param.assign(w))
    got = session.run(out.placeholder, make_feed(net, {"data": x, "classes": np.array([[1, 2], [3, 0]], "int32")},
                                                 {"data": [3, 2], "classes": [2, 1]}))
    np.testing.assert_allclose(got[:, 0], np.asarray(observed)[:, 0], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got[0, 1], np.asarray(observed)[0, 1], rtol=1e-5, atol=1e-5)


def test_dot_reduce_time_masks_padding(session):
    # reduce T of data with itself, lengths [3, 1]: the reference counts padded frames as 0 (use_mask default True);
    # observed: [[[35, 44], [44, 56]], [[49, 56], [56, 64]]] for x = 1..12; with use_mask=False the padding counts
    x = np.arange(12, dtype="float32").reshape(2, 3, 2) + 1
    for use_mask, second in [(True, [[49.0, 56.0], [56.0, 64.0]]), (False, [[251.0, 278.0], [278.0, 308.0]])]:
        net = build_net({"output": {"class": "dot", "red1": "T", "red2": "T", "var1": "F", "var2": "F",
                                    "use_mask": use_mask, "from": ["data", "data"]}}, extern_data={"data": {"dim": 2}})
        y = session.run(net.get_layer("output").output.placeholder, make_feed(net, {"data": x}, {"data": [3, 1]}))
        np.testing.assert_allclose(y[0], [[35.0, 44.0], [44.0, 56.0]])
        np.testing.assert_allclose(y[1], second)

"""top_k over two axes / with k from a layer, gather with shared position dims, search_sorted within lengths:
values against numpy, dims as observed from the reference."""

import numpy as np
import tensorflow as tf

from returnn.tensor import FeatureDim, SpatialDim, Tensor, batch_dim
from returnn.tf.layers.core.internal import InternalLayer
from returnn.tf.layers.indexing.search_sorted import SearchSortedLayer
from returnn.tf.layers.shape.gather import GatherLayer
from returnn.tf.network import ExternData, TFNetwork
from tf_net_helpers import build_net


def test_top_k_two_axes(session):
    net = build_net({"output": {"class": "top_k", "from": "data", "axis": ("dim:3", "dim:5"), "k": 2}},
                    {"data": {"shape": (3, 5)}})
    out = net.get_layer("output").output
    assert repr(out) == "Tensor{'output_output', [B,'output:topk'(2)]}"
    idx0, idx1 = net.get_layer("output/indices0").output, net.get_layer("output/indices1").output
    assert idx0.sparse_dim.dimension == 3 and idx1.sparse_dim.dimension == 5
    x = np.random.RandomState(1).randn(2, 3, 5).astype("float32")
    v, i0, i1 = session.run((out.placeholder, idx0.placeholder, idx1.placeholder),
                            feed_dict={net.extern_data.data["data"].placeholder: x})
    flat = x.reshape((2, 15))
    expected = np.argsort(-flat, axis=1)[:, :2]
    np.testing.assert_array_equal(i0, expected // 5)
    np.testing.assert_array_equal(i1, expected % 5)
    np.testing.assert_array_equal(v, np.take_along_axis(flat, expected, axis=1))


def test_top_k_k_from_layer(session):
    k_dim = SpatialDim("k")
    net = build_net({"k": {"class": "constant", "value": 3},
                     "output": {"class": "top_k", "from": "data", "axis": "dim:5", "k": "k", "k_dim": k_dim}},
                    {"data": {"shape": (4, 5)}})
    out = net.get_layer("output").output
    assert out.dims[-1] is k_dim and out.dims[1].dimension == 4  # the new dim last (as the reference)
    x = np.random.RandomState(2).randn(2, 4, 5).astype("float32")
    v, size = session.run((out.placeholder, k_dim.dyn_size), feed_dict={net.extern_data.data["data"].placeholder: x})
    assert size == 3
    np.testing.assert_array_equal(v, -np.sort(-x, axis=-1)[..., :3])


def _gather(session, pos_dims, pos_value):
    time, d, f1, f2 = SpatialDim("T"), SpatialDim("D", 4), FeatureDim("F1", 1), SpatialDim("F2", 2)
    net = TFNetwork(extern_data=ExternData())
    values = InternalLayer(name="values", network=net, output=Tensor("values", dims=[batch_dim, d, time, f1]))
    dims = {"B": batch_dim, "T": time, "F2": f2}
    position = InternalLayer(name="position", network=net,
                             output=Tensor("position", dims=[dims[c] for c in pos_dims], sparse_dim=d, dtype="int32"))
    x = np.random.RandomState(3).rand(3, 4, 2, 1).astype("float32")
    values.output.placeholder = tf.constant(x)
    position.output.placeholder = tf.constant(pos_value, dtype=tf.int32)
    time.dyn_size = tf.constant([2, 1, 2])
    kw = dict(name="gather", network=net, sources=[values], position=position, axis=d)
    layer = GatherLayer(output=GatherLayer.get_out_data_from_opts(**kw), **kw)
    return x, layer.output, session.run(layer.output.placeholder)


def test_gather_shared_batch_and_time(session):
    pos = np.random.RandomState(4).randint(0, 4, size=(3, 2, 2))  # [B, T, F2]
    x, out, y = _gather(session, ["B", "T", "F2"], pos)
    assert [d.description for d in out.dims[1:]] == ["T", "F2", "F1"]  # [B, T, F2, F1] as the reference
    for b in range(3):
        for t in range(2):
            for f in range(2):
                np.testing.assert_equal(y[b, t, f, 0], x[b, pos[b, t, f], t, 0])


def test_gather_shared_time_only(session):
    pos = np.random.RandomState(5).randint(0, 4, size=(2, 2))  # [T, F2]
    x, out, y = _gather(session, ["T", "F2"], pos)
    assert [d.description for d in out.dims] == ["T", "F2", "global batch", "F1"]  # observed from the reference
    for t in range(2):
        for f in range(2):
            np.testing.assert_equal(y[t, f, :, 0], x[:, pos[t, f], t, 0])


def test_search_sorted_within_lengths(session):
    net = TFNetwork(extern_data=ExternData())
    srt = InternalLayer(name="sorted", network=net, output=Tensor(name="sorted", shape=(None, 2)))  # [B,T,F]
    rs = np.random.RandomState(6)
    s = np.sort(rs.uniform(0, 10, size=(2, 6, 2)), axis=1)
    s[1, 4:] = 0.0  # padding (not sorted) beyond the length 4
    srt.output.placeholder = tf.constant(s, dtype=tf.float32)
    srt.output.size_placeholder = {0: tf.constant([6, 4])}
    vals = InternalLayer(name="values", network=net,
                         output=Tensor(name="values", shape=(2, 3), time_dim_axis=None, feature_dim_axis=1))
    v = rs.uniform(0, 12, size=(2, 2, 3))
    vals.output.placeholder = tf.constant(v, dtype=tf.float32)
    for side in ("left", "right"):
        kw = dict(name="ss", network=net, sources=[], sorted_sequence=srt, values=vals, axis="T", side=side)
        layer = SearchSortedLayer(output=SearchSortedLayer.get_out_data_from_opts(**kw), **kw)
        y = session.run(layer.output.placeholder)
        for b, n in enumerate([6, 4]):
            for f in range(2):
                np.testing.assert_array_equal(y[b, f], np.searchsorted(s[b, :n, f], v[b, f], side=side))

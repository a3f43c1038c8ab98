"""slice_nd: numpy reference (frames outside [0, length) are 0), dims as observed from the reference."""

import numpy as np
import pytest

from returnn.errors import LayerArgError
from tf_net_helpers import build_net, make_feed

X = np.arange(2 * 5 * 2, dtype="float32").reshape(2, 5, 2) + 1
LENS = np.array([5, 3])
EXTERN = {"data": {"dim": 2}, "st": {"shape": (), "dtype": "int32", "time_dim_axis": None},
          "st2": {"shape": (None,), "dtype": "int32"}}


def np_slice(x, lens, start, size):
    out = np.zeros((size,) + x.shape[1:], x.dtype)
    for w in range(size):
        if 0 <= start + w < lens:
            out[w] = x[start + w]
    return out


def test_slice_nd(session):
    net = build_net({"a": {"class": "slice_nd", "from": "data", "start": "data:st", "size": 3, "is_output_layer": True},
                     "b": {"class": "slice_nd", "from": "data", "start": "data:st", "size": None, "min_size": 3,
                           "is_output_layer": True},
                     "c": {"class": "slice_nd", "from": "data", "start": "data:st2", "size": 2, "is_output_layer": True}},
                    EXTERN)
    # observed from the reference
    assert repr(net.get_layer("a").output) == \
        "Tensor{'a_gather_output', [B,'sliced-time:a'(3),F|F'feature:data'(2)], available_for_inference=False}"
    assert net.get_layer("b").output.time_dim_axis == 1 and net.get_layer("b").output.dims[1].dimension is None
    assert net.get_layer("c").output.batch_shape == (None, None, 2, 2)
    st, st2 = np.array([-1, 2], "int32"), np.array([[0, 3, 4], [1, 2, 0]], "int32")
    feed = make_feed(net, {"data": X, "st": st, "st2": st2}, {"data": LENS, "st2": [3, 2]})
    a, b, b_lens, c = session.run([net.get_layer("a").output.placeholder, net.get_layer("b").output.placeholder,
                                   net.get_layer("b").output.dims[1].dyn_size, net.get_layer("c").output.placeholder],
                                  feed_dict=feed)
    np.testing.assert_array_equal(a, [np_slice(X[i], LENS[i], st[i], 3) for i in range(2)])
    assert b_lens.tolist() == [6, 3]  # max(length - start, min_size)
    np.testing.assert_array_equal(b, [np_slice(X[i], LENS[i], st[i], 6) for i in range(2)])
    np.testing.assert_array_equal(c, [[np_slice(X[i], LENS[i], s, 2) for s in st2[i]] for i in range(2)])


def test_slice_nd_bad_size(session):
    with pytest.raises(LayerArgError) as info:
        build_net({"output": {"class": "slice_nd", "from": "data", "start": "data:st", "size": 1.5}}, EXTERN)
    assert info.value.arg == "size"


def test_int_start(session):
    """``"start": 1`` (an int, as published factored-hybrid configs use ``0``), size None: the same start for every
    sequence; observed from the reference on x = arange, lengths [4, 2]: template [B,T|sliced-time,F], lengths [3, 1],
    values [[2,3],[4,5],[6,7]] and [[10,11]] (frames within the lengths)."""
    net = build_net({"output": {"class": "slice_nd", "from": "data", "start": 1, "size": None}}, {"data": {"dim": 2}})
    out = net.layers["output"].output
    assert out.batch_shape == (None, None, 2) and out.time_dim_axis == 1
    x = np.arange(16, dtype="float32").reshape(2, 4, 2)
    y, lens = session.run([out.placeholder, out.get_sequence_lengths()], make_feed(net, {"data": x}, {"data": [4, 2]}))
    np.testing.assert_array_equal(lens, [3, 1])
    np.testing.assert_array_equal(y[0], [[2, 3], [4, 5], [6, 7]])
    np.testing.assert_array_equal(y[1, :1], [[10, 11]])


def test_size_is_the_config_dim_of_extern_data(session):
    """``"size": time_tag`` where ``time_tag`` is the config's Dim that ``extern_data`` also uses
    (``same_dim_tags_as``), as the published factored-hybrid configs cut an upsampled encoder back to the input
    length: the output's window dim is that dim, as the reference's template shows
    (``[B,T|'time:var:extern_data:data'[B],F|F'feature:other'(2)]``, observed); the layer argument holding the
    config's Dim object finds the network's axis (its lengths are those of ``data``)."""
    from returnn.tensor import Dim

    time_tag = Dim(None, kind=Dim.Types.Spatial, description="time")
    extern = {"data": {"dim": 2, "same_dim_tags_as": {"T": time_tag}},
              "classes": {"dim": 3, "sparse": True, "same_dim_tags_as": {"T": time_tag}},
              "other": {"dim": 2}}
    net = build_net({"output": {"class": "slice_nd", "from": "data:other", "size": time_tag, "start": 0}}, extern)
    out = net.layers["output"].output
    assert out.get_dims_repr() == "[B,T|'time:var:extern_data:data'[B],F|F'feature:other'(2)]"
    assert out.dims[1] == net.extern_data.data["data"].dims[1] and out.time_dim_axis == 1
    # the config's Dim is made this network's time axis, lengths included (the reference's, observed: its dyn_size
    # is extern data's length placeholder)
    assert time_tag == net.extern_data.data["data"].dims[1]
    assert time_tag.dyn_size is net.extern_data.data["data"].get_sequence_lengths()
    x = np.arange(20, dtype="float32").reshape(2, 5, 2)
    feed = make_feed(net, {"other": x, "data": np.zeros((2, 3, 2), "float32")}, {"other": [5, 4], "data": [3, 2]})
    y = session.run(out.placeholder, feed)
    assert y.shape == (2, 3, 2)
    np.testing.assert_array_equal(y[0], x[0, :3])
    np.testing.assert_array_equal(y[1], np.concatenate([x[1, :2], np.zeros((1, 2), "float32")]))  # past length 2: 0


def test_lengths_per_slice_with_2d_start(session):
    """``size=None`` with a start ``[B, T2]``: the slice axis has lengths per slice, ``dyn_size_ext`` over
    ``[B, T2]`` (as the reference); merge_dims with the feature axis keeps them (times 2); the mask of the slice
    axis is per slice."""
    from returnn.tf.ops.dims import axis_mask
    net = build_net({"s": {"class": "slice_nd", "from": "data", "start": "data:st2", "size": None},
                     "output": {"class": "merge_dims", "from": "s", "axes": ["F", "stag:sliced-time:s"]}}, EXTERN)
    s, out = net.get_layer("s").output, net.get_layer("output").output
    st2_dims = net.extern_data.data["st2"].dims
    assert list(s.dims[2].dyn_size_ext.dims) == list(st2_dims)
    assert list(out.dims[2].dyn_size_ext.dims) == list(st2_dims)
    st2 = np.array([[0, 3, 4], [1, 2, 0]], "int32")
    feed = make_feed(net, {"data": X, "st2": st2}, {"data": LENS, "st2": [3, 2]})
    y, lens, merged_lens, mask = session.run(
        [s.placeholder, s.dims[2].dyn_size_ext.placeholder, out.dims[2].dyn_size_ext.placeholder,
         axis_mask(s, 2)], feed_dict=feed)
    expected_lens = np.maximum(LENS[:, None] - st2, 0)
    np.testing.assert_array_equal(lens, expected_lens)
    np.testing.assert_array_equal(merged_lens, expected_lens * 2)
    assert y.shape == (2, 3, 5, 2) and mask.shape == (2, 3, 5, 1)
    np.testing.assert_array_equal(mask[..., 0], np.arange(5)[None, None] < expected_lens[..., None])
    np.testing.assert_array_equal(y, [[np_slice(X[i], LENS[i], s_, 5) for s_ in st2[i]] for i in range(2)])


def test_size_from_a_layer_and_default_start(session):
    """``size`` as a layer (int, the start's dims): lengths per slice, frames past them 0; without ``start``, 0."""
    from returnn.tensor import SpatialDim, batch_dim
    t2 = SpatialDim("t2")
    extern = dict(EXTERN, st2={"dims": [batch_dim, t2], "dtype": "int32"},
                  sz={"dims": [batch_dim, t2], "dtype": "int32"})
    net = build_net({"a": {"class": "slice_nd", "from": "data", "start": "data:st2", "size": "data:sz",
                           "is_output_layer": True},
                     "b": {"class": "slice_nd", "from": "data", "size": 2, "is_output_layer": True}}, extern)
    a, b = net.get_layer("a").output, net.get_layer("b").output
    st2, sz = np.array([[0, 3, 4], [1, 2, 0]], "int32"), np.array([[2, 1, 3], [1, 4, 0]], "int32")
    feed = make_feed(net, {"data": X, "st2": st2, "sz": sz}, {"data": LENS, "st2": [3, 2], "sz": [3, 2]})
    assert a.dims[1] == net.extern_data.data["sz"].dims[1]
    ya, lens, yb = session.run([a.placeholder, a.dims[2].dyn_size_ext.placeholder, b.placeholder], feed_dict=feed)
    np.testing.assert_array_equal(lens, sz)
    expected = [[np_slice(X[i], min(LENS[i], s_ + n), s_, 4) for s_, n in zip(st2[i], sz[i])] for i in range(2)]
    np.testing.assert_array_equal(ya, expected)
    np.testing.assert_array_equal(yb, [np_slice(X[i], LENS[i], 0, 2) for i in range(2)])

"""merge_dims: merge order (``keep_order``, its default from ``behavior_version`` 6) and the merged axis's
position, as observed from the reference on an input ``{B, T, 2, 3, F=4}`` (dims and values)."""

import numpy as np
import pytest

from returnn.util.basic import BehaviorVersion
from tf_net_helpers import build_net, make_feed

X = np.arange(24, dtype="float32").reshape(1, 1, 2, 3, 4)
T, S2, S3, F = ("time:var:extern_data:data", "spatial1:static2:data", "spatial2:static3:data", "feature:data")


@pytest.fixture(autouse=True)
def _reset_behavior_version():
    BehaviorVersion._reset()
    yield
    BehaviorVersion._reset()


def _merge(session, **opts):
    net = build_net({"output": {"class": "merge_dims", "from": "data", **opts}}, {"data": {"shape": (None, 2, 3, 4)}},
                    train_flag=False)
    out = net.layers["output"].output
    value = session.run(out.placeholder, make_feed(net, {"data": X}, {"data": [1]}))
    return [d.description for d in out.dims[1:]], out.feature_dim_axis, value


@pytest.mark.parametrize("axes, keep_order, dims, feature_axis, perm", [
    (["dim:2", "dim:3"], None, [T, f"{S2}*{S3}", F], 3, (0, 1, 2, 3, 4)),
    (["T", "dim:3"], None, [f"{T}*{S3}", S2, F], 3, (0, 1, 3, 2, 4)),
    # the feature axis merged: the merged axis is the feature axis, at its position
    (["dim:2", "dim:4"], None, [T, S3, f"{S2}*{F}"], 3, (0, 1, 3, 2, 4)),
    (["T", "dim:4"], None, [S2, S3, f"{T}*{F}"], 3, (0, 2, 3, 1, 4)),
    (["dim:4", "T"], True, [S2, S3, f"{F}*{T}"], 3, (0, 2, 3, 4, 1)),
    (["dim:3", "dim:2"], None, [T, f"{S2}*{S3}", F], 3, (0, 1, 2, 3, 4)),  # default: the raw order
    (["dim:3", "dim:2"], True, [T, f"{S3}*{S2}", F], 3, (0, 1, 3, 2, 4)),  # keep_order: the order of `axes`
])
def test_merge_dims_layout_like_reference(session, axes, keep_order, dims, feature_axis, perm):
    got_dims, got_feature_axis, value = _merge(session, axes=axes, **({} if keep_order is None else
                                                                      {"keep_order": keep_order}))
    assert got_dims == dims and got_feature_axis == feature_axis
    np.testing.assert_array_equal(value.ravel(), X.transpose(perm).ravel())


def test_merge_dims_keep_order_default_from_behavior_version_6(session):
    BehaviorVersion.set(6)
    dims, _, value = _merge(session, axes=["dim:3", "dim:2"])
    assert dims == [T, f"{S3}*{S2}", F]
    np.testing.assert_array_equal(value[0, 0, :4, 0], [0, 12, 4, 16])  # observed: [0, 3, 1, 4, ...] with F=1


@pytest.mark.parametrize("time_major", [False, True])
def test_merge_batch_and_time(session, time_major):
    """Merging B and T (the batch axis outermost, also for a time-major input, whatever the order in ``axes``) gives a
    new batch axis over all frames (padding included), no time axis; as the reference (dims, axes and values
    observed)."""
    extern = {"data": {"shape": (None, 5), "time_dim_axis": 0, "batch_dim_axis": 1}} if time_major \
        else {"data": {"shape": (None, 5)}}
    net = build_net({"output": {"class": "merge_dims", "from": "data", "axes": ["T", "B"]}}, extern, train_flag=False)
    out = net.layers["output"].output
    assert out.batch_dim_axis == 0 and out.time_dim_axis is None and out.feature_dim_axis == 1
    assert out.dims[0].is_batch_dim() and out.dims[0].description.startswith("(global")
    x = np.arange(2 * 3 * 5, dtype="float32").reshape((3, 2, 5) if time_major else (2, 3, 5))
    value = session.run(out.placeholder, make_feed(net, {"data": x}, {"data": [3, 2]}))
    batch_major = x.transpose(1, 0, 2) if time_major else x
    np.testing.assert_array_equal(value, batch_major.reshape(6, 5))


def test_merge_dims_out_dim_declared_same(session):
    """``out_dim`` without size (``SpatialDim("out")``) is declared the same as the merged static dim and takes
    its size; the output shows the merged dim (observed from the reference: ``F|F'spatial1:static3:data*
    feature:data'(15)``, ``out_dim.dimension == 15``)."""
    from returnn.tensor import SpatialDim
    out_dim = SpatialDim("out")
    net = build_net({"output": {"class": "merge_dims", "from": "data", "axes": ["dim:3", "dim:4"], "keep_order": True,
                                "out_dim": out_dim}}, {"data": {"shape": (None, 3, 4)}})
    out = net.layers["output"].output
    assert out.dims[2] == out_dim and out_dim.dimension == 12
    assert out.get_dims_repr() == "[B,T|'time:var:extern_data:data'[B],F|F'spatial1:static3:data*feature:data'(12)]"


@pytest.mark.parametrize("axes, batch_axis, perm", [  # observed from the reference on x: [B=2, T=2, 4, F=3]
    (["B", "dim:4"], 0, (0, 2, 1, 3)),  # [B*4, T, F], batch-major
    (["dim:4", "B"], 0, (2, 0, 1, 3)),  # keep_order: [4*B, T, F]
    (["B", "dim:3"], 2, (1, 2, 0, 3)),  # the feature axis merged: at its position, [T, 4, B*3]
])
def test_merge_batch_with_static_dims(session, axes, batch_axis, perm):
    BehaviorVersion.set(6)
    net = build_net({"output": {"class": "merge_dims", "from": "data", "axes": axes}},
                    {"data": {"shape": (None, 4, 3)}}, train_flag=False)
    data = net.extern_data.data["data"]
    out = net.layers["output"].output
    merged_static = data.dims[2] if "dim:4" in axes else data.dims[3]
    assert out.batch_dim_axis == batch_axis
    fixed = out.batch.virtual_dims[1]
    assert len(out.batch.virtual_dims) == 2 and fixed.dim_tag == merged_static
    assert out.batch.base is data.batch
    x = np.arange(2 * 2 * 4 * 3, dtype="float32").reshape(2, 2, 4, 3)
    value = session.run(out.placeholder, make_feed(net, {"data": x}, {"data": [2, 2]}))
    expected = x.transpose(perm)
    if batch_axis == 0:
        expected = expected.reshape((8,) + expected.shape[2:])
    else:
        expected = expected.reshape(expected.shape[:2] + (6,))
    np.testing.assert_array_equal(value, expected)


def test_split_dims_of_merged_batch(session):
    """split_dims of a batch axis merged with a static dim (``axis=batch_dim``, ``dims=[batch_dim, F]``) gives the
    input's batch info again (the fixed virtual dim removed) and the values back (as the reference)."""
    from returnn.tensor import batch_dim
    BehaviorVersion.set(6)
    net = build_net({}, {"data": {"dim": 3}}, train_flag=False)
    data = net.extern_data.data["data"]
    feat = data.dims[2]
    net.construct_from_dict({"merge": {"class": "merge_dims", "from": "data", "axes": [batch_dim, feat]},
                             "output": {"class": "split_dims", "from": "merge", "axis": batch_dim,
                                        "dims": [batch_dim, feat]}})
    merged, out = net.layers["merge"].output, net.layers["output"].output
    assert not merged.batch.is_global_batch() and out.batch is data.batch and out.batch.is_global_batch()
    assert out.dims == (data.dims[1], batch_dim, feat)  # [T, B, F], as the reference
    x = np.arange(2 * 5 * 3, dtype="float32").reshape(2, 5, 3)
    value = session.run(out.placeholder, make_feed(net, {"data": x}, {"data": [5, 4]}))
    np.testing.assert_array_equal(value, x.transpose(1, 0, 2))


def test_merge_batch_and_time_keeps_second_time_axis_with_lengths_per_merged_entry(session):
    """``[B, T, T2, F] -> [B*T, T2, F]``: ``T2`` stays the same dim (equal), but its lengths are per merged entry
    (each sequence's ``T2`` length repeated ``T`` times, ``[B*T]``); ``split_batch_time`` gives ``[B, T, T2, F]`` with
    the input's ``T2`` lengths again. As the reference (observed: ``merged.size_placeholder[0]`` is another tensor,
    its values ``input_size1`` repeated)."""
    net = build_net({"merge": {"class": "merge_dims", "from": "data", "axes": ["B", "T"]},
                     "output": {"class": "split_batch_time", "from": "merge", "base": "data"}},
                    {"data": {"shape": (None, None, 2)}}, train_flag=False)
    data, merged, out = (net.extern_data.data["data"], net.layers["merge"].output, net.layers["output"].output)
    t2 = data.dims[2]
    assert merged.dims[1] == t2 and merged.dims[1].batch_variant_of is t2
    assert merged.size_placeholder[0] is not data.size_placeholder[1]
    assert out.dims[2] is t2 and out.size_placeholder[1] is data.size_placeholder[1]
    x = np.arange(2 * 3 * 4 * 2, dtype="float32").reshape(2, 3, 4, 2)
    feed = make_feed(net, {"data": x}, {"data": [3, 2]})
    feed[data.size_placeholder[1]] = [4, 1]
    merged_v, merged_len, out_v, mask = session.run(
        (merged.placeholder, merged.size_placeholder[0], out.placeholder, merged.get_sequence_mask_broadcast(axis=1)),
        feed)
    np.testing.assert_array_equal(merged_len, [4, 4, 4, 1, 1, 1])
    np.testing.assert_array_equal(merged_v, x.reshape(6, 4, 2))
    np.testing.assert_array_equal(out_v, x)
    assert mask.shape[:2] == (6, 4) and mask[:, :, 0].sum(axis=1).tolist() == [4, 4, 4, 1, 1, 1]

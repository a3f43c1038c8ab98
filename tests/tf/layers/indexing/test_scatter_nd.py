"""scatter_nd: numpy scatter-add reference; dims as observed from the reference."""

import numpy as np
import pytest

from returnn.errors import LayerArgError
from returnn.tensor import SpatialDim
from tf_net_helpers import build_net, make_feed

X = np.arange(2 * 4 * 3, dtype="float32").reshape(2, 4, 3) + 1
POS = np.array([[0, 2, 2, 1], [1, 0, 4, 2]], "int32")
EXTERN = {"data": {"dim": 3}, "pos": {"shape": (None,), "dtype": "int32"}, "enc": {"dim": 2}}


def test_scatter_nd_numpy(session):
    net = build_net({"output": {"class": "scatter_nd", "from": "data", "position": "data:pos", "position_axis": "T",
                                "output_dim_via_time_from": "data:enc"}}, EXTERN)
    out = net.get_layer("output").output
    # observed from the reference: {B, N=enc time, data time, F}, N marked as time
    assert out.dims[1] is net.extern_data.data["enc"].dims[1]
    assert out.dims[2] is net.extern_data.data["data"].dims[1]
    assert (out.time_dim_axis, out.feature_dim_axis) == (1, 3)
    feed = make_feed(net, {"data": X, "pos": POS, "enc": np.zeros((2, 5, 2), "float32")},
                     {"data": [4, 3], "pos": [4, 3], "enc": [5, 3]})
    y = session.run(out.placeholder, feed_dict=feed)
    expected = np.zeros((2, 5, 4, 3), "float32")
    for b in range(2):
        for p in range(4):  # padded position frames count too (as the reference)
            expected[b, POS[b, p]] += X[b]
    np.testing.assert_array_equal(y, expected)


def test_scatter_nd_out_spatial_dim_filter(session):
    new = SpatialDim("new", 3)
    net = build_net({"output": {"class": "scatter_nd", "from": "data", "position": "data:pos", "position_axis": "T",
                                "out_spatial_dim": new, "filter_invalid_indices": True}}, EXTERN)
    out = net.get_layer("output").output
    assert out.dims[1] is new
    feed = make_feed(net, {"data": X, "pos": POS}, {"data": [4, 3], "pos": [4, 3]})
    y = session.run(out.placeholder, feed_dict=feed)
    expected = np.zeros((2, 3, 4, 3), "float32")
    for b in range(2):
        for p in range(4):
            if POS[b, p] < 3:
                expected[b, POS[b, p]] += X[b]
    np.testing.assert_array_equal(y, expected)


def test_scatter_nd_needs_output_dim(session):
    with pytest.raises(LayerArgError) as info:
        build_net({"output": {"class": "scatter_nd", "from": "data", "position": "data:pos", "position_axis": "T"}},
                  EXTERN)
    assert info.value.arg == "output_dim_via_time_from"

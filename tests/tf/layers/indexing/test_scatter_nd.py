"""scatter_nd: numpy scatter-add reference; dims as observed from the reference."""

import numpy as np
import pytest

from returnn.errors import LayerArgError
from returnn.tensor import SpatialDim
from returnn.tf.util.data import NotSpecified
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


@pytest.mark.parametrize("val_shape, dims_repr", [  # observed from the reference (position_axis "dim:6")
    # the input's auto-generated 6 is the position's 6: not repeated in the output
    ((6, 11), "[T|'time:var:extern_data:pos'[B],'time:var:extern_data:data'[B],B,F|F'feature:var'(11)]"),
    ((5, 11), "[T|'time:var:extern_data:pos'[B],'time:var:extern_data:data'[B],B,'spatial0:static5:var'(5),"
              "F|F'feature:var'(11)]"),
    # two 6s in the input: the first is the position's
    ((6, 6, 11), "[T|'time:var:extern_data:pos'[B],'time:var:extern_data:data'[B],B,'spatial1:static6:var'(6),"
                 "F|F'feature:var'(11)]"),
])
def test_scatter_nd_matches_auto_generated_input_dim(session, val_shape, dims_repr):
    from returnn.tensor import Tensor
    from returnn.tf.layers.basic import InternalLayer, ScatterNdLayer
    net = build_net({}, {"data": {"dim": 13}})
    data = net.get_layer("data")
    pos = InternalLayer(name="pos", network=net, output=Tensor(
        name="pos", shape=(None, 6), dtype="int32", sparse=True, dim=None, batch_dim_axis=2,
        auto_create_placeholders=True))
    val = InternalLayer(name="val", network=net, output=Tensor(name="var", shape=val_shape, time_dim_axis=None,
                                                               auto_create_placeholders=True))
    opts = dict(name="scatter", network=net, sources=[val], position=pos, position_axis="dim:6",
                output_dim_via_time_from=data, filter_invalid_indices=True)
    out = ScatterNdLayer.get_out_data_from_opts(**opts)
    assert out.get_dims_repr() == dims_repr
    assert out.time_dim_axis == 0 and out.feature_dim_axis_or_unspecified is NotSpecified
    if val_shape == (6, 11):
        layer = ScatterNdLayer(output=out, **opts)
        x = np.arange(2 * 6 * 11, dtype="float32").reshape(2, 6, 11)
        pos_v = np.zeros((2, 6, 2), "int32")  # [T_pos=2, 6, B=2]
        pos_v[0, :, 0], pos_v[1, :, 0], pos_v[0, :, 1], pos_v[1, :, 1] = [0, 1, 2, 3, 9, 1], 2, 1, [0, 0, 0, 0, 0, 4]
        feed = {val.output.placeholder: x, pos.output.placeholder: pos_v,
                pos.output.size_placeholder[0]: [2, 2], data.output.placeholder: np.zeros((2, 4, 13), "float32"),
                data.output.size_placeholder[0]: [4, 3]}
        y = session.run(layer.output.placeholder, feed)
        expected = np.zeros((2, 4, 2, 11), "float32")  # [T_pos, N=4, B, F]
        for t in range(2):
            for a in range(6):
                for b in range(2):
                    if 0 <= pos_v[t, a, b] < 4:
                        expected[t, pos_v[t, a, b], b] += x[b, a]
        np.testing.assert_array_equal(y, expected)

"""gather_nd: numpy reference, dims as observed from the reference, inside a rec unit with prev: positions."""

import numpy as np
import pytest

from returnn.errors import LayerArgError
from tf_net_helpers import build_net, make_feed

X = np.arange(2 * 4 * 3, dtype="float32").reshape(2, 4, 3)
EXTERN = {"data": {"dim": 3}, "tm": {"dim": 3, "time_dim_axis": 0, "batch_dim_axis": 1},
          "pos": {"shape": (), "dtype": "int32", "time_dim_axis": None}, "pos2": {"shape": (None,), "dtype": "int32"}}
POS = np.array([1, 3], "int32")
POS2 = np.array([[0, 3, 1], [2, 2, 0]], "int32")


def test_gather_nd(session):
    net = build_net({"a": {"class": "gather_nd", "from": "data", "position": "data:pos", "is_output_layer": True},
                     "b": {"class": "gather_nd", "from": "data", "position": "data:pos2", "is_output_layer": True},
                     "c": {"class": "gather_nd", "from": "data:tm", "position": "data:pos2", "is_output_layer": True}},
                    EXTERN)
    assert net.get_layer("a").output.dims[1] is net.extern_data.data["data"].dims[2]
    b = net.get_layer("b").output
    assert (b.time_dim_axis, b.feature_dim_axis) == (1, 2)
    assert b.dims[1] is net.extern_data.data["pos2"].dims[1]  # the position's time dim
    feed = make_feed(net, {"data": X, "tm": X.transpose(1, 0, 2), "pos": POS, "pos2": POS2},
                     {"data": [4, 3], "tm": [4, 3], "pos2": [3, 2]})
    a, b, c = session.run([net.get_layer(n).output.placeholder for n in "abc"], feed_dict=feed)
    np.testing.assert_array_equal(a, X[np.arange(2), POS])
    expected = np.stack([X[i][POS2[i]] for i in range(2)])
    np.testing.assert_array_equal(b, expected)
    np.testing.assert_array_equal(c, expected)


def test_gather_nd_in_rec_unit(session):
    net = build_net({"output": {"class": "rec", "from": "data", "unit": {
        "t": {"class": "eval", "from": "prev:t", "eval": "source(0) + 1", "initial_output": 0,
              "out_type": {"dtype": "int32", "shape": (), "sparse": False}},
        "g": {"class": "gather_nd", "from": "base:data", "position": "prev:t"},
        "output": {"class": "combine", "kind": "add", "from": ["g", "data:source"]}}}}, {"data": {"dim": 3}})
    y = session.run(net.get_layer("output").output.placeholder,
                    feed_dict=make_feed(net, {"data": X}, {"data": [4, 4]}))
    np.testing.assert_array_equal(y, 2 * X.transpose(1, 0, 2))  # prev:t at step i is i


def test_gather_nd_float_position(session):
    with pytest.raises(LayerArgError) as info:
        build_net({"output": {"class": "gather_nd", "from": "data", "position": "data"}}, {"data": {"dim": 3}})
    assert info.value.arg == "position"

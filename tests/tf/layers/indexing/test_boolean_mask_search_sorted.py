"""boolean_mask and search_sorted: numpy references, dims as observed from the reference."""

import numpy as np

from returnn.tensor import batch_dim
from tf_net_helpers import build_net, make_feed

X = np.arange(36, dtype="float32").reshape(2, 3, 6)


def test_boolean_mask(session):
    from returnn.tf.network import TFNetwork  # the dims must be the extern data's own Dim objects
    from returnn.config import Config
    net = TFNetwork(config=Config({"extern_data": {"data": {"dim": 6}}}))
    time_dim = net.extern_data.data["data"].dims[1]
    net.construct_from_dict({
        "mask": {"class": "compare", "from": "data", "kind": "greater", "value": 10.0},
        "m2": {"class": "reduce", "mode": "any", "axes": "F", "from": "mask"},
        "output": {"class": "boolean_mask", "from": "data", "mask": "m2", "dims": [batch_dim, time_dim]}})
    out = net.get_layer("output").output
    assert out.dims[0].description == "output:mask" and (out.time_dim_axis, out.feature_dim_axis) == (0, 1)
    y, n = session.run([out.placeholder, out.dims[0].dyn_size], feed_dict=make_feed(net, {"data": X}, {"data": [3, 2]}))
    rows = X.reshape(6, 6)
    np.testing.assert_array_equal(y, rows[(rows > 10).any(-1)])  # padded frames too (raw mask, as the reference)
    assert n == 5


def test_search_sorted(session):
    net = build_net({"s": {"class": "cumsum", "from": "data:srt", "axis": "F"},
                     "l": {"class": "search_sorted", "sorted_sequence": "s", "values": "data:v", "axis": "F",
                           "is_output_layer": True},
                     "r": {"class": "search_sorted", "sorted_sequence": "s", "values": "data:v", "axis": "F",
                           "side": "right", "is_output_layer": True}},
                    {"srt": {"shape": (4,), "time_dim_axis": None}, "v": {"shape": (3,), "time_dim_axis": None}})
    srt = np.array([[1, 1, 1, 1], [0, 2, 2, 2]], "float32")
    v = np.array([[0.5, 2, 3.5], [2, 4, 7]], "float32")
    feed = {net.extern_data.data["srt"].placeholder: srt, net.extern_data.data["v"].placeholder: v}
    left, right = session.run([net.get_layer("l").output.placeholder, net.get_layer("r").output.placeholder], feed)
    assert left.tolist() == [[0, 1, 3], [1, 2, 4]] and right.tolist() == [[0, 2, 3], [2, 3, 4]]  # as the reference
    for b in range(2):
        assert left[b].tolist() == np.searchsorted(np.cumsum(srt[b]), v[b], side="left").tolist()

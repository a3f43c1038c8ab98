"""top_k: values and indices (sub layer) against numpy; dims as observed from the reference."""

import numpy as np

from tf_net_helpers import build_net, make_feed


def test_top_k(session):
    x = np.random.RandomState(3).randn(2, 3, 6).astype("float32")
    net = build_net({"tk": {"class": "top_k", "from": "data", "axis": "F", "k": 2, "is_output_layer": True},
                     "idx": {"class": "copy", "from": "tk/indices", "is_output_layer": True}}, {"data": {"dim": 6}})
    assert repr(net.get_layer("tk").output) == \
        "Tensor{'tk_output', [B,T|'time:var:extern_data:data'[B],'tk:topk'(2)]}"
    assert net.get_layer("idx").output.sparse_dim is net.extern_data.data["data"].dims[2]
    values, idx = session.run([net.get_layer("tk").output.placeholder, net.get_layer("idx").output.placeholder],
                              feed_dict=make_feed(net, {"data": x}, {"data": [3, 2]}))
    expected_idx = np.argsort(-x, axis=-1)[..., :2]
    np.testing.assert_array_equal(idx, expected_idx)
    np.testing.assert_array_equal(values, np.take_along_axis(x, expected_idx, axis=-1))

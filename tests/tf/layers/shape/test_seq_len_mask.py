"""seq_len_mask: masked frames as observed from the reference (start, window_start + window_size)."""

import numpy as np

from tf_net_helpers import build_net, make_feed

X = np.arange(12, dtype="float32").reshape(2, 6, 1) + 1


def test_seq_len_mask(session):
    net = build_net({"st": {"class": "constant", "value": 1},
                     "a": {"class": "seq_len_mask", "from": "data", "mask_value": -1.0, "is_output_layer": True},
                     "b": {"class": "seq_len_mask", "from": "data", "mask_value": 0.5, "start": "st", "window_size": 2,
                           "is_output_layer": True},
                     "c": {"class": "seq_len_mask", "from": "data", "mask_value": 0.5, "window_start": "st",
                           "window_size": 2, "is_output_layer": True}}, {"data": {"dim": 1}})
    a, b, c = session.run([net.get_layer(n).output.placeholder for n in "abc"],
                          feed_dict=make_feed(net, {"data": X}, {"data": [6, 4]}))
    valid = np.arange(6)[None, :, None] < np.array([6, 4])[:, None, None]
    np.testing.assert_array_equal(a, np.where(valid, X, -1.0))
    np.testing.assert_array_equal(b, np.where(valid & (np.arange(6)[None, :, None] >= 1), X, 0.5))
    np.testing.assert_array_equal(c[:, :, 0], [[0.5, 2, 3, 0.5, 0.5, 0.5], [0.5, 8, 9, 0.5, 0.5, 0.5]])

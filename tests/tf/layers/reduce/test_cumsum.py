"""cumsum: numpy cumsum on the raw padded tensor (as the reference)."""

import numpy as np
import pytest

from tf_net_helpers import build_net, make_feed

X = np.arange(2 * 3 * 3, dtype="float32").reshape(2, 3, 3) + 1


@pytest.mark.parametrize("opts, expected", [
    ({}, np.cumsum(X, axis=1)),
    ({"reverse": True}, np.cumsum(X[:, ::-1], axis=1)[:, ::-1]),
    ({"axis": "F"}, np.cumsum(X, axis=2)),
    ({"additional_left_summand_per_element": 10}, np.cumsum(X + 10, axis=1)),
])
def test_cumsum(session, opts, expected):
    net = build_net({"output": {"class": "cumsum", "from": "data", **opts}}, {"data": {"dim": 3}})
    y = session.run(net.get_layer("output").output.placeholder,
                    feed_dict=make_feed(net, {"data": X}, {"data": [3, 2]}))
    np.testing.assert_allclose(y, expected)

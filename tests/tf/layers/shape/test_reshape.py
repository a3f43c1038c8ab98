"""reshape: dims as observed from the reference, raw reshape against numpy."""

import numpy as np
import pytest

from returnn.errors import LayerShapeError
from returnn.tensor import FeatureDim
from tf_net_helpers import build_net, make_feed


def test_reshape(session):
    a, b = FeatureDim("a", 2), FeatureDim("b", 3)
    net = build_net({"output": {"class": "reshape", "from": "data", "in_dims": ["F"], "out_dims": [a, b]}},
                    {"data": {"dim": 6}})
    out = net.get_layer("output").output
    assert repr(out) == "Tensor{'output_output', [B,T|'time:var:extern_data:data'[B],F'a'(2),F|F'b'(3)]}"
    x = np.arange(36, dtype="float32").reshape(2, 3, 6)
    y = session.run(out.placeholder, feed_dict=make_feed(net, {"data": x}, {"data": [3, 2]}))
    np.testing.assert_array_equal(y, x.reshape(2, 3, 2, 3))
    with pytest.raises(LayerShapeError, match="total size"):
        build_net({"output": {"class": "reshape", "from": "data", "in_dims": ["F"], "out_dims": [a, a]}},
                  {"data": {"dim": 6}})

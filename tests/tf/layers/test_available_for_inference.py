"""``available_for_inference`` of layer outputs whose sources are not all available (e.g. they read a target), as
observed from the reference: linear and combine need all sources; copy takes its first source's template."""

import pytest
import tensorflow as tf

from returnn.tensor import SpatialDim
from tf_net_helpers import build_net

TIME = SpatialDim("time")
EXTERN = {"data": {"dim": 4, "same_dim_tags_as": {"t": TIME}}, "x": {"dim": 4, "same_dim_tags_as": {"t": TIME}},
          "s": {"dim": 4, "sparse": True, "same_dim_tags_as": {"t": TIME}}}


@pytest.mark.parametrize("layer, available", [
    ({"class": "linear", "n_out": 4, "from": ["data", "data:x"]}, False),
    ({"class": "softmax", "n_out": 4, "from": ["data", "data:x"]}, False),
    ({"class": "linear", "n_out": 4, "from": "data:s"}, False),
    ({"class": "linear", "n_out": 4, "from": "data"}, True),
    ({"class": "copy", "from": ["data", "data:x"]}, True),
    ({"class": "copy", "from": ["data:x", "data"]}, False),
    ({"class": "combine", "kind": "add", "from": ["data", "data:x"]}, False),
    ({"class": "combine", "kind": "add", "from": ["data", "data"]}, True),
])
def test_available_for_inference_like_reference(layer, available):
    with tf.Graph().as_default():
        assert not build_net({}, EXTERN).extern_data.data["x"].available_for_inference
        net = build_net({"output": layer}, EXTERN)
        assert net.layers["output"].output.available_for_inference is available

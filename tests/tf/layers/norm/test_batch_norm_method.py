"""``LayerBase.batch_norm(data, ...)``: the batch_norm layer's options are its arguments (same names, same order,
as the reference's signatures); the layer only passes on what was given; ``in_dim`` must be the feature dim."""

import inspect

import numpy as np
import pytest
import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import FeatureDim, SpatialDim, batch_dim
from returnn.tf.layers.basic import BatchNormLayer, LayerBase
from tf_net_helpers import build_net, make_feed


def test_method_and_layer_options_agree():
    method_args = list(inspect.signature(LayerBase.batch_norm).parameters)[2:]  # self, data
    layer_args = [name for name in inspect.signature(BatchNormLayer.__init__).parameters
                  if name not in ("self", "kwargs")][1:]  # in_dim
    assert method_args == layer_args
    assert method_args[:3] == ["use_shift", "use_std", "use_sample"] and method_args[-1] == "masked_time"


def test_layer_equals_method_on_its_input():
    feat = FeatureDim("feat", 3)
    x = np.arange(2 * 4 * 3, dtype="float32").reshape(2, 4, 3)
    with tf.Graph().as_default(), tf.compat.v1.Session() as session:
        net = build_net({"output": {"class": "batch_norm", "from": "data", "in_dim": feat, "epsilon": 0.1}},
                        {"data": {"dim_tags": [batch_dim, SpatialDim("time"), feat]}}, train_flag=True)
        session.run(tf.compat.v1.global_variables_initializer())
        y = session.run(net.get_default_output_layer().output.placeholder, make_feed(net, {"data": x}, {"data": [4, 4]}))
    flat = x.reshape(-1, 3)
    np.testing.assert_allclose(y.reshape(-1, 3), (flat - flat.mean(0)) / np.sqrt(flat.var(0) + 0.1), rtol=1e-5)


def test_in_dim_must_be_the_feature_dim():
    with tf.Graph().as_default(), pytest.raises(LayerArgError, match="in_dim"):
        build_net({"output": {"class": "batch_norm", "from": "data", "in_dim": FeatureDim("other", 3)}},
                  {"data": {"dim": 3}})

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


@pytest.mark.parametrize("bn_layer", [True, False])
def test_batch_norm_draws_one_seed_of_the_network(bn_layer):
    """A batch normalisation (the layer, or a layer's ``batch_norm`` option) draws one seed from the network's
    generator, so a layer built after it gets the reference's initial values (observed: the sum and the sum of
    squares of ``ctc/W``, the reference's test_ctc_bn_train_eval network)."""
    net_dict = {"source": {"class": "linear", "n_out": 10, "from": "data"},
                "ctc": {"class": "softmax", "from": "bn" if bn_layer else "source", "target": "classes",
                        "loss": "ctc", "loss_opts": {"beam_width": 1, "use_native": True}}}
    if bn_layer:
        net_dict["bn"] = {"class": "batch_norm", "from": "source", "momentum": 0.1, "epsilon": 1e-3,
                          "update_sample_only_in_training": False, "delay_sample_update": False, "masked_time": True}
    else:
        net_dict["source"]["batch_norm"] = {"momentum": 0.1}
    with tf.Graph().as_default(), tf.compat.v1.Session() as session:
        build_net(net_dict, {"data": {"dim": 2, "sparse": True}, "classes": {"dim": 8, "sparse": True}},
                  train_flag=True)
        session.run(tf.compat.v1.global_variables_initializer())
        w = session.run([v for v in tf.compat.v1.global_variables() if v.name == "ctc/W:0"][0])
    assert float(w.sum()) == pytest.approx(-2.5960796, abs=1e-5)
    assert float((w * w).sum()) == pytest.approx(9.8557215, rel=1e-6)

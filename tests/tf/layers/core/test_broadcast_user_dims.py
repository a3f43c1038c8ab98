"""From behavior_version 16, two different static dims of the same size are matched by role (feature with feature,
same size) only when both are auto-generated (a layer's ``'lin:feature-dense'``, an extern data's
``'feature:data'``); a dim the user declared is only matched by identity, as observed from the reference."""

import pytest

from returnn.config import Config
from returnn.tensor import FeatureDim, SpatialDim, Tensor, batch_dim
from returnn.tf.layers.basic import CombineLayer, InternalLayer
from returnn.tf.network import ExternData, TFNetwork
from tf_net_helpers import build_net


def _combine_template(a_dims, b_dims):
    net = TFNetwork(config=Config(), extern_data=ExternData())
    return CombineLayer.get_out_data_from_opts(
        network=net, name="c", kind="add", allow_broadcast_all_sources=True,
        sources=[InternalLayer(name="a", network=net, output=Tensor("a", dims=a_dims)),
                 InternalLayer(name="b", network=net, output=Tensor("b", dims=b_dims))])


@pytest.mark.usefixtures("latest_behavior")
def test_user_dims_of_the_same_size_stay_separate_axes():
    time_dim, in3, feat3, sp3 = SpatialDim("time"), FeatureDim("input", 3), FeatureDim("feat", 3), SpatialDim("sp", 3)
    assert _combine_template([batch_dim, time_dim, in3], [feat3]).dims == (batch_dim, time_dim, in3, feat3)
    assert _combine_template([batch_dim, time_dim, sp3, in3], [SpatialDim("sp2", 3)]).batch_ndim == 5
    auto_a = FeatureDim("auto_a", 3, auto_generated=True)
    auto_b = FeatureDim("auto_b", 3, auto_generated=True)
    assert _combine_template([batch_dim, time_dim, auto_a], [auto_b]).dims == (batch_dim, time_dim, auto_a)
    assert _combine_template([batch_dim, time_dim, auto_a], [feat3]).dims == (batch_dim, time_dim, auto_a, feat3)


@pytest.mark.usefixtures("latest_behavior")
def test_layer_made_static_dims_are_auto_generated():
    # as the reference (observed): two n_out=3 layers combine to one feature axis; a user's out_dim does not
    time_dim, in_dim, f3 = SpatialDim("time"), FeatureDim("in", 5), FeatureDim("f3", 3)
    net = build_net({"a": {"class": "linear", "from": "data", "n_out": 3},
                     "b": {"class": "linear", "from": "data", "n_out": 3},
                     "c": {"class": "linear", "from": "data", "out_dim": f3},
                     "ab": {"class": "combine", "kind": "add", "from": ["a", "b"], "is_output_layer": True},
                     "output": {"class": "combine", "kind": "add", "from": ["a", "c"],
                                "allow_broadcast_all_sources": True}},
                    {"data": {"dim_tags": [batch_dim, time_dim, in_dim]}})
    a_dim = net.get_layer("a").output.dims[-1]
    assert a_dim.auto_generated and not f3.auto_generated and not time_dim.auto_generated
    assert net.get_layer("ab").output.dims == (batch_dim, time_dim, a_dim)
    assert net.get_default_output_layer().output.dims == (batch_dim, time_dim, a_dim, f3)
    assert not FeatureDim("outside", 3).auto_generated  # a dim made outside a layer's construction

"""combine: broadcasting rules as observed from the reference (RETURNN, TF backend): every source lacking an output
axis must be allowed (allow_broadcast_all_sources or out_shape) with behavior_version >= 4; a feature axis whose
size differs from the output's feature axis goes to the first other axis of its size."""

import numpy as np
import pytest
import tensorflow as tf

from returnn.tensor import FeatureDim, SpatialDim, batch_dim
from returnn.util.behavior_version import BehaviorVersion
from tf_net_helpers import build_net


def _extern():
    feat = FeatureDim("feature", 5)
    return {"in1": {"dim_tags": [batch_dim, SpatialDim("time1"), feat]},
            "in2": {"dim_tags": [batch_dim, SpatialDim("time2"), feat]},
            "bf": {"dim_tags": [batch_dim, feat]}}


def test_two_time_axes_need_explicit_broadcasting(session, latest_behavior):
    with pytest.raises(BehaviorVersion.RequirementNotSatisfied, match="require broadcasting"):
        build_net({"output": {"class": "combine", "kind": "add", "from": ["data:in1", "data:in2"]}},
                  extern_data=_extern())
    net = build_net({"output": {"class": "combine", "kind": "add", "from": ["data:in1", "data:in2"],
                                "allow_broadcast_all_sources": True}}, extern_data=_extern())
    out = net.get_default_output_layer().output
    assert [d.dimension for d in out.dims] == [None, None, None, 5]
    in1, in2 = net.extern_data.data["in1"], net.extern_data.data["in2"]
    x, y = np.ones((2, 3, 5), "float32"), np.arange(40, dtype="float32").reshape(2, 4, 5)
    got = session.run(out.placeholder, {in1.placeholder: x, in2.placeholder: y,
                                        in1.get_sequence_lengths(): [3, 3], in2.get_sequence_lengths(): [4, 4]})
    np.testing.assert_array_equal(got, x[:, :, None] + y[:, None])


def test_one_complete_source_needs_nothing(latest_behavior):
    net = build_net({"output": {"class": "combine", "kind": "add", "from": ["data:in1", "data:bf"]}},
                    extern_data=_extern())
    assert [d.dimension for d in net.get_default_output_layer().output.dims] == [None, None, 5]


def test_broadcast_all_sources_is_a_warning_below_version_4():
    net = build_net({"output": {"class": "combine", "kind": "add", "from": ["data:in1", "data:in2"]}},
                    extern_data=_extern())
    assert net.get_default_output_layer().output.batch_ndim == 4


def test_feature_axis_goes_to_the_first_axis_of_its_size(session, latest_behavior):
    # reference: (5,5,3) + (5,) -> (5,5,3), the (5,) added along the first axis
    net = build_net({"p1": {"class": "variable", "shape": (5, 5, 3), "add_batch_axis": False, "init": 0},
                     "p2": {"class": "variable", "shape": (5,), "add_batch_axis": False, "init": 0},
                     "output": {"class": "combine", "kind": "add", "from": ["p1", "p2"]}})
    out = net.get_default_output_layer().output
    assert out.batch_shape == (5, 5, 3)
    session.run(tf.compat.v1.global_variables_initializer())
    net.get_layer("p2").params["p2"].load(np.arange(5, dtype="float32"), session)
    got = session.run(out.placeholder)
    np.testing.assert_array_equal(got, np.broadcast_to(np.arange(5, dtype="float32")[:, None, None], (5, 5, 3)))

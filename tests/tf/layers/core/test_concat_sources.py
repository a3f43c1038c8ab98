"""Several sources ("from": [a, b]) concatenated on the feature axis: a source without some axis of another (e.g.
the time-reduced encoder mean next to a per-frame input) is broadcast over it, as the reference (observed); when
every source lacks some axis (two time axes), that needs an out_shape from behavior_version 4 on."""

import numpy as np
import pytest

import returnn.tf.layers  # noqa: F401
from returnn.tensor import FeatureDim, SpatialDim, batch_dim
from returnn.util.behavior_version import BehaviorVersion
from tf_net_helpers import build_net, make_feed


@pytest.mark.parametrize("order", [["data", "r"], ["r", "data"]])
def test_linear_broadcasts_a_source_without_time(session, order):
    net = build_net({"r": {"class": "reduce", "mode": "mean", "axes": "T", "from": "data"},
                     "output": {"class": "linear", "activation": None, "n_out": 3, "from": order}},
                    extern_data={"data": {"dim": 4}})
    out = net.get_layer("output").output
    assert out.batch_ndim == 3 and out.time_dim_axis is not None and out.dim == 3
    (w, b) = net.get_layer("output").params.values()
    assert w.shape.as_list() == [8, 3]
    x = np.arange(2 * 3 * 4, dtype="float32").reshape(2, 3, 4)
    session.run([w.assign(np.eye(8, 3, dtype="float32") + np.eye(8, 3, k=-4, dtype="float32")),
                 b.assign(np.zeros(3, "float32"))])
    y = session.run(out.copy_as_batch_major().placeholder, make_feed(net, {"data": x}, {"data": [3, 2]}))
    # observed from the reference with "from": ["r", "data"] (out_j = mean_j + x_j, the padded frame not masked)
    observed = [[[4.0, 6.0, 8.0], [8.0, 10.0, 12.0], [12.0, 14.0, 16.0]],
                [[26.0, 28.0, 30.0], [30.0, 32.0, 34.0], [34.0, 36.0, 38.0]]]
    np.testing.assert_allclose(y, observed)


def test_sources_with_different_time_axes_need_out_shape(latest_behavior):
    # reference (behavior_version >= 4): "All inputs ... require broadcasting to ... e.g. by specifying out_shape"
    with pytest.raises(BehaviorVersion.RequirementNotSatisfied, match="require broadcasting"):
        build_net({"output": {"class": "linear", "n_out": 3, "from": ["data", "data:data2"]}},
                  extern_data={"data": {"dim": 4}, "data2": {"dim": 4}})
    time1, time2, feat, out_dim = SpatialDim("time1"), SpatialDim("time2"), FeatureDim("f", 4), FeatureDim("o", 3)
    net = build_net({"output": {"class": "linear", "out_dim": out_dim, "from": ["data:in1", "data:in2"],
                                "out_shape": {batch_dim, time1, time2, out_dim}}},
                    extern_data={"in1": {"dim_tags": [batch_dim, time1, feat]},
                                 "in2": {"dim_tags": [batch_dim, time2, feat]}})
    assert net.get_layer("output").params["W"].shape.as_list() == [8, 3]


def test_sources_with_different_time_axes_broadcast_below_version_4(session):
    # reference (behavior_version 0: a deprecation warning): [B,T1,4] and [B,T2,4] -> [B,T1,T2,8]
    net = build_net({"output": {"class": "linear", "n_out": 3, "activation": None, "with_bias": False,
                                "from": ["data", "data:data2"]}},
                    extern_data={"data": {"dim": 4}, "data2": {"dim": 4}})
    out = net.get_layer("output").output
    assert [d.dimension for d in out.dims] == [None, None, None, 3]
    w = net.get_layer("output").params["W"]
    session.run(w.assign(np.eye(8, 3, dtype="float32") + np.eye(8, 3, k=-4, dtype="float32")))
    x, y = np.arange(24, dtype="float32").reshape(2, 3, 4), np.ones((2, 2, 4), "float32")
    got = session.run(out.copy_as_batch_major().placeholder,
                      make_feed(net, {"data": x, "data2": y}, {"data": [3, 3], "data2": [2, 2]}))
    assert got.shape == (2, 3, 2, 3)
    np.testing.assert_allclose(got, np.broadcast_to((x[..., :3] + y[:, :1, :3])[:, :, None], (2, 3, 2, 3)))

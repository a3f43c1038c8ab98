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


@pytest.mark.parametrize("optimize", [True, False])
@pytest.mark.parametrize("initial_output", [None, 1])
@pytest.mark.parametrize("axis", ["T", "loop-dim"])
def test_cumsum_over_the_loop_time_in_a_rec_unit(session, optimize, initial_output, axis):
    """Inside a rec unit, a cumsum over the loop's time sums the steps so far, starting at ``initial_output``; moved
    out of the loop, the same over the whole sequence (as the reference, observed: equal outputs)."""
    from returnn.config import Config
    from returnn.tensor import FeatureDim, SpatialDim, batch_dim
    from returnn.tf.network import TFNetwork

    time_dim, feat_dim = SpatialDim("time"), FeatureDim("feat", 3)
    layer = {"class": "cumsum", "from": "data:source", "axis": time_dim if axis == "loop-dim" else "T"}
    if initial_output is not None:
        layer["initial_output"] = initial_output
    net = TFNetwork(config=Config({"extern_data": {"data": {"dim_tags": [batch_dim, time_dim, feat_dim]}}}),
                    train_flag=True)
    net.construct_from_dict({"output": {"class": "rec", "from": "data", "unit": {"output": layer},
                                        "optimize_move_layers_out": optimize}})
    assert net.get_layer("output").cell.layers_in_loop == ([] if optimize else ["output"])
    out = net.get_layer("output").output.copy_as_batch_major()
    data = net.extern_data.data["data"]
    y = session.run(out.placeholder, {data.placeholder: X, data.size_placeholder[0]: [3, 3]})
    np.testing.assert_allclose(y, np.cumsum(X, axis=1) + (initial_output or 0))

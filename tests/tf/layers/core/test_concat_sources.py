"""Several sources ("from": [a, b]) concatenated on the feature axis: a source without some axis of another (e.g.
the time-reduced encoder mean next to a per-frame input) is broadcast over it, as the reference (observed)."""

import numpy as np
import pytest

import returnn.tf.layers  # noqa: F401
from returnn.errors import LayerShapeError
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


def test_sources_with_different_time_axes_rejected(session):
    with pytest.raises(LayerShapeError, match="different non-feature axes"):
        build_net({"output": {"class": "linear", "n_out": 3, "from": ["data", "data:data2"]}},
                  extern_data={"data": {"dim": 4}, "data2": {"dim": 4}})

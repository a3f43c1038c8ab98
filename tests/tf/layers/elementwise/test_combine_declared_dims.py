"""combine with two different dynamic time axes that its ``out_shape`` lists: both are kept (as the reference, which
matches dims by identity); reinterpret_data's new dims take the replaced axis' lengths; a dim a config computes from
its own dims (``ceildiv_right``) is the one the network's layers compute."""

import numpy as np
import tensorflow as tf

from returnn.tensor import FeatureDim, SpatialDim, batch_dim
from tf_net_helpers import build_net, make_feed


def test_combine_keeps_both_declared_time_axes_and_new_dim_lengths(session):
    time_dim, feat_dim, extra_dim = SpatialDim("time"), FeatureDim("feat", 2), SpatialDim("extra")
    half = extra_dim.ceildiv_right(2)  # computed outside of the graph, as a config does
    net = build_net({
        "new_dim": {"class": "reinterpret_data", "from": "data", "set_dim_tags": {time_dim: extra_dim}},
        "pool": {"class": "pool", "from": "new_dim", "mode": "max", "padding": "same", "pool_size": [2]},
        "output": {"class": "combine", "kind": "mul", "from": ["data", "pool"],
                   "out_shape": {batch_dim, time_dim, half, feat_dim}}},
        {"data": {"dim_tags": (batch_dim, time_dim, feat_dim)}})
    out = net.layers["output"].output
    assert len(out.dims) == 4
    x = np.arange(2 * 5 * 2, dtype="float32").reshape(2, 5, 2)
    feed = make_feed(net, {"data": x}, {"data": [5, 3]})
    new_lens, half_lens, res = session.run(
        [net.layers["new_dim"].output.dims[1].dyn_size, out.dims[2].dyn_size,
         out.copy_transpose([out.dims.index(d) for d in (net.layers["pool"].output.dims[0], out.dims[1], out.dims[2],
                                                          out.dims[3])]).placeholder], feed)
    assert new_lens.tolist() == [5, 3] and half_lens.tolist() == [3, 2]
    pooled = np.stack([x[:, 0:2].max(1), x[:, 2:4].max(1), x[:, 4:5].max(1)], 1)  # [B, 3, F]
    np.testing.assert_allclose(res, x[:, :, None, :] * pooled[:, None, :, :])

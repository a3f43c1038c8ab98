"""``rf.GroupNorm`` as the reference (observed: eps 1e-6, statistics per group over the group's channels only,
``num_groups``/``in_group_dim`` dims)."""

import numpy as np

import returnn.frontend as rf
from returnn.tensor import Dim, batch_dim

from tests.frontend._module_utils import make_params, param_shapes


def test_group_norm_vs_numpy(g):
    in_dim = Dim(8, name="in")
    gn = rf.GroupNorm(in_dim, num_groups=2)
    assert param_shapes(gn) == [("scale", [8]), ("bias", [8])]
    assert gn.eps == 1e-6 and gn.num_groups.dimension == 2 and gn.in_group_dim.dimension == 4
    p = make_params(g, gn)
    xv = np.random.RandomState(1).randn(2, 5, 8).astype("float32")
    t = g.time_dim([5, 3])
    y = gn(g.const("x", [batch_dim, t, in_dim], xv))
    assert y.dims == (batch_dim, t, in_dim)
    xg = xv.reshape(2, 5, 2, 4)
    ref = (xg - xg.mean(-1, keepdims=True)) / np.sqrt(xg.var(-1, keepdims=True) + 1e-6)
    np.testing.assert_allclose(g.run(y), ref.reshape(2, 5, 8) * p["scale"] + p["bias"], atol=1e-5)

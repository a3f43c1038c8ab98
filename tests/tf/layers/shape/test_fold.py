"""fold (overlap-add of windows): values, lengths and layout observed from the reference on windows
``x[b, t, w, f] = 1 + f + 2w + 6t + 18b`` (lengths 3, 2, 1; window 3; feature 0 shown)."""

import numpy as np
import pytest
import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import Dim, SpatialDim, Tensor, batch_dim
from returnn.tf.layers.basic import FoldLayer, InternalLayer
from tf_net_helpers import build_net

X = np.arange(1, 3 * 3 * 3 * 2 + 1).reshape(3, 3, 3, 2).astype("float32")


def _fold(net, **opts):
    in_dim, win_dim, feat_dim = SpatialDim("in_spatial"), Dim(3, name="win"), Dim(2, name="feat")
    src_out = Tensor(name="src", dims=[batch_dim, in_dim, win_dim, feat_dim], dtype="float32")
    src_out.placeholder = tf.constant(X)
    in_dim.dyn_size = tf.constant([3, 2, 1])
    src = InternalLayer(name="src", network=net, output=src_out)
    kwargs = dict(name="fold", network=net, sources=[src], in_spatial_dim=in_dim, window_dim=win_dim, **opts)
    layer = FoldLayer(output=FoldLayer.get_out_data_from_opts(**kwargs), **kwargs)
    return layer.output, feat_dim


@pytest.mark.parametrize("padding, mode, stride, expected, lens", [  # observed from the reference
    ("valid", "mean", 1, [[1, 5, 9, 13, 17], [19, 23, 25, 29, 0], [37, 39, 41, 0, 0]], [5, 4, 3]),
    ("valid", "sum", 1, [[1, 10, 27, 26, 17], [19, 46, 50, 29, 0], [37, 39, 41, 0, 0]], [5, 4, 3]),
    ("same", "mean", 1, [[5, 9, 13], [23, 25, 29], [39, 41, 0]], [3, 2, 1]),
    ("same", "sum", 1, [[10, 27, 26], [46, 50, 29], [39, 41, 0]], [3, 2, 1]),
    ("valid", "sum", 2, [[1, 3, 12, 9, 24, 15, 17], [19, 21, 48, 27, 29, 0, 0], [37, 39, 41, 0, 0, 0, 0]], [8, 6, 4]),
    ("same", "sum", 2, [[3, 12, 9, 24, 15, 17], [21, 48, 27, 29, 0, 0], [39, 41, 0, 0, 0, 0]], [6, 4, 2]),
])
def test_fold_like_reference(session, padding, mode, stride, expected, lens):
    net = build_net({}, {"data": {"dim": 2}})
    out, feat_dim = _fold(net, mode=mode, padding=padding, stride=stride)
    out_dim = out.dims[0]
    assert out.dims[1:] == (batch_dim, feat_dim)  # the new axis first, then the others in order
    bm = out.copy_transpose([1, 0, 2])
    y, got_lens = session.run([bm.placeholder, out_dim.dyn_size])
    np.testing.assert_allclose(y[..., 0], expected)
    assert got_lens.tolist() == lens


def test_fold_out_spatial_dim_and_bad_mode(session):
    net = build_net({}, {"data": {"dim": 2}})
    out_dim = SpatialDim("out_spatial")
    out, _ = _fold(net, mode="mean", padding="valid", out_spatial_dim=out_dim)
    assert out.dims[0] is out_dim
    with pytest.raises(LayerArgError) as info:
        _fold(net, mode="max", padding="valid")
    assert info.value.arg == "mode"


def test_fold_undoes_window(session):
    net = build_net({"w": {"class": "window", "window_size": 3, "from": "data"},
                     "output": {"class": "fold", "mode": "mean", "in_spatial_dim": "T", "window_dim": "stag:w:window",
                                "from": "w"}}, {"data": {"dim": 2}})
    data = net.extern_data.get_data("data")
    out = net.layers["output"].output.copy_as_batch_major()
    x = np.random.RandomState(1).randn(2, 5, 2).astype("float32")
    y = session.run(out.placeholder, {data.placeholder: x, data.size_placeholder[0]: [5, 5]})
    np.testing.assert_allclose(y, x, rtol=1e-5)

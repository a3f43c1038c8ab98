"""reduce: padded frames never contribute (numpy reference on a padded batch), batch- and time-major."""

import numpy as np
import pytest

from returnn.errors import AxisDescriptionError, LayerArgError
from tf_net_helpers import build_net, forward_and_grad_step, make_feed

RND = np.random.RandomState(3)
X = RND.randn(3, 5, 4).astype("float32")
LENS = [5, 2, 4]
MASK = (np.arange(5)[None, :] < np.array(LENS)[:, None])[:, :, None]


@pytest.mark.parametrize("time_major", [False, True])
@pytest.mark.parametrize("mode, expected", [
    ("sum", lambda: np.where(MASK, X, 0).sum(1)),
    ("mean", lambda: np.where(MASK, X, 0).sum(1) / np.array(LENS)[:, None]),
    ("avg", lambda: np.where(MASK, X, 0).sum(1) / np.array(LENS)[:, None]),  # the reference's alias of "mean"
    ("max", lambda: np.where(MASK, X, -np.inf).max(1)),
    ("min", lambda: np.where(MASK, X, np.inf).min(1)),
    ("logsumexp", lambda: np.log(np.where(MASK, np.exp(X), 0).sum(1))),
])
def test_reduce_over_time_masks_padding(session, mode, expected, time_major):
    net = build_net({"output": {"class": "reduce", "mode": mode, "axes": "T", "from": "data"}},
                    {"data": {"dim": 4, **({"batch_dim_axis": 1} if time_major else {})}})
    x = X.transpose(1, 0, 2) if time_major else X
    out = forward_and_grad_step(session, net, make_feed(net, {"data": x}, {"data": LENS}))
    assert net.layers["output"].output.batch_shape == (None, 4)
    np.testing.assert_allclose(out, expected(), rtol=1e-5)


def test_reduce_feature_keep_dims_and_argmax(session):
    net = build_net({"s": {"class": "reduce", "mode": "mean", "axis": "F", "keep_dims": True, "from": "data"},
                     "output": {"class": "reduce", "mode": "argmax", "axis": "F", "from": "data"}},
                    {"data": {"dim": 4}})
    out, (s,) = forward_and_grad_step(session, net, make_feed(net, {"data": X}, {"data": LENS}), extra=["s"])
    np.testing.assert_allclose(s, X.mean(-1, keepdims=True), rtol=1e-5)
    np.testing.assert_array_equal(out, X.argmax(-1))
    assert net.layers["output"].output.sparse and net.layers["output"].output.dim == 4


def test_reduce_bad_mode_and_axis(session):
    with pytest.raises(LayerArgError) as info:
        build_net({"output": {"class": "reduce", "mode": "average", "axes": "T", "from": "data"}}, {"data": {"dim": 4}})
    assert info.value.arg == "mode"
    with pytest.raises(AxisDescriptionError) as info2:
        build_net({"output": {"class": "reduce", "mode": "sum", "axes": "S:3", "from": "data"}}, {"data": {"dim": 4}})
    assert info2.value.layer == "output" and "'output'" in str(info2.value)


@pytest.mark.parametrize("axes, expected", [("bt", [5.0, 6.0]), (["B", "T", "F"], 5.5)])
def test_reduce_mean_over_batch_and_time_like_reference(session, axes, expected):
    """The mean over all valid frames of the batch (observed from the reference: [5, 6] for frames 0..5 of a
    sequence of length 4 and 2 more frames of a sequence of length 2, the padded frames 100)."""
    net = build_net({"output": {"class": "reduce", "mode": "mean", "axes": axes, "from": "data"}}, {"data": {"dim": 2}})
    x = np.arange(16).reshape(2, 4, 2).astype("float32")
    x[1, 2:] = 100
    out = session.run(net.layers["output"].output.placeholder, make_feed(net, {"data": x}, {"data": [4, 2]}))
    np.testing.assert_allclose(out, expected)


@pytest.mark.parametrize("extern, axes, expected", [  # observed from the reference
    ({"dim": 5}, "T", "[B,T|'output:keep-dim-1'(1),F|F'feature:data'(5)]"),
    ({"dim": 5}, ["T", "F"], "[B,T|'output:keep-dim-1'(1),F|F'output:keep-dim-2'(1)]"),
    ({"dim": 5, "time_dim_axis": 0, "batch_dim_axis": 1}, "T", "[T|'output:keep-dim-0'(1),B,F|F'feature:data'(5)]"),
    ({"dim": 5}, "B", "[B,T|'time:var:extern_data:data'[B],F|F'feature:data'(5)]"),
    ({"shape": (None, 4, 5)}, "spatial",
     "[B,T|'output:keep-dim-1'(1),'output:keep-dim-2'(1),F|F'feature:data'(5)]"),
])
def test_reduce_keep_dims_template(session, extern, axes, expected):
    net = build_net({"output": {"class": "reduce", "mode": "mean", "axes": axes, "keep_dims": True, "from": "data"}},
                    {"data": extern})
    assert net.layers["output"].output.get_dims_repr() == expected

"""reduce_out: groups of num_pieces consecutive features reduced (numpy reference); dims as the reference."""

import numpy as np
import pytest

from returnn.errors import LayerArgError, LayerShapeError
from returnn.tensor import FeatureDim
from tf_net_helpers import build_net, make_feed

X = np.random.RandomState(1).randn(2, 3, 6).astype("float32")


@pytest.mark.parametrize("mode, num_pieces, fn", [("max", 2, np.max), ("sum", 3, np.sum), ("mean", 2, np.mean)])
def test_reduce_out_numpy(session, mode, num_pieces, fn):
    net = build_net({"output": {"class": "reduce_out", "mode": mode, "num_pieces": num_pieces, "from": "data"}},
                    {"data": {"dim": 6}})
    out = net.get_layer("output").output
    # observed from the reference
    assert repr(out) == ("Tensor{'output_output', [B,T|'time:var:extern_data:data'[B],"
                         f"F|F'feature:data//{num_pieces}'({6 // num_pieces})]}}")
    y = session.run(out.placeholder, feed_dict=make_feed(net, {"data": X}, {"data": [3, 2]}))
    np.testing.assert_allclose(y, fn(X.reshape(2, 3, 6 // num_pieces, num_pieces), axis=-1), rtol=1e-6)


def test_reduce_out_same_dim_and_out_dim(session):
    out_dim = FeatureDim("myout", 3)
    net = build_net({"a": {"class": "reduce_out", "mode": "max", "num_pieces": 2, "from": "data", "out_dim": out_dim},
                     "b": {"class": "reduce_out", "mode": "sum", "num_pieces": 2, "from": "data"},
                     "output": {"class": "combine", "kind": "add", "from": ["a", "b"]}},
                    {"data": {"dim": 6}})
    assert net.get_layer("a").output.feature_dim is net.get_layer("b").output.feature_dim
    assert net.get_layer("a").output.feature_dim == out_dim
    y = session.run(net.get_layer("output").output.placeholder,
                    feed_dict=make_feed(net, {"data": X}, {"data": [3, 3]}))
    x = X.reshape(2, 3, 3, 2)
    np.testing.assert_allclose(y, x.max(-1) + x.sum(-1), rtol=1e-6)


def test_reduce_out_errors(session):
    with pytest.raises(LayerArgError) as info:
        build_net({"output": {"class": "reduce_out", "mode": "min", "num_pieces": 2, "from": "data"}},
                  {"data": {"dim": 6}})
    assert info.value.arg == "mode"
    with pytest.raises(LayerShapeError, match="not divisible"):
        build_net({"output": {"class": "reduce_out", "mode": "max", "num_pieces": 4, "from": "data"}},
                  {"data": {"dim": 6}})

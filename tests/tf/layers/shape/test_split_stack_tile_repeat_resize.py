"""split, stack, tile, repeat, resize: numpy references; dims as observed from the reference."""

import numpy as np
import pytest

from returnn.errors import LayerShapeError
from returnn.tensor import FeatureDim
from tf_net_helpers import build_net, make_feed

X = np.arange(2 * 3 * 6, dtype="float32").reshape(2, 3, 6)
LENS = [3, 2]


def run(session, net, names):
    return session.run([net.get_layer(n).output.placeholder for n in names],
                       feed_dict=make_feed(net, {"data": X}, {"data": LENS}))


def test_split(session):
    fb = FeatureDim("fb", 4)
    net = build_net({"sp": {"class": "split", "from": "data", "size_splits": (2, 4)},
                     "sp2": {"class": "split", "from": "data", "out_dims": [FeatureDim("fa", 2), fb]},
                     "a": {"class": "copy", "from": "sp/0", "is_output_layer": True},
                     "b": {"class": "copy", "from": "sp/1", "is_output_layer": True},
                     "c": {"class": "copy", "from": "sp2/1", "is_output_layer": True}}, {"data": {"dim": 6}})
    assert net.get_layer("a").output.feature_dim.description == "sp_split0"  # as the reference
    assert net.get_layer("c").output.feature_dim is fb
    a, b = run(session, net, "ab")
    np.testing.assert_array_equal(a, X[..., :2])
    np.testing.assert_array_equal(b, X[..., 2:])
    with pytest.raises(LayerShapeError, match="add up"):
        build_net({"output": {"class": "split", "from": "data", "size_splits": (2, 3)}}, {"data": {"dim": 6}})


def test_stack_tile(session):
    net = build_net({"st": {"class": "stack", "from": ["data", "data"], "is_output_layer": True},
                     "st1": {"class": "stack", "from": ["data", "data"], "axis": 1, "is_output_layer": True},
                     "ti": {"class": "tile", "from": "data", "multiples": {"F": 2}, "is_output_layer": True}},
                    {"data": {"dim": 6}})
    assert repr(net.get_layer("st").output) == \
        "Tensor{'st_output', [B,T|'time:var:extern_data:data'[B],'st:stack'(2),F|F'feature:data'(6)]}"
    assert repr(net.get_layer("ti").output) == \
        "Tensor{'ti_output', [B,T|'time:var:extern_data:data'[B],F|F'2*feature:data'(12)]}"
    st, st1, ti = run(session, net, ["st", "st1", "ti"])
    np.testing.assert_array_equal(st, np.stack([X, X], axis=2))
    np.testing.assert_array_equal(st1, np.stack([X, X], axis=1))
    np.testing.assert_array_equal(ti, np.tile(X, (1, 1, 2)))
    with pytest.raises(LayerShapeError, match="dynamic"):
        build_net({"output": {"class": "tile", "from": "data", "multiples": {"T": 2}}}, {"data": {"dim": 6}})


def test_repeat_resize(session):
    net = build_net({"rp": {"class": "repeat", "from": "data", "repetitions": 2, "axis": "T", "is_output_layer": True},
                     "rpf": {"class": "repeat", "from": "data", "repetitions": 2, "axis": "F", "is_output_layer": True},
                     "nn": {"class": "resize", "from": "data", "factor": 2, "axis": "T", "is_output_layer": True},
                     "lin": {"class": "resize", "from": "data", "factor": 2, "axis": "T", "kind": "linear",
                             "is_output_layer": True},
                     "fill": {"class": "resize", "from": "data", "factor": 2, "axis": "T", "kind": "fill",
                              "fill_value": 0.5, "is_output_layer": True}}, {"data": {"dim": 6}})
    assert repr(net.get_layer("rpf").output) == \
        "Tensor{'rpf_output', [B,F|F'feature:data*2'(12),T|'time:var:extern_data:data'[B]]}"  # as the reference
    rp, rpf, nn, lin, fill = run(session, net, ["rp", "rpf", "nn", "lin", "fill"])
    expected = np.repeat(X, 2, axis=1)
    expected[1, 4:] = 0  # past the new length 2*2
    np.testing.assert_array_equal(rp, expected)
    np.testing.assert_array_equal(rpf, np.repeat(X, 2, axis=2).transpose(0, 2, 1))
    np.testing.assert_array_equal(nn, np.repeat(X, 2, axis=1))
    pos = np.arange(6) / 2
    lower, upper = np.floor(pos).astype(int), np.minimum(np.floor(pos).astype(int) + 1, 2)
    w = (pos - lower)[None, :, None]
    np.testing.assert_allclose(lin, X[:, lower] * (1 - w) + X[:, upper] * w, rtol=1e-6)
    np.testing.assert_array_equal(fill[:, ::2], X)
    assert (fill[:, 1::2] == 0.5).all()

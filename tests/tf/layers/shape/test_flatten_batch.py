"""flatten_batch / unflatten_batch / split_batch_time: packing order and dims as observed from the reference."""

import numpy as np
import pytest

from returnn.errors import LayerShapeError
from tf_net_helpers import build_net, make_feed

X = np.arange(2 * 3 * 2, dtype="float32").reshape(2, 3, 2) + 1


def test_flatten_unflatten(session):
    net = build_net({"fb": {"class": "flatten_batch", "from": "data", "is_output_layer": True},
                     "fb2": {"class": "flatten_batch", "from": "data", "batch_major": False, "is_output_layer": True},
                     "ufb": {"class": "unflatten_batch", "from": "fb", "is_output_layer": True},
                     "ufb2": {"class": "unflatten_batch", "from": "fb2", "is_output_layer": True}},
                    {"data": {"dim": 2}})
    # observed from the reference
    assert repr(net.get_layer("fb").output) == \
        "Tensor{'fb_output', [B&Packed{'time:var:extern_data:data'},F|F'feature:data'(2)]}"
    assert repr(net.get_layer("fb2").output) == \
        "Tensor{'fb2_output', [Packed{'time:var:extern_data:data'}&B,F|F'feature:data'(2)]}"
    assert repr(net.get_layer("ufb2").output) == \
        "Tensor{'ufb2_output', [T|'time:var:extern_data:data'[B],B,F|F'feature:data'(2)]}"
    fb, fb2, ufb, ufb2 = session.run([net.get_layer(n).output.placeholder for n in ("fb", "fb2", "ufb", "ufb2")],
                                     feed_dict=make_feed(net, {"data": X}, {"data": [3, 2]}))
    np.testing.assert_array_equal(fb, [X[0, 0], X[0, 1], X[0, 2], X[1, 0], X[1, 1]])
    np.testing.assert_array_equal(fb2, [X[0, 0], X[1, 0], X[0, 1], X[1, 1], X[0, 2]])
    padded = X.copy()
    padded[1, 2] = 0
    np.testing.assert_array_equal(ufb, padded)
    np.testing.assert_array_equal(ufb2, padded.transpose(1, 0, 2))


def test_split_batch_time(session):
    net = build_net({"fb": {"class": "flatten_batch", "from": "data"},
                     "output": {"class": "split_batch_time", "base": "data", "from": "fb"}}, {"data": {"dim": 2}})
    out = net.get_layer("output").output
    assert repr(out) == "Tensor{'output_output', [B,T|'time:var:extern_data:data'[B],F|F'feature:data'(2)]}"
    y = session.run(out.placeholder, feed_dict=make_feed(net, {"data": X}, {"data": [3, 3]}))  # full: packed = padded
    np.testing.assert_array_equal(y, X)


def test_unflatten_needs_flat_batch(session):
    with pytest.raises(LayerShapeError, match="flatten_batch"):
        build_net({"output": {"class": "unflatten_batch", "from": "data"}}, {"data": {"dim": 2}})


@pytest.mark.parametrize("batch_major", [True, False])
def test_flatten_batch_info(session, batch_major):
    from returnn.tensor import BatchInfo, batch_dim
    net = build_net({"fb": {"class": "flatten_batch", "from": "data", "batch_major": batch_major},
                     "n": {"class": "length", "from": "fb", "axis": batch_dim, "is_output_layer": True}},
                    {"data": {"dim": 2}})
    data, out = net.extern_data.data["data"], net.get_layer("fb").output
    # as the reference: the packed dim of the time axis joins the batch info (first if time-major)
    packed, global_batch = out.batch.virtual_dims if not batch_major else out.batch.virtual_dims[::-1]
    assert isinstance(packed, BatchInfo.PackedDim) and isinstance(global_batch, BatchInfo.GlobalBatchDim)
    assert packed.sizes is data.size_placeholder[0]
    n = session.run(net.get_layer("n").output.placeholder, feed_dict=make_feed(net, {"data": X}, {"data": [3, 2]}))
    assert n == 5  # the batch dim names the packed batch axis: its length is the number of frames

"""sparse_softmax_cross_entropy_with_logits and edit_distance layers against numpy references."""

import numpy as np
import pytest
import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import SpatialDim
from returnn.util.edit_distance import edit_distance_counts
from tf_net_helpers import build_net, make_feed

TIME = SpatialDim("time")


def test_sparse_softmax_ce_batch_and_time_major(session):
    rnd = np.random.RandomState(2)
    logits = rnd.randn(2, 3, 4).astype("float32")
    y = np.array([[3, 0, 1], [1, 1, 2]], "int32")
    extern = {"data": {"dim": 4, "same_dim_tags_as": {"t": TIME}},
              "tm": {"dim": 4, "time_dim_axis": 0, "batch_dim_axis": 1, "same_dim_tags_as": {"t": TIME}},
              "classes": {"dim": 4, "sparse": True, "same_dim_tags_as": {"t": TIME}}}
    net = build_net({"output": {"class": "sparse_softmax_cross_entropy_with_logits", "logits": "data",
                                "targets": "data:classes"},
                     "tm_out": {"class": "sparse_softmax_cross_entropy_with_logits", "logits": "data:tm",
                                "targets": "data:classes", "is_output_layer": True}}, extern, train_flag=False)
    feed = make_feed(net, {"data": logits, "tm": logits.transpose(1, 0, 2), "classes": y},
                     {"data": [3, 2], "tm": [3, 2], "classes": [3, 2]})
    out, tm = session.run([net.get_layer(n).output.placeholder for n in ("output", "tm_out")], feed)
    lp = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    expected = -np.take_along_axis(lp, y[..., None], -1)[..., 0]
    np.testing.assert_allclose(out, expected, rtol=1e-5)
    np.testing.assert_allclose(tm, expected.T, rtol=1e-5)  # the logits' layout
    assert net.get_layer("tm_out").output.time_dim_axis == 0


def test_sparse_softmax_ce_other_time_axis_rejected(session):
    """The targets must have the logits' time dim (the reference fails on this too)."""
    with pytest.raises(LayerArgError) as info:
        build_net({"output": {"class": "sparse_softmax_cross_entropy_with_logits", "logits": "data",
                              "targets": "data:classes"}}, {"data": {"dim": 4}, "classes": {"dim": 4, "sparse": True}})
    assert info.value.arg == "targets"


def test_edit_distance_layer(session):
    a = np.array([[1, 2, 3, 0, 0], [3, 3, 1, 2, 2]], "int32")
    b = np.array([[1, 3, 3, 0], [2, 1, 0, 3]], "int32")
    a_lens, b_lens = [3, 5], [4, 1]
    extern = {"a": {"dim": 4, "sparse": True}, "b": {"dim": 4, "sparse": True}}
    net = build_net({"output": {"class": "edit_distance", "a": "data:a", "b": "data:b"}}, extern, train_flag=False)
    out = session.run(net.get_layer("output").output.placeholder,
                      make_feed(net, {"a": a, "b": b}, {"a": a_lens, "b": b_lens}))
    expected = [edit_distance_counts(list(a[i, :a_lens[i]]), list(b[i, :b_lens[i]])).errors for i in range(2)]
    assert out.dtype == np.int32 and list(out) == expected == [2, 4]

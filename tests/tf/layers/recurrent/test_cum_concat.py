"""Tests of ``cum_concat``: the history of a frame inside a rec loop (values observed from the reference and numpy),
a self-attention step over it (in the loop and with move-out allowed), and the errors the reference gives too."""

import numpy as np
import pytest
import tensorflow as tf

from tf_net_helpers import build_net, make_feed

from returnn.errors import LayerArgError
from returnn.tf.util.data import SpatialDim

tf.compat.v1.disable_eager_execution()


def _self_attention_loop(hist, move_out):
    return {"output": {"class": "rec", "from": "data", "optimize_move_layers_out": move_out, "unit": {
        "q": {"class": "linear", "from": "data:source", "n_out": 2, "activation": None},
        "k": {"class": "linear", "from": "data:source", "n_out": 2, "activation": None},
        "k_acc": {"class": "cum_concat", "from": "k", "out_spatial_dim": hist},
        "v_acc": {"class": "cum_concat", "from": "q", "out_spatial_dim": hist},
        "prod": {"class": "combine", "kind": "mul", "from": ["k_acc", "q"]},
        "energy": {"class": "reduce", "mode": "sum", "axis": "F", "from": "prod"},
        "w": {"class": "softmax_over_spatial", "from": "energy", "axis": hist},
        "wv": {"class": "combine", "kind": "mul", "from": ["w", "v_acc"]},
        "att": {"class": "reduce", "mode": "sum", "axis": hist, "from": "wv"},
        "output": {"class": "copy", "from": "att"}}}}


@pytest.mark.parametrize("move_out", [False, True])
def test_self_attention_over_history(session, move_out):
    hist = SpatialDim("hist")
    net = build_net(_self_attention_loop(hist, move_out), train_flag=False)
    acc = net.get_layer("output").cell.layers["k_acc"].output
    assert acc.dims[1] is hist and acc.time_dim_axis == 1  # {B, hist, F}, as the reference
    cell = net.get_layer("output").cell
    layers = {"k_acc", "v_acc", "prod", "energy", "w", "wv", "att"}
    if move_out:  # as the reference (observed): all moved out, the history's lengths per loop frame
        assert cell.layers_in_loop == [] and layers <= set(cell.output_layers_moved_out)
    else:
        assert layers <= cell.loop
    session.run(tf.compat.v1.global_variables_initializer())
    params = {p.name[:-2]: session.run(p) for p in net.get_params_list()}
    rng = np.random.RandomState(3)
    x = rng.randn(2, 4, 3).astype("float32")
    lens = np.array([4, 2], "int32")
    y = session.run(net.get_layer("output").output.copy_as_batch_major().placeholder,
                    feed_dict=make_feed(net, {"data": x}, {"data": lens}))
    q = x @ params["output/rec/q/W"] + params["output/rec/q/b"]
    k = x @ params["output/rec/k/W"] + params["output/rec/k/b"]
    for b in range(2):
        for t in range(lens[b]):
            energy = k[b, :t + 1] @ q[b, t]
            w = np.exp(energy - energy.max())
            w /= w.sum()
            np.testing.assert_allclose(y[b, t], w @ q[b, :t + 1], atol=1e-5)


def test_cumulative_sum_as_reference(session):
    """Observed from the reference: the sum over the history is the cumulative sum of the frames."""
    hist = SpatialDim("hist")
    net = build_net({"output": {"class": "rec", "from": "data", "unit": {
        "l": {"class": "linear", "from": "data:source", "n_out": 2, "activation": None},
        "acc": {"class": "cum_concat", "from": "l", "out_spatial_dim": hist},
        "red": {"class": "reduce", "mode": "sum", "axis": hist, "from": "acc"},
        "output": {"class": "copy", "from": "red"}}}}, train_flag=False)
    session.run(tf.compat.v1.global_variables_initializer())
    w, b = [session.run(p) for p in sorted(net.get_params_list(), key=lambda p: p.name)]  # W, b
    x = np.random.RandomState(1).randn(2, 4, 3).astype("float32")
    y = session.run(net.get_layer("output").output.copy_as_batch_major().placeholder,
                    feed_dict=make_feed(net, {"data": x}, {"data": [4, 4]}))
    np.testing.assert_allclose(y, np.cumsum(x @ w + b, axis=1), atol=1e-5)


def test_outside_rec_layer_is_an_error_as_in_reference(session):
    with pytest.raises(LayerArgError, match="inside a rec layer"):
        build_net({"output": {"class": "cum_concat", "from": "data", "out_spatial_dim": SpatialDim("h")}})


def test_out_spatial_dim_required_as_in_reference(session):
    with pytest.raises(LayerArgError, match="out_spatial_dim"):
        build_net({"output": {"class": "rec", "from": "data", "unit": {
            "acc": {"class": "cum_concat", "from": "data:source"},
            "output": {"class": "reduce", "mode": "sum", "axis": "stag:rec-history", "from": "acc"}}}})

"""``rec_unstack`` (a whole sequence's frame at each step of a rec loop) and ``rec_last_output`` (a unit layer's last
frame per sequence), against numpy and the values observed from the reference."""

import numpy as np
import pytest
import tensorflow as tf

from tf_net_helpers import build_net, make_feed

from returnn.errors import LayerArgError

tf.compat.v1.disable_eager_execution()


def _x():
    return np.random.RandomState(1).randn(2, 4, 3).astype("float32"), np.array([4, 2], "int32")


@pytest.mark.parametrize("variant", ["moved_out", "in_loop", "declare_rec_time"])
def test_rec_unstack_cumulative_sum(session, variant):
    unit = {"u": {"class": "rec_unstack", "from": "base:lin"},
            "a": {"class": "combine", "kind": "add", "from": ["u", "prev:a"]},
            "output": {"class": "copy", "from": "a"}}
    rec = {"class": "rec", "from": "data", "unit": unit}
    if variant == "in_loop":
        rec["optimize_move_layers_out"] = False
    if variant == "declare_rec_time":
        rec["from"] = []
        unit["u"].update({"axis": "T", "declare_rec_time": True})
    net = build_net({"lin": {"class": "linear", "from": "data", "n_out": 2, "activation": None}, "output": rec},
                    train_flag=False)
    cell = net.get_layer("output").cell
    assert ("u" in cell.inputs) == (variant != "in_loop")  # moved out, as the reference always does
    session.run(tf.compat.v1.global_variables_initializer())
    x, lens = _x()
    feed = make_feed(net, {"data": x}, {"data": lens})
    y, lin = session.run([net.get_layer("output").output.copy_as_batch_major().placeholder,
                          net.get_layer("lin").output.copy_as_batch_major().placeholder], feed_dict=feed)
    for b in range(2):
        np.testing.assert_allclose(y[b, :lens[b]], np.cumsum(lin[b, :lens[b]], axis=0), atol=1e-5)


def test_rec_unstack_outside_rec_is_an_error(session):
    with pytest.raises(LayerArgError, match="inside a rec layer"):
        build_net({"output": {"class": "rec_unstack", "from": "data"}})


def _last_output_net(need_last=True):
    a = {"class": "linear", "from": ["data:source", "prev:a"], "n_out": 2, "activation": "tanh"}
    if need_last:
        a["need_last"] = True
    return {"output0": {"class": "rec", "from": "data", "unit": {"a": a, "output": {"class": "copy", "from": "a"}}},
            "output": {"class": "rec_last_output", "rec_layer": "output0", "sub_layer_name": "a"}}


def test_rec_last_output_is_the_last_real_frame(session):
    net = build_net(_last_output_net(), train_flag=False)
    out = net.get_layer("output").output
    assert out.batch_ndim == 2 and out.batch_dim_axis == 0 and out.dim == 2
    session.run(tf.compat.v1.global_variables_initializer())
    x, lens = _x()
    feed = make_feed(net, {"data": x}, {"data": lens})
    last, full = session.run([out.placeholder, net.get_layer("output0").output.copy_as_batch_major().placeholder],
                             feed_dict=feed)
    np.testing.assert_allclose(last, full[[0, 1], lens - 1], atol=1e-6)


def test_rec_last_output_needs_need_last_as_in_reference(session):
    with pytest.raises(LayerArgError, match="need_last"):
        build_net(_last_output_net(need_last=False))

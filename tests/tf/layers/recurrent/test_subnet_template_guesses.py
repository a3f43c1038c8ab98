"""Templates of a rec unit's ``prev:`` cycles: a layer's ``out_shape`` gives the first guess of its ``prev:``
template (a scalar counter, no feature axis), a guess that does not fit the layer's other inputs is left out in the
first pass (the template comes from those), and an error of a layer outside the loop is raised as it is."""

import numpy as np
import pytest
import tensorflow as tf

from returnn.tensor import Dim, batch_dim
from returnn.util.behavior_version import BehaviorVersion
from tf_net_helpers import build_net, make_feed

tf.compat.v1.disable_eager_execution()


@pytest.fixture(autouse=True)
def _latest_behavior_version():
    """As the reference's tests: the latest behavior version (a combine of {B, F=1} and {B, F=5} is an error)."""
    BehaviorVersion._reset()
    BehaviorVersion.set(BehaviorVersion._latest_behavior_version)
    yield
    BehaviorVersion._reset()


@pytest.mark.parametrize("mean_in_unit", [False, True])
def test_scalar_counter_with_out_shape(session, mean_in_unit):
    """``mean_in_unit``: the mean is a layer of the unit that does not depend on the loop (moved out of it, without
    the loop's time axis, its out_shape still holds)."""
    time_dim, feat_dim = Dim(None, name="time"), Dim(4, name="feat")
    unit = {
        "one": {"class": "constant", "value": 1.0},
        "i": {"class": "combine", "from": ["prev:i", "one"], "kind": "add", "out_shape": {}},
        "limit": {"class": "constant", "value": 3.0, "shape": [batch_dim]},
        "end": {"class": "compare", "from": ["i", "limit"], "kind": "greater_equal", "out_shape": {batch_dim}},
        "output": {"class": "combine", "from": ["i", "mean" if mean_in_unit else "base:mean"], "kind": "mul",
                   "out_shape": {batch_dim, feat_dim}},
    }
    mean = {"class": "reduce", "mode": "mean", "axis": time_dim, "from": "data", "out_shape": {batch_dim, feat_dim}}
    if mean_in_unit:
        unit["mean"] = dict(mean, **{"from": "base:data"})
    net = build_net({"mean": mean,
                     "output": {"class": "rec", "from": [], "unit": unit, "max_seq_len": 10, "include_eos": True}},
                    extern_data={"data": {"dim_tags": (batch_dim, time_dim, feat_dim)}}, train_flag=False)
    assert net.get_layer("output").cell.layers["i"].output.batch_shape == ()
    x = np.arange(2 * 5 * 4, dtype="float32").reshape(2, 5, 4)
    out = net.get_layer("output").output.copy_as_batch_major()
    y, lens = session.run((out.placeholder, out.get_sequence_lengths()),
                          feed_dict=make_feed(net, {"data": x}, {"data": [5, 2]}))
    np.testing.assert_array_equal(lens, [3, 3])  # i = 1, 2, 3: ends at i >= 3, counted (include_eos)
    mean = np.stack([x[0].mean(axis=0), x[1, :2].mean(axis=0)])
    np.testing.assert_allclose(y, mean[:, None, :] * np.array([1.0, 2.0, 3.0])[None, :, None], rtol=1e-6)


def test_prev_guess_left_out_of_sum_with_unstacked_frame(session):
    time_dim = Dim(None, name="time")
    net = build_net({"output": {"class": "rec", "from": [], "axis": time_dim, "unit": {
        "input": {"class": "rec_unstack", "from": "base:data:data"},
        "output": {"class": "combine", "kind": "add", "from": ["prev:output", "input"]}}}},
        extern_data={"data": {"dim": 5, "same_dim_tags_as": {"T": time_dim}}}, train_flag=False)
    cell = net.get_layer("output").cell
    assert cell.layers["output"].output.dim == 5
    assert cell.input_layers_moved_out == ["input"] and cell.layers_in_loop == ["output"]
    x = np.random.RandomState(3).uniform(-1, 1, size=(2, 4, 5)).astype("float32")
    out = net.get_layer("output").output.copy_as_batch_major()
    y = session.run(out.placeholder, feed_dict=make_feed(net, {"data": x}, {"data": [4, 4]}))
    np.testing.assert_allclose(y, np.cumsum(x, axis=1), rtol=1e-5, atol=1e-6)


class _EncoderError(Exception):
    pass


def test_error_of_base_layer_is_raised_as_it_is():
    calls = []

    def enc(source, **_kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise _EncoderError("first call fails")
        return source(0)

    net_dict = {
        "encoder": {"class": "eval", "from": "data", "eval": enc},
        "enc_mean": {"class": "reduce", "mode": "mean", "axis": "T", "from": "encoder"},
        "output": {"class": "rec", "from": [], "target": "classes", "unit": {
            "embed": {"class": "linear", "from": "prev:output", "n_out": 3},
            "prob": {"class": "softmax", "from": ["embed", "base:enc_mean"], "loss": "ce", "target": "classes"},
            "output": {"class": "choice", "beam_size": 2, "from": "prob", "target": "classes", "initial_output": 0},
            "end": {"class": "compare", "from": "output", "value": 0}}}}
    with tf.Graph().as_default():
        with pytest.raises(_EncoderError):
            build_net(net_dict)
    assert len(calls) == 1  # not retried as a template that does not fit yet


def test_max_seq_len_via_layer(session):
    loop_dim = Dim(None, name="loop")
    unit = {
        "i": {"class": "eval", "from": "prev:i", "eval": "source(0) + 1.0", "initial_output": "base:zeros",
              "out_shape": {batch_dim}},
        "end": {"class": "compare", "from": "i", "kind": "greater_equal", "value": 100.0, "out_shape": {batch_dim}},
        "output": {"class": "copy", "from": "i", "out_shape": {batch_dim}},
    }
    net = build_net({"n": {"class": "constant", "value": 4},
                     "zeros": {"class": "constant", "value": 0.0, "shape": [batch_dim]},
                     "output": {"class": "rec", "from": [], "unit": unit, "max_seq_len_via": "n", "axis": loop_dim}},
                    extern_data={"data": {"dim": 2}}, train_flag=False)
    out = net.get_layer("output").output.copy_as_batch_major()
    y, lens = session.run((out.placeholder, out.get_sequence_lengths()),
                          feed_dict=make_feed(net, {"data": np.zeros((3, 2, 2), "float32")}, {"data": [2, 2, 1]}))
    np.testing.assert_array_equal(lens, [4, 4, 4])
    np.testing.assert_array_equal(y, np.tile([1.0, 2.0, 3.0, 4.0], (3, 1)))


def test_first_pass_template_from_the_known_sources(session):
    """As the reference (observed): "add" from ["data:source", "prev:add"] over an int32 range without batch axis
    is an int32 scalar per frame (the template of the frame, prev:add left out in the first pass)."""
    net = build_net({"len": {"class": "length", "from": "data"},
                     "max_len": {"class": "reduce", "from": "len", "mode": "max", "axis": "B", "out_shape": ()},
                     "range": {"class": "range_from_length", "from": "max_len"},
                     "output": {"class": "rec", "from": "range", "unit": {
                         "add": {"class": "combine", "kind": "add", "from": ["data:source", "prev:add"]},
                         "output": {"class": "copy", "from": "add"}}}},
                    extern_data={"data": {"dim": 3}}, train_flag=False)
    add = net.get_layer("output").cell.layers["add"].output
    assert add.batch_shape == () and add.dtype == "int32"
    y = session.run(net.get_layer("output").output.placeholder,
                    feed_dict=make_feed(net, {"data": np.zeros((2, 5, 3), "float32")}, {"data": [5, 3]}))
    np.testing.assert_array_equal(y, np.cumsum(np.arange(5)))


def test_last_output_of_step_counter_without_batch(session):
    time_dim, loop_dim = Dim(None, name="time"), Dim(None, name="loop")
    unit = {
        "one": {"class": "constant", "value": 1, "shape": (), "dtype": "int32"},
        "i": {"class": "combine", "from": ["one", "prev:i"], "kind": "add", "initial_output": 0, "need_last": True,
              "out_shape": set()},
        "max_time": {"class": "reduce", "from": "base:time", "mode": "max", "axis": (batch_dim,), "out_shape": set()},
        "end": {"class": "compare", "from": ["i", "max_time"], "kind": "greater_equal", "out_shape": set()},
        "output": {"class": "copy", "from": "end", "out_shape": set()},
    }
    net = build_net({"time": {"class": "length", "from": "data", "axis": time_dim, "dtype": "int32"},
                     "loop": {"class": "rec", "from": [], "unit": unit, "axis": loop_dim, "include_eos": True,
                              "max_seq_len": 100},
                     "output": {"class": "rec_last_output", "rec_layer": "loop", "sub_layer_name": "i"}},
                    extern_data={"data": {"dim_tags": (batch_dim, time_dim, Dim(2, name="in"))}}, train_flag=False)
    out = net.get_layer("output").output
    assert out.batch_shape == ()
    y = session.run(out.placeholder, feed_dict=make_feed(net, {"data": np.zeros((2, 6, 2), "float32")},
                                                         {"data": [6, 4]}))
    assert y == 6  # i = 1, ..., 6: ends where i >= the longest sequence


def test_switch_on_prev_of_a_training_choice_is_a_frame(session):
    """A ``switch`` keeping ``prev:`` of itself, its condition from a ``choice`` over a target (in training the
    choice's sources are not used: no guess needed): ``{B}`` int32, not a guessed ``{B, F=1}``, as the reference
    (observed: ``segment_starts`` ``[B]`` in its test_reclayer_att_weights_output_layer)."""
    time_dim, align_dim = Dim(None, name="time"), Dim(5, name="align")
    unit = {
        "output": {"class": "choice", "from": "data", "target": "alignment", "beam_size": 4, "initial_output": 0},
        "emit": {"class": "compare", "from": "output", "kind": "not_equal", "value": 4, "initial_output": True},
        "starts": {"class": "switch", "condition": "prev:emit", "true_from": ":i", "false_from": "prev:starts",
                   "initial_output": 0, "is_output_layer": True},
    }
    net = build_net({"output": {"class": "rec", "from": "data", "target": "alignment", "unit": unit}},
                    extern_data={"data": {"dim_tags": (batch_dim, time_dim, Dim(3, name="in"))},
                                 "alignment": {"dim_tags": (batch_dim, time_dim), "sparse_dim": align_dim}},
                    train_flag=True)
    cell = net.get_layer("output").cell
    assert cell.layers["starts"].output.dims == (batch_dim,) and cell.layers["starts"].output.dtype == "int32"
    align = np.array([[4, 1, 4, 4, 2], [0, 4, 4, 4, 4]])
    starts = session.run(net.get_layer("output/starts").output.copy_as_batch_major().placeholder,
                         feed_dict=make_feed(net, {"data": np.zeros((2, 5, 3), "float32"), "alignment": align},
                                             {"data": [5, 5], "alignment": [5, 5]}))
    # a new segment starts at step i when the label before it was not the blank (4)
    np.testing.assert_array_equal(starts, [[0, 0, 2, 2, 2], [0, 1, 1, 1, 1]])


def _choice_on_target_of_another_time_axis():
    src_time, tgt_time, tgt_dim = Dim(None, name="src-time"), Dim(None, name="out-spatial"), Dim(7, name="tgt")
    extern_data = {"data": {"dim_tags": (batch_dim, src_time, Dim(5, name="in"))},
                   "classes": {"dim_tags": (batch_dim, tgt_time), "sparse_dim": tgt_dim,
                               "available_for_inference": False}}
    net_dict = {"output": {"class": "rec", "from": "data", "target": "classes", "unit": {
        "prob": {"class": "softmax", "from": "data:source", "out_dim": tgt_dim},
        "output": {"class": "choice", "target": "classes", "beam_size": 4, "from": "prob", "initial_output": 0}}}}
    return net_dict, extern_data, src_time, tgt_time


def test_choice_on_target_of_another_time_axis_old_behavior(session):
    """A choice in training whose target is over another time axis than the loop's (old transducer configs): its
    frame is ``{B}``, the rec layer's output ``[T|src-time, B]`` holds the target as it is (a deprecation warning
    before behavior version 13), as the reference (observed, its test_reclayer_time_sync_target_diff)."""
    BehaviorVersion._reset()
    BehaviorVersion.set(0)
    net_dict, extern_data, src_time, tgt_time = _choice_on_target_of_another_time_axis()
    net = build_net(net_dict, extern_data=extern_data, train_flag=True)
    out = net.get_layer("output").output
    assert out.dims == (src_time, batch_dim)
    targets = np.array([[1, 2, 3], [4, 5, 6]])
    y = session.run(out.placeholder, feed_dict=make_feed(
        net, {"data": np.zeros((2, 4, 5), "float32"), "classes": targets}, {"data": [4, 4], "classes": [3, 3]}))
    np.testing.assert_array_equal(y, targets.T)


def test_choice_on_target_of_another_time_axis_is_an_error_from_behavior_version_13():
    net_dict, extern_data, _, _ = _choice_on_target_of_another_time_axis()
    with tf.Graph().as_default(), pytest.raises(BehaviorVersion.RequirementNotSatisfied, match="time-dim-tag mismatch"):
        build_net(net_dict, extern_data=extern_data, train_flag=True)

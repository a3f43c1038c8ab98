"""Layers of a rec unit whose frames have more axes, in the loop and moved out of it (as the reference moves them out,
observed: ``output_layers_moved_out``): a ``window`` over the loop's steps (in the loop: the frames of the last
``W`` steps, the loop state; moved out: the window over the time axis), a ``rec`` layer over the window axis of each
frame, and a ``rec`` layer with ``axis=single_step_dim`` over frames ``{B, S, F}`` (in the loop: one step per loop
step for each of the ``S`` entries; moved out: over the loop's time). Expected values: numpy for the window; the
loop and the moved-out form equal."""

import numpy as np
import pytest
import tensorflow as tf

from tf_net_helpers import make_feed

from returnn.config import Config
from returnn.tensor import Dim, FeatureDim, single_step_dim
from returnn.tf.network import TFNetwork

tf.compat.v1.disable_eager_execution()

N_IN = 4


def _build(unit, move_out, name):
    net = TFNetwork(config=Config({"extern_data": {"data": {"dim": N_IN}}}), train_flag=False, name=name)
    net.construct_from_dict({"output": {"class": "rec", "from": "data", "unit": unit,
                                        "optimize_move_layers_out": move_out}})
    return net


def _both(session, unit, x, lens, seed=1):
    """:return: (outputs batch-major in the loop, moved out; the moved-out cell)"""
    nets = [_build(unit, move_out, f"net{int(move_out)}") for move_out in (False, True)]
    session.run(tf.compat.v1.global_variables_initializer())
    rs = np.random.RandomState(seed)
    params = [{p.name.split("/", 1)[1]: p for p in net.get_params_list()} for net in nets]
    for name in sorted(params[0]):
        value = rs.uniform(-1, 1, size=params[0][name].shape.as_list()).astype("float32")
        for net_params in params:
            net_params[name].load(value, session)
    outs = []
    for net in nets:
        out = net.get_layer("output").output.copy_as_batch_major()
        outs.append(session.run(out.placeholder, feed_dict=make_feed(net, {"data": x}, {"data": lens})))
    return outs, nets[1].get_layer("output").cell


def test_window_over_loop_steps(session):
    win_dim = Dim(3, name="win")
    unit = {"output": {"class": "window", "window_dim": win_dim, "window_right": 0, "from": "data:source"}}
    rs = np.random.RandomState(1)
    x = rs.uniform(-1, 1, size=(2, 5, N_IN)).astype("float32")
    lens = np.array([5, 3], "int32")
    (in_loop, moved_out), cell = _both(session, unit, x, lens)
    assert cell.layers_in_loop == [] and cell.output_layers_moved_out == ["output"]
    padded = np.concatenate([np.zeros((2, 2, N_IN), "float32"), x], axis=1)
    expected = np.stack([padded[:, t:t + 3] for t in range(5)], axis=1)  # [B, T, W, F]: oldest first
    for y in (in_loop, moved_out):
        assert y.shape == (2, 5, 3, N_IN)
        for b, n in enumerate(lens):
            np.testing.assert_allclose(y[b, :n], expected[b, :n], rtol=1e-6)


def test_window_in_loop_cannot_look_ahead():
    from returnn.errors import LayerArgError

    with tf.Graph().as_default():
        with pytest.raises(LayerArgError, match="window_right"):
            _build({"output": {"class": "window", "window_size": 3, "from": "data:source"}}, False, "ahead")


def test_rec_over_window_of_loop_steps(session):
    win_dim = Dim(3, name="win")
    unit = {"win": {"class": "window", "window_dim": win_dim, "window_right": 0, "from": "data:source"},
            "output": {"class": "rec", "unit": "nativelstm2", "from": "win", "axis": win_dim, "n_out": 2}}
    rs = np.random.RandomState(2)
    x = rs.uniform(-1, 1, size=(2, 4, N_IN)).astype("float32")
    lens = np.array([4, 2], "int32")
    (in_loop, moved_out), cell = _both(session, unit, x, lens)
    assert set(cell.output_layers_moved_out) == {"output", "win"}
    assert in_loop.shape == moved_out.shape == (2, 4, 3, 2)
    for b, n in enumerate(lens):
        np.testing.assert_allclose(in_loop[b, :n], moved_out[b, :n], rtol=1e-5, atol=1e-6)
        assert in_loop[b, :n].any()


@pytest.mark.parametrize("unit_name", ["nativelstm2", "zoneoutlstm"])
def test_single_step_per_frame_entry(session, unit_name):
    unit = {"split": {"class": "split_dims", "from": "data:source", "axis": "F", "dims": (2, 2)},
            "output": {"class": "rec", "unit": unit_name, "from": "split", "axis": single_step_dim,
                       "out_dim": FeatureDim("lstm", 3)}}
    rs = np.random.RandomState(3)
    x = rs.uniform(-1, 1, size=(2, 4, N_IN)).astype("float32")
    lens = np.array([4, 3], "int32")
    (in_loop, moved_out), cell = _both(session, unit, x, lens)
    assert set(cell.output_layers_moved_out) == {"output", "split"}
    assert in_loop.shape == moved_out.shape == (2, 4, 2, 3)
    for b, n in enumerate(lens):
        np.testing.assert_allclose(in_loop[b, :n], moved_out[b, :n], rtol=1e-5, atol=1e-6)


def test_moved_out_attention_weights_keep_the_decoder_axis():
    """Attention weights marked as output layer, over the encoder and the previous label (the decoder's time has
    lengths computed from the target, no placeholder): moved out as the reference (observed: ``energy_in``
    ``{B, T_enc, T_dec, F}``), not in the loop."""
    unit = {
        "emb": {"class": "linear", "activation": None, "with_bias": False, "from": "prev:output", "n_out": 4},
        "energy_in": {"class": "combine", "kind": "add", "from": ["base:enc_ctx", "emb"]},
        "energy": {"class": "linear", "activation": None, "with_bias": False, "from": "energy_in", "n_out": 1},
        "energy_sq": {"class": "squeeze", "axis": "f", "from": "energy"},
        "att_weights": {"class": "softmax_over_spatial", "from": "energy_sq", "is_output_layer": True},
        "att": {"class": "generic_attention", "weights": "att_weights", "base": "base:enc_ctx"},
        "prob": {"class": "softmax", "from": "att", "target": "classes0", "loss": "ce"},
        "output": {"class": "choice", "from": "prob", "target": "classes0", "beam_size": 2, "initial_output": 0}}
    with tf.Graph().as_default():
        net = TFNetwork(config=Config({"extern_data": {"data": {"sparse": True, "dim": 8},
                                                       "classes": {"sparse": True, "dim": 2}}}), train_flag=False)
        net.construct_from_dict({
            "enc_ctx": {"class": "linear", "activation": None, "from": "data", "n_out": 4},
            "classes1": {"class": "reinterpret_data", "from": "data:classes", "increase_sparse_dim": 1},
            "classes0": {"class": "postfix_in_time", "postfix": 2, "from": "classes1",
                         "register_as_extern_data": "classes0"},
            "output": {"class": "rec", "from": [], "target": "classes0", "unit": unit}})
        cell = net.get_layer("output").cell
        assert cell.layers_in_loop == [] and "att_weights" in cell.output_layers_moved_out
        enc_time = net.get_layer("enc_ctx").output.get_time_dim_tag()
        dec_time = net.get_layer("output").output.get_time_dim_tag()
        energy_in = cell.output_layers_net.layers["energy_in"].output
        assert enc_time in energy_in.dims and dec_time in energy_in.dims
        weights = net.get_layer("output/att_weights").output
        assert set(weights.dims) == {enc_time, dec_time, net.get_layer("enc_ctx").output.dims[0]}

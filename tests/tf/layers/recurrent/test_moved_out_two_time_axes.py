"""A rec unit whose attention energies combine the encoder (``base:``) with the decoder state, moved out of the
loop in training (as the segmental-attention setups of returnn-experiments, 2021-latent-monotonic-attention): the
moved-out ``combine`` spans both the encoder's and the decoder's time, and a ``softmax_over_spatial`` with
``start`` normalises over the encoder's time per decoder step. Templates, attention weights and the loss observed
from the reference (PyPI ``returnn``) on the same network, parameters and data. The encoder's time is derived from
the input's time (pooling), the decoder's is the target's: two axes with their own lengths."""

import numpy as np
import tensorflow as tf

from returnn.config import Config
from returnn.tf.network import TFNetwork

UNIT = {
    "s": {"class": "rec", "unit": "nativelstm2", "from": ["prev:target_embed"], "n_out": 5},
    "s_transformed": {"class": "linear", "activation": None, "with_bias": False, "from": ["s"], "n_out": 4},
    "energy_in": {"class": "combine", "kind": "add", "from": ["base:enc_ctx", "s_transformed"], "n_out": 4},
    "energy": {"class": "linear", "activation": None, "with_bias": False, "from": ["energy_in"], "n_out": 1},
    "energy1": {"class": "squeeze", "axis": "f", "from": "energy"},
    "energy2": {"class": "reinterpret_data", "from": "energy1", "set_axes": {"t": "stag:lstm"}},
    "att_weights": {"class": "softmax_over_spatial", "from": "energy2", "start": "t_start"},
    "att_weights1": {"class": "reinterpret_data", "from": "att_weights", "set_axes": {"f": "stag:lstm"},
                     "target": "t_target", "loss": "ce"},
    "t": {"class": "choice", "from": "att_weights1", "target": "t_target", "beam_size": 4, "initial_output": -1},
    "t_start": {"class": "eval", "from": ["prev:t", "data:t_target"], "eval": "tf.minimum(source(0), source(1))"},
    "output_prob": {"class": "softmax", "from": ["s"], "target": "classes", "loss": "ce"},
    "target_embed": {"class": "linear", "from": "output", "n_out": 3},
    "output": {"class": "choice", "target": "classes", "beam_size": 4, "from": "output_prob", "initial_output": 0},
}
NET = {
    "lin": {"class": "linear", "from": "data", "n_out": 6},
    "lstm": {"class": "pool", "mode": "max", "pool_size": (2,), "padding": "same", "from": "lin"},
    "enc_ctx": {"class": "linear", "from": "lstm", "n_out": 4},
    "t_linear": {"class": "eval", "from": ["data:classes"],
                 "eval": "tf.minimum(tf.range(tf.shape(source(0))[1])[None, :] + 0 * source(0), 2)",
                 "out_type": {"batch_dim_axis": 0, "time_dim_axis": 1, "shape": (None,), "sparse": True,
                              "dtype": "int32", "dim": None},
                 "size_target": "classes"},
    "1_t_base": {"class": "copy", "from": "t_linear", "register_as_extern_data": "t_target"},
    "output": {"class": "rec", "from": [], "target": ["classes", "t_target"], "size_target": "t_target",
               "unit": UNIT},
}

# observed from the reference: batch, decoder step, encoder frame (the sequence of 4 input frames has 2 encoder
# frames; frames before the step's start are 0); the decoder's 4 and 2 steps, the encoder's 3 and 2 frames
EXPECTED_ATT_WEIGHTS = [
    [[0.282, 0.333, 0.385], [0.282, 0.333, 0.385], [0.0, 0.464, 0.536], [0.0, 0.0, 1.0]],
    [[0.148, 0.852, 0.0], [0.148, 0.852, 0.0]]]


def test_moved_out_combine_spans_encoder_and_decoder_time_like_reference(session):
    net = TFNetwork(config=Config({"extern_data": {"data": {"dim": 3}, "classes": {"dim": 5, "sparse": True}}}),
                    train_flag=True)
    net.construct_from_dict(NET)
    enc_time = net.get_layer("enc_ctx").output.get_time_dim_tag()
    dec_time = net.extern_data.data["classes"].get_time_dim_tag()
    energy_in = net.get_layer("output/energy_in").output
    assert energy_in.dims[1:3] == (enc_time, dec_time)  # the reference's order: [B, T_enc, T_dec, F]
    att = net.get_layer("output/att_weights").output.copy_as_batch_major()
    assert att.dims[1:] == (dec_time, enc_time)
    session.run(tf.compat.v1.global_variables_initializer())
    rs = np.random.RandomState(0)
    for var in sorted(tf.compat.v1.global_variables(), key=lambda v: v.name):
        var.load(rs.uniform(-1, 1, var.shape.as_list()), session)
    data, classes = net.extern_data.data["data"], net.extern_data.data["classes"]
    feed = {data.placeholder: rs.uniform(-1, 1, (2, 6, 3)).astype("float32"), data.size_placeholder[0]: [6, 4],
            classes.placeholder: [[1, 2, 3, 1], [4, 1, 0, 0]], classes.size_placeholder[0]: [4, 2]}
    weights, loss = session.run([att.placeholder, net.get_total_loss()], feed)
    np.testing.assert_allclose(weights[0], EXPECTED_ATT_WEIGHTS[0], atol=1e-3)
    np.testing.assert_allclose(weights[1, :2], EXPECTED_ATT_WEIGHTS[1], atol=1e-3)
    # the losses over the decoder's frames (the attention weights' ce too: the loop's time is their time axis)
    np.testing.assert_allclose(loss, 15.588247, rtol=1e-5)

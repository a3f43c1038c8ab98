"""A small stand-in for TFNetwork and Updater (the engine's interface only), so the engine's loop, checkpoints
and tasks are tested independently of the layer implementations.

Network: ``output = softmax(data @ W + b)`` on dense ``data`` [B,T,n_in] with sparse ``classes`` [B,T];
loss = summed CE over the real frames, error = number of wrong frames. Variables ``output/W``,
``output/b``, ``global_step``. Config ``standin_nan_at_step = N`` makes the loss NaN from global step N on.
Updater: plain SGD on the frame-normalized loss with a ``learning_rate`` variable.
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1


class StandInTensor:
    """What the engine reads of a Tensor."""

    def __init__(self, name, placeholder, seq_lens, dim, sparse):
        self.name = name
        self.placeholder = placeholder
        self.size_placeholder = {0: seq_lens} if seq_lens is not None else {}
        self.dim = dim
        self.sparse = sparse
        self.batch_dim_axis = 0
        self.time_dim_axis = 1
        self.batch_shape = (None, None) if sparse else (None, None, dim)
        self.shape = self.batch_shape[1:]
        self.dtype = "int32" if sparse else "float32"

    def get_sequence_lengths(self):
        return self.size_placeholder[0]

    def copy_as_batch_major(self):
        return self

    def copy_template(self):
        return self

    def __repr__(self):
        return "StandInTensor{%s, dim %s}" % (self.name, self.dim)


class StandInExternData:
    def __init__(self, n_in, n_out):
        self.data = {
            "data": StandInTensor("data", tf1.placeholder(tf.float32, [None, None, n_in], name="extern_data/data"),
                                  tf1.placeholder(tf.int32, [None], name="extern_data/data_seq_lens"), n_in, False),
            "classes": StandInTensor("classes", tf1.placeholder(tf.int32, [None, None], name="extern_data/classes"),
                                     tf1.placeholder(tf.int32, [None], name="extern_data/classes_seq_lens"), n_out,
                                     True),
        }


class LossHolder:
    def __init__(self, name, loss, error, frames, layer):
        self.name = name
        self._loss, self._error, self._frames = loss, error, frames
        self.layer = layer

    def get_loss_value(self):
        return self._loss

    def get_error_value(self):
        return self._error

    def get_num_frames(self):
        return self._frames


class Layer:
    def __init__(self, name, output, params):
        self.name = name
        self.output = output
        self.params = params


class StandInNetwork:
    def __init__(self, config, extern_data, train_flag, n_in, n_out):
        self.extern_data = extern_data
        self.train_flag = train_flag
        self.recurrent = True  # batches of whole sequences, as for a network with a layer over time
        data = extern_data.data["data"]
        classes = extern_data.data["classes"]
        self.global_train_step = tf1.get_variable("global_step", shape=(), dtype=tf.int64,
                                                  initializer=tf1.zeros_initializer(), trainable=False)
        with tf1.variable_scope("output"):
            w = tf1.get_variable("W", [n_in, n_out], initializer=tf1.glorot_uniform_initializer(seed=1))
            b = tf1.get_variable("b", [n_out], initializer=tf1.zeros_initializer())
        logits = tf.einsum("bti,io->bto", data.placeholder, w) + b
        probs = tf.nn.softmax(logits)
        mask = tf.sequence_mask(classes.get_sequence_lengths(), maxlen=tf.shape(classes.placeholder)[1])
        ce = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=classes.placeholder, logits=logits)
        loss = tf.reduce_sum(tf.where(mask, ce, tf.zeros_like(ce)))
        nan_at = config.int("standin_nan_at_step", -1)
        if nan_at >= 0:
            loss = tf.where(self.global_train_step >= nan_at, tf.constant(np.nan, tf.float32), loss)
        wrong = tf.logical_and(mask, tf.not_equal(tf.argmax(logits, -1, output_type=tf.int32), classes.placeholder))
        error = tf.reduce_sum(tf.cast(wrong, tf.float32))
        frames = tf.cast(tf.reduce_sum(classes.get_sequence_lengths()), tf.float32)
        out = StandInTensor("output", probs, data.get_sequence_lengths(), n_out, False)
        self.layers = {"output": Layer("output", out, {"W": w, "b": b})}
        self._losses = {"output": LossHolder("output", loss, error, frames, self.layers["output"])}
        self.total_loss = loss
        self.frames = frames

    def get_losses_initialized(self, reduce_func=None, with_total=False):
        return dict(self._losses), self.total_loss, None

    def get_default_output_layer(self):
        return self.layers["output"]

    def get_layer(self, name):
        return self.layers[name]

    def get_params_list(self):
        return [self.layers["output"].params["W"], self.layers["output"].params["b"]]

    def get_saveable_params_list(self):
        return self.get_params_list()

    def get_used_data_keys(self):
        return ["classes", "data"]

    def call_graph_reset_callbacks(self):
        pass


class StandInUpdater:
    def __init__(self, updater_options, network, initial_learning_rate):
        self.network = network
        self.lr = tf1.get_variable("learning_rate", shape=(), dtype=tf.float32,
                                   initializer=tf1.constant_initializer(initial_learning_rate), trainable=False)
        opt = tf1.train.AdamOptimizer(self.lr)
        self.op = opt.minimize(network.total_loss / tf.maximum(network.frames, 1.0),
                               global_step=network.global_train_step)

    def set_learning_rate(self, value, session):
        self.lr.load(value, session)

    def get_optim_op(self):
        return self.op


class PermanentPatch:
    """``monkeypatch`` stand-in for :func:`install` outside pytest (subprocess scripts): plain ``setattr``."""

    @staticmethod
    def setattr(obj, name, value):
        setattr(obj, name, value)


def install(monkeypatch, n_in=9, n_out=2):
    """Replaces the engine's network/updater/extern-data factories by the stand-ins."""
    from returnn.tf.engine import network_setup

    created = []

    def create_extern_data(data_options, datasets=(), *, auto_create_placeholders=True):
        return StandInExternData(n_in, n_out)

    def create_network(config, *, extern_data, net_dict, train_flag, eval_flag, search_flag=False, rnd_seed=None):
        net = StandInNetwork(config, extern_data, train_flag, n_in, n_out)
        created.append(net)
        return net

    def create_updater(updater_options, network, initial_learning_rate, *, strategy=None):
        return StandInUpdater(updater_options, network, initial_learning_rate)

    monkeypatch.setattr(network_setup, "create_extern_data", create_extern_data)
    monkeypatch.setattr(network_setup, "create_network", create_network)
    monkeypatch.setattr(network_setup, "create_updater", create_updater)
    return created

"""A user TF RNN cell registered as a ``rec`` unit (``RecLayer._create_rnn_cells_dict()`` /
``RecLayer._rnn_cells_dict``, cells derived from ``BaseRNNCell``), over time and inside a rec loop, checked against
numpy (cumulative sums, a tanh RNN with the cell's own variable)."""

import os
import sys

import numpy as np
import tensorflow as tf

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

from tf_net_helpers import build_net, make_feed  # noqa: E402

from returnn.tf.layers.rec import BaseRNNCell, RecLayer, rnn_cell  # noqa: E402

tf.compat.v1.disable_eager_execution()


class _CumSum(BaseRNNCell):
    def __init__(self, num_units):
        super().__init__()
        self._n = num_units

    @property
    def output_size(self):
        return self._n

    @property
    def state_size(self):
        return self._n

    def call(self, inputs, state):
        inputs.set_shape((None, self._n))
        out = inputs + state
        return out, out


class _TanhRnn(_CumSum):  # the same sizes as _CumSum, its own step
    def __init__(self, num_units, scale=1.0):
        super().__init__(num_units)
        self._scale = scale

    def call(self, inputs, state):
        w = tf.compat.v1.get_variable("W", shape=(int(inputs.shape[-1]) + self._n, self._n))
        out = tf.tanh(self._scale * tf.matmul(tf.concat([inputs, state], -1), w))
        return out, out


def _register():
    cells = RecLayer._create_rnn_cells_dict()
    assert cells is RecLayer._rnn_cells_dict
    cells["test_cumsum"] = _CumSum
    cells["test_tanhrnn"] = _TanhRnn


def test_base_rnn_cell_input_transform_is_identity():
    with tf.Graph().as_default():
        x = tf.zeros([2, 3])
        assert _CumSum(3).get_input_transformed(x) is x


def test_user_cell_cumsum_over_time(session):
    _register()
    net = build_net({"output": {"class": "rec", "unit": "test_cumsum", "n_out": 3, "from": "data"}},
                    train_flag=False)
    out = net.get_layer("output").output
    assert out.time_dim_axis == 0 and out.batch_dim_axis == 1 and out.dim == 3
    assert not net.get_params_list()
    x = np.random.RandomState(1).uniform(-1, 1, (2, 5, 3)).astype("float32")
    lens = np.array([5, 3], "int32")
    y = session.run(out.copy_as_batch_major().placeholder, feed_dict=make_feed(net, {"data": x}, {"data": lens}))
    expected = np.cumsum(x, axis=1)
    expected[1, 3:] = 0.0  # padded frames are zero
    np.testing.assert_allclose(y, expected, rtol=1e-6, atol=1e-6)


def test_user_cell_backward_and_params_and_unit_opts(session):
    _register()
    net = build_net({"output": {"class": "rec", "unit": "test_tanhrnn", "unit_opts": {"scale": 0.5}, "n_out": 2,
                                "direction": -1, "from": "data"}}, train_flag=False)
    params = {p.name[:-2]: p for p in net.get_params_list()}
    # the name as observed from the reference (the cell's own Keras-layer scope under <layer>/rec/)
    assert {k: v.shape.as_list() for k, v in params.items()} == {"output/rec/private__tanh_rnn/W": [5, 2]}
    session.run(tf.compat.v1.global_variables_initializer())
    w = session.run(params["output/rec/private__tanh_rnn/W"])
    x = np.random.RandomState(2).uniform(-1, 1, (2, 4, 3)).astype("float32")
    lens = np.array([4, 2], "int32")
    y = session.run(net.get_layer("output").output.copy_as_batch_major().placeholder,
                    feed_dict=make_feed(net, {"data": x}, {"data": lens}))
    expected = np.zeros((2, 4, 2), "float32")
    for b in range(2):
        h = np.zeros(2, "float32")
        for t in reversed(range(lens[b])):
            h = np.tanh(0.5 * np.concatenate([x[b, t], h]) @ w)
            expected[b, t] = h
    np.testing.assert_allclose(y, expected, rtol=1e-5, atol=1e-5)


def test_user_cell_inside_rec_loop(session):
    _register()
    net = build_net({"output": {"class": "rec", "from": "data", "optimize_move_layers_out": False, "unit": {
        "cs": {"class": "rec", "unit": "test_cumsum", "n_out": 3, "from": "data:source"},
        "output": {"class": "copy", "from": "cs"}}}}, train_flag=False)
    x = np.random.RandomState(3).uniform(-1, 1, (2, 4, 3)).astype("float32")
    lens = np.array([4, 4], "int32")
    y = session.run(net.get_layer("output").output.copy_as_batch_major().placeholder,
                    feed_dict=make_feed(net, {"data": x}, {"data": lens}))
    np.testing.assert_allclose(y, np.cumsum(x, axis=1), rtol=1e-6, atol=1e-6)


def test_user_cell_param_keys_and_name_scope():
    """the layer's ``params`` keys are relative to ``<layer>/rec`` (``private__tanh_rnn/W``); with ``"name_scope":
    "x"`` the variables are ``x/private__tanh_rnn/W`` (no ``rec/``), the same keys (as the reference, observed with
    such a cell)"""
    _register()
    for name_scope, var_name in ((None, "output/rec/private__tanh_rnn/W"), ("x", "x/private__tanh_rnn/W")):
        with tf.Graph().as_default():
            desc = {"class": "rec", "unit": "test_tanhrnn", "n_out": 2, "from": "data"}
            if name_scope is not None:
                desc["name_scope"] = name_scope
            net = build_net({"output": desc}, train_flag=False)
            assert [p.name[:-2] for p in net.get_params_list()] == [var_name]
            assert list(net.get_layer("output").params) == ["private__tanh_rnn/W"]


class _TupleLstm(_CumSum):
    """An LSTM with an ``LSTMStateTuple`` state and its own input transform (as the reference's test_custom_rec_unit;
    the output size of :class:`_CumSum`, its own state and step)"""

    @property
    def state_size(self):
        return rnn_cell.LSTMStateTuple(self._n, self._n)

    def get_input_transformed(self, x, batch_dim=None):
        w = tf.compat.v1.get_variable("W", shape=(int(x.shape[-1]), 4 * self._n))
        return tf.tensordot(x, w, axes=1)

    def __call__(self, inputs, state, scope=None):
        prev_c, prev_h = state
        w_re = tf.compat.v1.get_variable("W_re", shape=(self._n, 4 * self._n))
        c_in, i, f, o = tf.split(inputs + tf.matmul(prev_h, w_re), 4, axis=-1)
        c = tf.sigmoid(f) * prev_c + tf.sigmoid(i) * tf.tanh(c_in)
        h = tf.sigmoid(o) * tf.tanh(c)
        return h, rnn_cell.LSTMStateTuple(c, h)


def test_cell_class_as_unit_with_tuple_state_in_loop(session):
    """``"unit": <a cell class>`` (not registered by name), the cell's state an ``LSTMStateTuple``, inside a rec
    loop (run over the whole sequence there), as the reference's test_custom_rec_unit: the cell's variables under
    ``<layer>/rec/`` (names observed from the reference), values as numpy's LSTM"""
    net = build_net({"output": {"class": "rec", "from": "data", "unit": {
        "output": {"class": "rec", "unit": _TupleLstm, "n_out": 2, "from": "data:source"}}}}, train_flag=False)
    params = {p.name[:-2]: p for p in tf.compat.v1.global_variables()}
    assert sorted(params) == ["output/rec/output/rec/W", "output/rec/output/rec/W_re"]
    session.run(tf.compat.v1.global_variables_initializer())
    w, w_re = session.run([params["output/rec/output/rec/W"], params["output/rec/output/rec/W_re"]])
    x = np.random.RandomState(4).uniform(-1, 1, (2, 4, 3)).astype("float32")
    lens = np.array([4, 2], "int32")
    y = session.run(net.get_layer("output").output.copy_as_batch_major().placeholder,
                    feed_dict=make_feed(net, {"data": x}, {"data": lens}))

    def sigmoid(v):
        return 1.0 / (1.0 + np.exp(-v))

    expected = np.zeros((2, 4, 2), "float32")
    for b in range(2):
        c, h = np.zeros(2), np.zeros(2)
        for t in range(lens[b]):
            c_in, i, f, o = np.split(x[b, t] @ w + h @ w_re, 4)
            c = sigmoid(f) * c + sigmoid(i) * np.tanh(c_in)
            h = sigmoid(o) * np.tanh(c)
            expected[b, t] = h
    np.testing.assert_allclose(y, expected, rtol=1e-5, atol=1e-5)

"""The reference's API around one RNN step built by hand: ``LayerBase.get_rec_initial_output``,
``RnnCellLayer.get_rec_initial_state(batch_dim=...)``, ``rec_previous_layer`` with its ``rec_vars_outputs["state"]``,
``unit_opts`` ``activation`` of ``basicrnn``, and the NativeLstm (v1) unit refused inside a rec loop."""

import numpy as np
import pytest
import tensorflow as tf

from tf_net_helpers import build_net, make_feed

from returnn.errors import LayerArgError
from returnn.tensor import Tensor
from returnn.tf.layers.core.internal import InternalLayer
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.rec import RnnCellLayer

tf.compat.v1.disable_eager_execution()


def test_get_rec_initial_output_constants(session):
    out = Tensor(name="x", dim=3, time_dim_axis=None)
    zeros = LayerBase.get_rec_initial_output(batch_dim=2, name="x", output=out, rec_layer=None)
    ones = LayerBase.get_rec_initial_output(batch_dim=tf.constant(1), name="x", output=out, initial_output="ones")
    seven = LayerBase.get_rec_initial_output(batch_dim=1, name="x", output=out, initial_output=7)
    np.testing.assert_array_equal(session.run(zeros), np.zeros((2, 3)))
    np.testing.assert_array_equal(session.run(ones), np.ones((1, 3)))
    np.testing.assert_array_equal(session.run(seven), np.full((1, 3), 7.0))
    with pytest.raises(LayerArgError, match="initial_output"):
        LayerBase.get_rec_initial_output(batch_dim=1, name="x", output=out, initial_output="var")


def test_rnn_cell_step_with_rec_previous_layer(session):
    """A step built by hand, its previous state from a stand-in layer's ``rec_vars_outputs["state"]``: the output
    is TF's LSTM cell (forget bias 1) from that state."""
    net = build_net({})
    inp = InternalLayer(name="inp", network=net, output=Tensor(name="inp", dim=2, time_dim_axis=None))
    inp.output.placeholder = tf.constant([[0.5, -1.0]])
    prev = InternalLayer(name="prev:l1", network=net, output=Tensor(name="prev_l1", dim=3, time_dim_axis=None))
    assert prev.rec_vars_outputs == {}
    state = RnnCellLayer.get_rec_initial_state(batch_dim=1, name="prev_l", n_out=3, unit="LSTMBlock",
                                               initial_state="ones", network=net)
    prev.rec_vars_outputs["state"] = state
    opts = dict(name="l1", n_out=3, unit="LSTMBlock", network=net, rec_previous_layer=prev, sources=[inp])
    opts["output"] = RnnCellLayer.get_out_data_from_opts(**opts)
    with tf.compat.v1.variable_scope("l1"):
        layer = RnnCellLayer(**opts)
    assert layer.output.batch_shape == (None, 3)
    session.run(tf.compat.v1.global_variables_initializer())
    kernel, bias, y = session.run([layer.params["lstm_cell/kernel"], layer.params["lstm_cell/bias"],
                                   layer.output.placeholder])
    z = np.concatenate([[0.5, -1.0], np.ones(3)]) @ kernel + bias
    i, j, f, o = np.split(z, 4)
    sig = lambda v: 1 / (1 + np.exp(-v))  # noqa: E731
    c = sig(f + 1.0) * 1.0 + sig(i) * np.tanh(j)
    np.testing.assert_allclose(y[0], sig(o) * np.tanh(c), rtol=1e-5)
    assert set(layer.rec_vars_outputs) == {"c", "h"}


def test_basic_rnn_activation_unit_opt(session):
    net = build_net({"output": {"class": "rec", "from": "data", "optimize_move_layers_out": False, "unit": {
        "output": {"class": "rnn_cell", "unit": "BasicRNN", "unit_opts": {"activation": tf.nn.relu},
                   "from": "data:source", "n_out": 2}}}}, extern_data={"data": {"dim": 2}}, train_flag=False)
    session.run(tf.compat.v1.global_variables_initializer())
    kernel = net.get_layer("output").params["output/rec/basic_rnn_cell/kernel"]
    kernel.load(np.array([[1., -1.], [0.5, 2.], [1., 0.], [0., 1.]], "float32"), session)
    x = np.array([[[1., 0.], [0., 1.], [-2., 0.]]], "float32")
    y = session.run(net.get_layer("output").output.copy_as_batch_major().placeholder,
                    make_feed(net, {"data": x}, {"data": [3]}))
    h, expected = np.zeros(2), []
    for t in range(3):
        h = np.maximum(np.concatenate([x[0, t], h]) @ session.run(kernel), 0.)
        expected.append(h)
    np.testing.assert_allclose(y[0], expected, rtol=1e-5)


def test_basic_rnn_unknown_unit_opt(session):
    with pytest.raises(LayerArgError, match="forget_bias"):
        build_net({"output": {"class": "rec", "from": "data", "optimize_move_layers_out": False, "unit": {
            "output": {"class": "rnn_cell", "unit": "BasicRNN", "unit_opts": {"forget_bias": 1.0},
                       "from": "data:source", "n_out": 2}}}})


def test_nativelstm_v1_refused_inside_loop(session):
    """As the reference (https://github.com/rwth-i6/returnn/issues/813): its NativeLstm cannot run step by step."""
    with pytest.raises(Exception, match="issues/813"):
        build_net({"output": {"class": "rec", "from": "data", "optimize_move_layers_out": False, "unit": {
            "output": {"class": "rec", "unit": "NativeLstm", "from": "data:source", "n_out": 3}}}})

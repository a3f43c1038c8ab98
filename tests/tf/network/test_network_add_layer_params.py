"""TFNetwork.add_layer (class + final options), initialize_params, recurrent, ExternData.get_batch_info (values
observed with the reference)."""

import numpy as np
import pytest
import tensorflow as tf

from returnn.config import Config
from returnn.errors import LayerArgError
from returnn.tensor import Tensor
from returnn.tf.layers.base import InternalLayer, LayerBase
from returnn.tf.network import ExternData, TFNetwork

TF = tf.compat.v1


class _ParamLayer(LayerBase):
    def __init__(self, initial_value=0.0, **kwargs):
        super().__init__(**kwargs)
        self.x = self.add_param(tf.Variable(initial_value, name="x"))
        self.output.placeholder = tf.convert_to_tensor(self.x)

    @classmethod
    def get_out_data_from_opts(cls, name, **kwargs):
        assert "sources" not in kwargs  # add_layer passes the options as given: no "from" resolution
        return Tensor(name=f"{name}_output", dims=(), dtype="float32")


def test_add_layer_with_class_and_initialize_params():
    with tf.Graph().as_default(), TF.Session() as session:
        net = TFNetwork(extern_data=ExternData(), train_flag=True)
        layer = net.add_layer(name="output", layer_class=_ParamLayer, initial_value=5.0)
        assert layer.sources == [] and net.layers["output"] is layer
        assert [p.op.name for p in net.get_params_list()] == ["output/x"]
        net.initialize_params(session=session)
        assert session.run(layer.output.placeholder) == 5.0
        session.run(layer.x.assign(1.0))
        net.initialize_params(session=session)  # back to the initial value
        assert session.run(layer.x) == 5.0
        assert not net.recurrent
        with pytest.raises(LayerArgError, match="exists already"):
            net.add_layer(name="output", layer_class=_ParamLayer)
        with pytest.raises(LayerArgError, match="LayerBase subclass"):
            net.add_layer(name="other", layer_class=dict)


def test_add_layer_with_given_output_then_dict_layers():
    with tf.Graph().as_default(), TF.Session() as session:
        net = TFNetwork(extern_data=ExternData(), config=Config())
        values = np.arange(24, dtype="float32").reshape((4, 2, 3))  # time-major [T, B, F]
        inp = net.add_layer("input", InternalLayer, output=Tensor(
            name="input", shape=(None, 3), time_dim_axis=0, batch_dim_axis=1, placeholder=tf.constant(values),
            size_placeholder={0: tf.constant([4, 3])}))
        assert inp.output.is_time_major
        net.construct_from_dict({"output": {"class": "copy", "from": "input"}})
        out = net.get_default_output_layer().output
        np.testing.assert_array_equal(session.run(out.placeholder), values)


def test_recurrent_flag():
    with tf.Graph().as_default():
        net = TFNetwork(extern_data=ExternData({"data": {"dim": 3}}), config=Config())
        net.construct_from_dict({"output": {"class": "linear", "n_out": 2, "from": "data"}})
        assert not net.recurrent  # framewise layers only (as the reference)
        net.construct_from_dict({"rec": {"class": "rec", "unit": "lstm", "n_out": 2, "from": "data",
                                         "is_output_layer": True}})
        assert net.recurrent
    with tf.Graph().as_default():
        net = TFNetwork(extern_data=ExternData({"data": {"dim": 3}}), config=Config())
        net.construct_from_dict({"output": {"class": "conv", "filter_size": [3], "padding": "same", "n_out": 2,
                                            "from": "data"}})
        assert net.recurrent  # conv depends on neighbouring frames (as the reference)


def test_get_batch_info_dim_is_batch_size():
    with tf.Graph().as_default(), TF.Session() as session:
        extern_data = ExternData({"data": {"shape": (), "dtype": "float32"}})
        net = TFNetwork(extern_data=extern_data, config=Config())
        info = extern_data.get_batch_info()
        assert info is extern_data.get_batch_info()
        data = extern_data.data["data"].placeholder
        assert session.run(info.dim, feed_dict={data: [1.0, 2.0, 3.0]}) == 3
        # feeding it too, as the reference's tests do
        assert session.run(data * 2.0, feed_dict={data: [1.0, 2.0], info.dim: 2}).tolist() == [2.0, 4.0]
        assert net.extern_data is extern_data

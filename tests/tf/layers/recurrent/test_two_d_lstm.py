"""``twod_lstm`` needs the reference's native op, which this project does not build: one clear error."""

import pytest
import tensorflow as tf

from tf_net_helpers import build_net

from returnn.errors import LayerArgError

tf.compat.v1.disable_eager_execution()


def test_twod_lstm_names_the_missing_native_op(session):
    with pytest.raises(LayerArgError) as info:
        build_net({"output": {"class": "twod_lstm", "n_out": 4, "from": "data", "pooling": "max",
                              "unit_opts": {}, "forward_weights_init": "glorot_uniform"}})
    message = str(info.value)
    assert "layer 'output'" in message and "'TwoDLSTM'" in message and "native" in message
    assert tf.compat.v1.trainable_variables() == []


def test_twod_lstm_importable_from_rec_module():
    from returnn.tf.layers.rec import TwoDLSTMLayer
    assert TwoDLSTMLayer.layer_class == "twod_lstm"

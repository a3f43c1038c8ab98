"""conv's ``input_split_feature_dim``: the input's feature axis ``F`` split into ``(F / n, n)``, the first part a
spatial axis, the second the channels (values observed from the reference)."""

import numpy as np
import tensorflow as tf

from returnn.config import Config
from returnn.tf.network import TFNetwork

tf1 = tf.compat.v1


def test_conv_input_split_feature_dim_observed():
    with tf.Graph().as_default():
        net = TFNetwork(config=Config({"extern_data": {"data": {"dim": 6}}, "behavior_version": 12}), train_flag=False)
        net.construct_from_dict({"output": {
            "class": "conv", "from": "data", "filter_size": (3, 2), "n_out": 4, "padding": "same",
            "input_split_feature_dim": 2, "forward_weights_init": "random_normal_initializer(stddev=1.0)",
            "with_bias": False}})
        layer = net.get_default_output_layer()
        out = layer.output
        # observed: [B, T, 'feature_split_rem_3'(3), F 'output:channel'(4)], W [3, 2, 2, 4]
        assert [d.dimension for d in out.dims[2:]] == [3, 4]
        assert out.dims[2].description == "feature_split_rem_3"
        assert out.feature_dim_axis == 3
        assert layer.params["W"].shape.as_list() == [3, 2, 2, 4]
        with tf1.Session() as session:
            session.run(tf1.global_variables_initializer())
            data = net.extern_data.data["data"]
            x = np.random.RandomState(1).randn(2, 5, 6).astype("float32")
            y = session.run(out.placeholder, {data.placeholder: x, data.size_placeholder[0]: [5, 4]})
            weights = session.run(layer.params["W"])
        assert y.shape == (2, 5, 3, 4)
        # independent: the same convolution in numpy over (T, F / 2) with 2 channels, "same" padding
        xs = x.reshape(2, 5, 3, 2)
        padded = np.pad(xs, [(0, 0), (1, 1), (0, 1), (0, 0)])
        expected = np.zeros((2, 5, 3, 4), np.float32)
        for t in range(5):
            for f in range(3):
                expected[:, t, f] = np.einsum("bijc,ijco->bo", padded[:, t:t + 3, f:f + 2], weights)
        np.testing.assert_allclose(y, expected, rtol=1e-4, atol=1e-4)
        # observed in the reference for the same seeds: the sums of the output and of W
        np.testing.assert_allclose([y.sum(), weights.sum()], [-3.2881717681884766, -2.266674280166626], rtol=1e-5)

"""linear with ``in_dim`` of a non-feature static axis: that axis is contracted and replaced in place by the output
dim, the new feature axis (dims observed from the reference); values against numpy."""

import numpy
import tensorflow as tf

from returnn.config import Config
from returnn.tensor import FeatureDim, SpatialDim, batch_dim
from returnn.tf.network import TFNetwork


def test_linear_in_dim_spatial():
    time, spatial, feat, out = SpatialDim("time"), FeatureDim("s", 3), FeatureDim("f", 5), FeatureDim("out", 7)
    with tf.Graph().as_default(), tf.compat.v1.Session() as session:
        net = TFNetwork(config=Config({"extern_data": {"data": {"dim_tags": [batch_dim, time, spatial, feat]}}}))
        net.construct_from_dict({"output": {"class": "linear", "from": "data", "in_dim": spatial, "out_dim": out}})
        layer = net.get_default_output_layer()
        data = net.extern_data.get_data("data")
        assert layer.output.dims == (batch_dim, data.dims[1], out, data.dims[3])
        assert layer.output.feature_dim_axis == 2
        assert layer.params["W"].shape.as_list() == [3, 7]
        net.initialize_params(session)
        x = numpy.random.RandomState(0).normal(size=(2, 4, 3, 5)).astype("float32")
        y, w, b = session.run([layer.output.placeholder, layer.params["W"], layer.params["b"]],
                              feed_dict={data.placeholder: x, data.get_sequence_lengths(): [4, 4]})
        numpy.testing.assert_allclose(y, numpy.einsum("btsf,so->btof", x, w) + b[None, None, :, None], rtol=1e-5,
                                      atol=1e-5)

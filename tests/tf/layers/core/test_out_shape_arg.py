"""The common layer arg ``out_shape``: the output template must have exactly these dims (VerifyOutShapeException
otherwise), with the config's Dims of ``extern_data`` (as the reference, observed)."""

import pytest
import tensorflow as tf

from returnn.config import Config
from returnn.tensor import FeatureDim, ImplicitDynSizeDim, ImplicitSparseDim, SpatialDim, VerifyOutShapeException
from returnn.tensor import batch_dim
from returnn.tf.network import TFNetwork


def _net(extern_data):
    return TFNetwork(config=Config({"extern_data": extern_data}))


def test_out_shape_ok_and_wrong():
    time, feat = SpatialDim("time"), FeatureDim("feature", 10)
    extern = {"data": {"dim_tags": [batch_dim, time, feat]}}
    with tf.Graph().as_default():
        net = _net(extern)
        net.construct_from_dict({"output": {"class": "softmax_over_spatial", "from": "data",
                                            "out_shape": {batch_dim, time, feat}}})
    with tf.Graph().as_default():
        net = _net(extern)
        with pytest.raises(VerifyOutShapeException):
            net.construct_from_dict({"output": {"class": "softmax_over_spatial", "from": "data",
                                                "out_shape": {batch_dim, time, FeatureDim("other", 10)}}})


def test_out_shape_implicit_dims():
    time, feat, classes = SpatialDim("time"), FeatureDim("f", 3), FeatureDim("classes", 5)
    with tf.Graph().as_default():
        net = _net({"classes": {"dim_tags": [batch_dim, time], "sparse_dim": classes}})
        net.construct_from_dict({"a": {"class": "copy", "from": "data:classes", "is_output_layer": True,
                                       "out_shape": {batch_dim, time, ImplicitSparseDim(classes)}}})
        with pytest.raises(VerifyOutShapeException):  # the sparse dim is missing
            net.construct_from_dict({"b": {"class": "copy", "from": "data:classes", "is_output_layer": True,
                                           "out_shape": {batch_dim, time}}})
    with tf.Graph().as_default():
        net = _net({"data": {"dim_tags": [batch_dim, time, feat]}})
        net.construct_from_dict({"output": {"class": "reduce", "mode": "max", "axis": batch_dim, "from": "data",
                                            "out_shape": {time, feat, ImplicitDynSizeDim(batch_dim)}}})
        assert net.get_default_output_layer().output.dim_tags_set_implicit == {
            net.extern_data.get_data("data").dims[1], net.extern_data.get_data("data").dims[2], batch_dim}

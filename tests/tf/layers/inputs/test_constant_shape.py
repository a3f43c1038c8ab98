"""constant with ``shape``: the scalar value broadcast to the given dims (static, dynamic, batch)."""

import numpy
import pytest

from returnn.errors import LayerArgError
from returnn.tensor import FeatureDim, batch_dim
from tf_net_helpers import build_net


def test_constant_shape_broadcast(session):
    feat = FeatureDim("f", 2)
    net = build_net({"scalar": {"class": "constant", "value": True, "shape": (), "dtype": "bool",
                                "is_output_layer": True},
                     "output": {"class": "constant", "value": 1.5, "shape": [batch_dim, feat, 3]}},
                    {"data": {"dim": 4}})
    out = net.get_default_output_layer().output
    assert out.dims[0] == batch_dim and out.dims[1] == feat and out.dims[2].dimension == 3
    data = net.extern_data.get_data("data")
    value, scalar = session.run([out.placeholder, net.layers["scalar"].output.placeholder],
                                {data.placeholder: numpy.zeros((5, 1, 4)), data.get_sequence_lengths(): [1] * 5})
    numpy.testing.assert_array_equal(value, numpy.full((5, 2, 3), 1.5))
    assert scalar.shape == () and scalar


def test_constant_shape_needs_scalar():
    with pytest.raises(LayerArgError, match="scalar"):
        build_net({"output": {"class": "constant", "value": [1, 2], "shape": [2]}})


def test_constant_shape_deps_dynamic_dim(session):
    """shape_deps: layers built first; a dynamic dim of theirs in shape takes its maximum length."""
    from returnn.tensor import SpatialDim
    time = SpatialDim("time")
    net = build_net({"output": {"class": "constant", "value": 2, "shape": [batch_dim, time], "shape_deps": ["data"]}},
                    {"data": {"dim_tags": [batch_dim, time, FeatureDim("f", 3)]}})
    out = net.get_default_output_layer()
    assert [d.name for d in out.shape_deps] == ["data"]
    data = net.extern_data.get_data("data")
    value = session.run(out.output.placeholder, {data.placeholder: numpy.zeros((2, 4, 3)),
                                                 data.get_sequence_lengths(): [4, 2]})
    numpy.testing.assert_array_equal(value, numpy.full((2, 4), 2))


def test_constant_shape_batch_without_data_key(session):
    """The batch size comes from the extern data's batch, also when no key is called 'data' (the default input)."""
    from returnn.tensor import SpatialDim
    time = SpatialDim("phonemes_time")
    net = build_net({"output": {"class": "constant", "value": 0.5, "shape": [batch_dim, time, FeatureDim("e", 2)],
                                "shape_deps": ["data:phonemes"]}},
                    {"phonemes": {"dim_tags": [batch_dim, time], "dtype": "int32", "sparse_dim": FeatureDim("p", 5)}})
    phonemes = net.extern_data.get_data("phonemes")
    value = session.run(net.get_default_output_layer().output.placeholder,
                        {phonemes.placeholder: numpy.zeros((3, 4)), phonemes.get_sequence_lengths(): [4, 1, 2]})
    numpy.testing.assert_array_equal(value, numpy.full((3, 4, 2), 0.5))

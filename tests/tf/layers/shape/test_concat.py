"""concat: sources concatenated along one axis each (dims and values as observed from the reference, raw
concatenation with summed lengths for a dynamic axis)."""

import numpy
import pytest
import tensorflow as tf

from returnn.config import Config
from returnn.errors import LayerArgError, LayerShapeError
from returnn.tf.network import TFNetwork


def _net(extern_data, net_dict):
    net = TFNetwork(config=Config({"extern_data": extern_data}))
    net.construct_from_dict(net_dict)
    return net


def test_concat_time_and_feature(session):
    net = _net({"data": {"dim": 1}, "b": {"dim": 1}},
               {"output": {"class": "concat", "from": [("data", "T"), ("data:b", "T")]},
                "f": {"class": "concat", "from": [("data", "F"), ("data", "F")], "is_output_layer": True}})
    out, f = net.get_default_output_layer().output, net.layers["f"].output
    assert out.dims[1].description == "time:var:extern_data:data+time:var:extern_data:b"
    assert f.dims[2].description == "2*feature:data" and f.dim == 2 and f.feature_dim_axis == 2
    d, b = net.extern_data.get_data("data"), net.extern_data.get_data("b")
    x = numpy.arange(6, dtype="float32").reshape(2, 3, 1) + 1
    y = -numpy.arange(4, dtype="float32").reshape(2, 2, 1) - 1
    value, lens, f_value = session.run(
        [out.placeholder, out.get_sequence_lengths(), f.placeholder],
        {d.placeholder: x, d.get_sequence_lengths(): [3, 2], b.placeholder: y, b.get_sequence_lengths(): [2, 1]})
    numpy.testing.assert_array_equal(value, numpy.concatenate([x, y], axis=1))
    numpy.testing.assert_array_equal(lens, [5, 3])
    numpy.testing.assert_array_equal(f_value, numpy.concatenate([x, x], axis=2))


def test_concat_static_dims_is_the_dim_sum():
    """As the reference (observed): two concatenated static dims give their dim sum, the same Dim as ``a + b`` of
    the config (e.g. the axis of a reduce over it, made outside the graph)."""
    from returnn.tensor import FeatureDim, SpatialDim, batch_dim
    a, b, t = FeatureDim("a", 3), FeatureDim("b", 4), SpatialDim("t")
    with tf.Graph().as_default():
        net = _net({"x": {"dim_tags": (batch_dim, t, a)}, "y": {"dim_tags": (batch_dim, t, b)}},
                   {"c": {"class": "concat", "from": [("data:x", a), ("data:y", b)], "is_output_layer": True},
                    "d": {"class": "concat", "from": [("data:x", a), ("data:x", a)], "is_output_layer": True},
                    "output": {"class": "reduce", "mode": "sum", "from": "c", "axis": a + b}})
        assert net.layers["c"].output.dims[-1] is a + b
        assert net.layers["d"].output.dims[-1].description == "2*a"
        assert net.layers["output"].output.dims == (batch_dim, t)


def test_concat_errors():
    with tf.Graph().as_default():
        with pytest.raises(LayerArgError, match="pairs"):
            _net({"data": {"dim": 2}}, {"output": {"class": "concat", "from": ["data"]}})
    with tf.Graph().as_default():
        with pytest.raises(LayerShapeError, match="other dims"):
            _net({"data": {"dim": 2}, "b": {"dim": 3}}, {"output": {"class": "concat", "from": [("data", "T"),
                                                                                              ("data:b", "T")]}})


def test_concat_dim_is_the_sum_of_the_dims():
    # as the reference: the concatenated axis is ``a + b`` by dim arithmetic, so a config's ``a + b`` (made before
    # the network's graph) names it, e.g. as an axis; three sources give '(a+b)+c', three times the same '3*in'
    from returnn.tensor import FeatureDim, SpatialDim, batch_dim
    a, b, c, feat = SpatialDim("a", 1), SpatialDim("b", 2), SpatialDim("c", 3), FeatureDim("in", 2)
    a_plus_b = a + b
    with tf.Graph().as_default():
        extern = {"x": {"dim_tags": [batch_dim, a, feat]}, "y": {"dim_tags": [batch_dim, b, feat]},
                  "z": {"dim_tags": [batch_dim, c, feat]}}
        net = _net(extern, {
            "ab": {"class": "concat", "from": [("data:x", a), ("data:y", b)]},
            "abc": {"class": "concat", "from": [("data:x", a), ("data:y", b), ("data:z", c)], "is_output_layer": True},
            "fff": {"class": "concat", "from": [("data:x", feat)] * 3, "is_output_layer": True},
            "output": {"class": "reduce", "mode": "sum", "from": "ab", "axis": a_plus_b}})
        ab = net.layers["ab"].output
        assert ab.dims[1] == a_plus_b and ab.dims[1].dimension == 3
        assert net.get_default_output_layer().output.dims == (batch_dim, feat)
        assert net.layers["abc"].output.dims[1].description == "(a+b)+c"
        assert net.layers["fff"].output.dims[2].description == "3*in" and net.layers["fff"].output.dim == 6

"""split_dims: the ``-1`` part keeps the split axis's dim when the other parts are 1; Dims in ``dims``;
_resolve_dims (as the reference, observed)."""

import numpy
import pytest
import tensorflow as tf

from returnn.config import Config
from returnn.tensor import FeatureDim, SpatialDim, batch_dim
from returnn.tf.layers.basic import SplitDimsLayer
from returnn.tf.network import TFNetwork


def _out(extern, opts):
    net = TFNetwork(config=Config({"extern_data": extern}))
    net.construct_from_dict({"output": dict({"class": "split_dims", "from": "data"}, **opts)})
    return net, net.get_default_output_layer().output


@pytest.mark.parametrize("axis, dims, kept", [("T", (-1, 1), 1), ("T", (1, -1), 2), ("F", (-1, 1), 2),
                                              ("F", (1, -1), 3), ("F", (20, 1), None)])
def test_minus_one_part_keeps_the_dim(axis, dims, kept):
    with tf.Graph().as_default():
        net, out = _out({"data": {"dim": 20}}, {"axis": axis, "dims": dims})
        old = net.extern_data.get_data("data").dims[1 if axis == "T" else 2]
        assert [i for i, d in enumerate(out.dims) if d == old] == ([kept] if kept is not None else [])


def test_dims_given_as_dims(session):
    time, rem, window, feat = SpatialDim("in-time"), SpatialDim("rem"), FeatureDim("window", 2), FeatureDim("f", 3)
    net, out = _out({"data": {"dim_tags": [batch_dim, time, feat]}},
                    {"axis": time, "dims": [rem, window], "out_shape": {batch_dim, rem, window, feat}})
    data = net.extern_data.get_data("data")
    x = numpy.arange(2 * 5 * 3, dtype="float32").reshape(2, 5, 3)
    value, lens = session.run([out.placeholder, out.dims[1].dyn_size],
                              {data.placeholder: x, data.get_sequence_lengths(): [5, 3]})
    assert value.shape == (2, 3, 2, 3)
    numpy.testing.assert_array_equal(lens, [3, 2])
    numpy.testing.assert_array_equal(value[:, :2], x[:, :4].reshape(2, 2, 2, 3))


def test_resolve_dims():
    assert SplitDimsLayer._resolve_dims(old_dim=15, new_dims=(3, -1)) == (3, 5)
    assert SplitDimsLayer._resolve_dims(old_dim=30, new_dims=(2, 3, -1, 1)) == (2, 3, 5, 1)
    assert SplitDimsLayer._resolve_dims(old_dim=16, new_dims=(3, -1), pad_to_multiples=True) == (3, 6)
    with pytest.raises(ValueError):
        SplitDimsLayer._resolve_dims(old_dim=16, new_dims=(3, -1))


def test_split_off_the_batch_dim(session):
    """``dims=[batch_dim, time * 2]`` on an axis without batch (a flattened ``[B * 2T]``): the batch part takes the
    rest, the dynamic part its maximal length (as the reference: ``[B,T|'time*2'[B]]``, lengths ``2 * lens``)."""
    from returnn.tensor import Tensor
    from returnn.tf.layers.basic import InternalLayer
    net = TFNetwork(config=Config({"extern_data": {"data": {"dim": 3}}}))
    net.construct_from_dict({})
    data = net.extern_data.get_data("data")
    time2 = data.dims[1] * 2
    flat = Tensor(name="flat", dims=[SpatialDim("flat")], dtype="int32", batch_dim_axis=None)
    flat.placeholder = tf.range(tf.shape(data.placeholder)[0] * tf.shape(data.placeholder)[1] * 2)
    src = InternalLayer(name="flat", network=net, output=flat)
    opts = dict(name="output", network=net, sources=[src], axis="T", dims=[batch_dim, time2])
    out = SplitDimsLayer.get_out_data_from_opts(**opts)
    assert out.dims == (batch_dim, time2) and out.time_dim_axis == 1 and out.batch_dim_axis == 0
    layer = SplitDimsLayer(output=out, **opts)
    y, lens = session.run([layer.output.placeholder, layer.output.get_sequence_lengths()],
                          {data.placeholder: numpy.zeros((2, 4, 3), "float32"), data.size_placeholder[0]: [4, 3]})
    numpy.testing.assert_array_equal(y, numpy.arange(16).reshape(2, 8))
    assert lens.tolist() == [8, 6]

"""pad: mode "replication" (edge frames repeated), handle_dynamic_dims=False (raw padding), zero padding keeps the
axis's dim (as the reference's tests expect), out_dims names the padded axis."""

import numpy
import pytest

from returnn.errors import LayerArgError
from returnn.tensor import SpatialDim
from tf_net_helpers import build_net


def test_pad_replication_time_and_feature(session):
    for axes, padding in [("T", (2, 3)), ("F", (1, 2))]:
        net = build_net({"output": {"class": "pad", "axes": axes, "padding": padding, "mode": "replication",
                                    "handle_dynamic_dims": False, "from": "data"}}, {"data": {"dim": 4}})
        data = net.extern_data.get_data("data")
        x = numpy.arange(2 * 3 * 4, dtype="float32").reshape(2, 3, 4)
        out = session.run(net.get_default_output_layer().output.placeholder, {data.placeholder: x})
        axis = 1 if axes == "T" else 2
        numpy.testing.assert_array_equal(out, numpy.pad(x, [(0, 0)] * axis + [padding] + [(0, 0)] * (2 - axis),
                                                        mode="edge"))


def test_pad_zero_keeps_dim():
    net = build_net({"output": {"class": "pad", "axes": "T", "padding": [(0, 0)], "from": "data"}},
                    {"data": {"dim": 4}})
    assert net.get_default_output_layer().output.dims == net.extern_data.get_data("data").dims


def test_pad_out_dims_names_the_padded_axis(session):
    # as the reference: the padded axis is the given Dim, its lengths the input's plus the padding
    padded = SpatialDim("padded")
    net = build_net({"output": {"class": "pad", "axes": "T", "padding": (1, 2), "out_dims": padded, "from": "data"}},
                    {"data": {"dim": 4}})
    out = net.get_default_output_layer().output
    assert out.dims[out.time_dim_axis] is padded
    data = net.extern_data.get_data("data")
    lens = session.run(padded.dyn_size, {data.placeholder: numpy.zeros((2, 3, 4), "float32"),
                                         data.get_sequence_lengths(): [3, 1]})
    numpy.testing.assert_array_equal(lens, [6, 4])
    with pytest.raises(LayerArgError, match="out_dims"):
        build_net({"output": {"class": "pad", "axes": "T", "padding": 1, "out_dims": [padded, padded],
                              "from": "data"}}, {"data": {"dim": 4}})

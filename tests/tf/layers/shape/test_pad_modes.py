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


def test_pad_dims_are_dim_arithmetic(session):
    # as the reference (observed): the padded axis is `left + d + right` (a zero side left out), the same Dim object
    # for two layers with the same padding; a valid conv of filter 7 after a (3, 3) pad gives the input's time dim
    # back, and with it the input's own length tensor
    outs = {}
    for name, padding, axes in [("p33", (3, 3), "T"), ("p33b", (3, 3), "T"), ("p02", (0, 2), "T"), ("p20", (2, 0), "T"),
                                ("pf", (1, 2), "F")]:
        outs[name] = {"class": "pad", "axes": axes, "padding": padding, "from": "data", "is_output_layer": True}
    outs["conv"] = {"class": "conv", "from": "p33", "n_out": 4, "filter_size": (7,), "padding": "valid",
                    "is_output_layer": True}
    outs["output"] = {"class": "copy", "from": "data"}
    net = build_net(outs, {"data": {"dim": 4}})
    data = net.extern_data.get_data("data")
    time, feat = data.dims[1], data.dims[2]
    dim = {name: net.get_layer(name).output.dims[2 if name == "pf" else 1] for name in outs}
    assert dim["p33"] is dim["p33b"] and dim["p33"] == 3 + time + 3
    assert dim["p02"] == time + 2 and dim["p20"] == 2 + time
    assert dim["p02"].description.endswith("+2") and dim["p20"].description.startswith("2+")
    assert dim["pf"] == 1 + feat + 2 and dim["pf"].dimension == 7
    conv = net.get_layer("conv").output
    assert conv.dims[1] == time and conv.get_sequence_lengths() is data.get_sequence_lengths()
    lens = session.run(dim["p33"].dyn_size, {data.get_sequence_lengths(): [3, 1]})
    numpy.testing.assert_array_equal(lens, [9, 7])

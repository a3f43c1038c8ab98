"""pad: mode "replication" (edge frames repeated), handle_dynamic_dims=False (raw padding), zero padding keeps the
axis's dim (as the reference's tests expect)."""

import numpy

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

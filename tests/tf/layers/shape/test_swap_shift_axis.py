"""swap_axes and shift_axis: numpy references; dims (feature-axis marking, new shift dims, lengths) as observed
from the reference."""

import numpy as np
import pytest

from returnn.errors import LayerShapeError
from tf_net_helpers import build_net, make_feed

X = np.arange(2 * 3 * 6, dtype="float32").reshape(2, 3, 6)


def test_swap_axes_feature_marking(session):
    net = build_net({
        "a": {"class": "swap_axes", "axis1": "s:1", "axis2": "f", "from": "data:img", "is_output_layer": True},
        "b": {"class": "swap_axes", "axis1": "T", "axis2": "F", "from": "data:img", "is_output_layer": True},
        "c": {"class": "swap_axes", "axis1": "T", "axis2": "F", "from": "data:img2", "is_output_layer": True},
    }, {"data": {"dim": 2}, "img": {"shape": (None, 5, 2)}, "img2": {"shape": (None, 5, 2), "feature_dim_axis": 2}})
    # observed from the reference: a default feature axis stays the default (last non-batch non-time axis),
    # an explicit one follows its dim
    assert (net.get_layer("a").output.time_dim_axis, net.get_layer("a").output.feature_dim_axis) == (1, 3)
    assert (net.get_layer("b").output.time_dim_axis, net.get_layer("b").output.feature_dim_axis) == (3, 2)
    assert (net.get_layer("c").output.time_dim_axis, net.get_layer("c").output.feature_dim_axis) == (2, 1)
    x = np.random.RandomState(0).randn(2, 3, 5, 2).astype("float32")
    y = session.run(net.get_layer("a").output.placeholder,
                    feed_dict=make_feed(net, {"img": x}, {"img": [3, 2]}))
    np.testing.assert_array_equal(y, x.transpose(0, 1, 3, 2))


@pytest.mark.parametrize("opts, expected, lens", [
    ({"axis": "T", "amount": 1, "pad_value": 5.5},
     np.concatenate([np.full((2, 1, 6), 5.5, "float32"), X[:, :2]], axis=1), [3, 3]),
    ({"axis": "T", "amount": -1}, np.concatenate([X[:, 1:], np.zeros((2, 1, 6), "float32")], axis=1), [2, 1]),
    ({"axis": "T", "amount": -2, "pad": False}, X[:, 2:], [1, 0]),
    ({"axis": "T", "amount": 2, "pad": False}, X[:, :1], [1, 1]),
    ({"axis": "T", "amount": 1, "adjust_size_info": False},
     np.concatenate([np.zeros((2, 1, 6), "float32"), X[:, :2]], axis=1), [3, 2]),
    ({"axis": "F", "amount": 2, "pad": False}, X[..., :4], [3, 2]),
])
def test_shift_axis(session, opts, expected, lens):
    net = build_net({"output": {"class": "shift_axis", "from": "data", **opts}}, {"data": {"dim": 6}})
    out = net.get_layer("output").output
    y, sizes = session.run([out.placeholder, out.dims[1].dyn_size],
                           feed_dict=make_feed(net, {"data": X}, {"data": [3, 2]}))
    np.testing.assert_array_equal(y, expected)
    assert sizes.tolist() == lens
    changed = opts.get("adjust_size_info", True)
    axis = 1 if opts["axis"] == "T" else 2
    assert (out.dims[axis].description == "output_shift_axis") == changed


def test_shift_axis_static_pad_rejected(session):
    with pytest.raises(LayerShapeError, match="adjust_size_info"):
        build_net({"output": {"class": "shift_axis", "axis": "F", "amount": 1, "from": "data"}}, {"data": {"dim": 6}})


def test_shift_axis_more_than_the_length_pads_everything(session):
    """amount beyond the raw length (with pad, adjust_size_info=False): all padding, the raw length kept (as the
    reference)."""
    import numpy
    from tf_net_helpers import build_net
    for amount in [5, -5, 2]:
        net = build_net({"output": {"class": "shift_axis", "from": "data", "amount": amount, "pad": True, "axis": "T",
                                    "adjust_size_info": False}}, {"data": {"dim": 2}})
        x = numpy.arange(3 * 4 * 2, dtype="float32").reshape(3, 4, 2) + 1
        out = session.run(net.get_default_output_layer().output.placeholder,
                          {net.extern_data.get_data("data").placeholder: x})
        expected = numpy.zeros_like(x)
        if abs(amount) < 4:
            expected[:, amount:] = x[:, :-amount]
        numpy.testing.assert_array_equal(out, expected)

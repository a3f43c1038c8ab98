"""unflatten_nd: the flat time axis back into several time axes, values and dims as observed from the reference."""

import numpy as np
import pytest

from returnn.errors import LayerArgError
from tf_net_helpers import build_net


def _run(session, net, x, x_lens, sizes):
    data, size_data = net.extern_data.data["data"], net.extern_data.data["sizes"]
    out = net.get_default_output_layer().output
    feed = {data.placeholder: x, data.size_placeholder[0]: x_lens, size_data.placeholder: sizes,
            size_data.size_placeholder[0]: [len(s) for s in sizes]}
    return session.run([out.placeholder, out.size_placeholder[0], out.size_placeholder[1]], feed_dict=feed)


@pytest.mark.parametrize("with_feature", [False, True])
def test_unflatten_nd_values(session, with_feature):
    extern = {"data": {"shape": (None, 2) if with_feature else (None,), "dtype": "float32"},
              "sizes": {"shape": (None,), "dtype": "int32"}}
    net = build_net({"output": {"class": "unflatten_nd", "from": "data", "sizes": "data:sizes", "num_axes": 2}},
                    extern)
    out = net.get_default_output_layer().output
    if with_feature:  # observed from the reference
        assert repr(out) == ("Tensor{'output_output', [B,T|'output:unflatten-nd:0'[B],'output:unflatten-nd:1'[B],"
                             "F|F'feature:data'(2)]}")
    else:
        assert repr(out) == "Tensor{'output_output', [B,T|'output:unflatten-nd:0'[B],F|'output:unflatten-nd:1'[B]]}"
    x = np.arange(2 * 12 * 2, dtype="float32").reshape(2, 12, 2)
    if not with_feature:
        x = x[..., 0] / 2
    y, lens0, lens1 = _run(session, net, x, [12, 6], [[3, 4], [2, 3]])
    assert lens0.tolist() == [3, 2] and lens1.tolist() == [4, 3]
    assert y.shape[:3] == (2, 3, 4)
    for b, (n0, n1) in enumerate([(3, 4), (2, 3)]):
        np.testing.assert_array_equal(y[b, :n0, :n1], x[b, :n0 * n1].reshape((n0, n1) + x.shape[2:]))
    # padded frames hold the sequence's first value (observed from the reference: [[12 13 14 12] [15 16 17 12] ...])
    first = y[1, ..., 0] if with_feature else y[1]
    np.testing.assert_array_equal(first, (np.array([[12, 13, 14, 12], [15, 16, 17, 12], [12, 12, 12, 12]]) *
                                          (2 if with_feature else 1)))


def test_unflatten_nd_needs_num_axes():
    with pytest.raises(LayerArgError, match="num_axes"):
        build_net({"output": {"class": "unflatten_nd", "from": "data", "sizes": "data:sizes"}},
                  {"data": {"shape": (None,)}, "sizes": {"shape": (None,), "dtype": "int32"}})

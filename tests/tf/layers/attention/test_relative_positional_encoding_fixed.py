"""``relative_positional_encoding`` with ``fixed``: row ``k`` of the table is the sinusoid of position ``k`` (values
observed from the reference: n_out 5, clipping 16), whole sequence ``{T, T', F}`` and step by step in a rec loop
(``{1, i + 1, F}`` at step ``i``)."""

import numpy as np
import tensorflow as tf

from tf_net_helpers import build_net, make_feed

tf.compat.v1.disable_eager_execution()

# observed from the reference: out[0, j] for j = 0..2 (positions 16, 17, 18) and out[1, 0] (position 15)
REF_ROW0 = [[-0.2879033386707306, 0.0015999991446733475, -0.9576594829559326, 0.9999987483024597, 0.0],
            [-0.9613974690437317, 0.0016999989748001099, -0.27516335248947144, 0.9999985694885254, 0.0],
            [-0.7509872317314148, 0.001799998921342194, 0.6603167057037354, 0.9999983906745911, 0.0]]
REF_ROW1_0 = [0.6502878665924072, 0.001499999314546585, -0.7596879005432129, 0.9999988675117493, 0.0]


def _np_table_row(pos):
    return [np.sin(pos), np.sin(pos * 1e-4), np.cos(pos), np.cos(pos * 1e-4), 0.]


def test_fixed_values_as_reference(session):
    net = build_net({"output": {"class": "relative_positional_encoding", "from": "data", "n_out": 5, "fixed": True}},
                    extern_data={"data": {"dim": 5}})
    x = np.zeros((2, 7, 5), "float32")
    out = session.run(net.get_layer("output").output.placeholder, make_feed(net, {"data": x}, {"data": [7, 7]}))
    assert out.shape == (7, 7, 5)
    np.testing.assert_allclose(out[0, :3], REF_ROW0, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(out[1, 0], REF_ROW1_0, rtol=1e-6, atol=1e-7)
    for i in range(7):
        for j in range(7):
            np.testing.assert_allclose(out[i, j], _np_table_row(j - i + 16), rtol=1e-5, atol=1e-6)


def test_fixed_in_rec_loop_rows_so_far(session):
    """inside a loop, step i: {1, i + 1, F}, the whole-sequence row i up to column i"""
    net = build_net({"output": {"class": "rec", "from": "data", "unit": {
        "pos_enc": {"class": "relative_positional_encoding", "from": "data:source", "n_out": 5, "fixed": True},
        "sum": {"class": "reduce", "mode": "sum", "axis": "stag:pos_enc:key-time", "from": "pos_enc"},
        "output": {"class": "copy", "from": "data:source"}, "sums": {"class": "copy", "from": "sum",
                                                                     "is_output_layer": True}}}},
        extern_data={"data": {"dim": 5}})
    cell = net.get_layer("output").cell
    tmpl = cell.layers["pos_enc"].output
    assert tmpl.batch_shape == (1, None, 5)

"""window: the raw layout from ``behavior_version`` 18 on (window axis, windowed axis, the other axes in their
order), with dims and values observed from the reference."""

import numpy as np
import pytest

from returnn.util.basic import BehaviorVersion
import tensorflow as tf

from tf_net_helpers import build_net, make_feed

SRC = np.array([[1, 2, 3, 4, 5], [6, 7, 8, 9, 10], [11, 12, 13, 14, 15]], "int32")
EXTERN = {"data": {"dim": 4}, "s": {"shape": (None,), "sparse": True, "dim": 20}}


@pytest.fixture(autouse=True)
def _reset_behavior_version():
    BehaviorVersion._reset()
    yield
    BehaviorVersion._reset()


def test_window_valid_layout_and_values_behavior_version_18(session):
    BehaviorVersion.set(18)
    net = build_net({"output": {"class": "window", "from": "data:s", "window_size": 3, "padding": "valid"}}, EXTERN)
    out = net.layers["output"].output
    s_time = net.extern_data.data["s"].dims[1]
    assert [d.description for d in out.dims] == ["output:window", out.dims[1].description, "global batch"]
    assert out.dims[0].dimension == 3 and out.dims[2].is_batch_dim() and out.time_dim_axis == 1
    s = net.extern_data.data["s"]
    y, lens = session.run([out.placeholder, out.get_sequence_lengths()],
                          {s.placeholder: SRC, s.size_placeholder[0]: [5, 3, 1]})
    assert s_time != out.dims[1]
    # observed from the reference: [W, T', B]
    assert y.tolist() == [[[1, 6, 11], [2, 7, 12], [3, 8, 13]], [[2, 7, 12], [3, 8, 13], [4, 9, 14]],
                          [[3, 8, 13], [4, 9, 14], [5, 10, 15]]]
    assert lens.tolist() == [3, 1, 0]


def test_window_same_values_behavior_version_18(session):
    BehaviorVersion.set(18)
    net = build_net({"output": {"class": "window", "from": "data:s", "window_size": 3}}, EXTERN)
    out = net.layers["output"].output
    s = net.extern_data.data["s"]
    assert out.dims[1] is s.dims[1]
    y, lens = session.run([out.placeholder, out.get_sequence_lengths()],
                          {s.placeholder: SRC, s.size_placeholder[0]: [5, 3, 1]})
    assert y.tolist() == [  # observed from the reference
        [[0, 0, 0], [1, 6, 11], [2, 7, 12], [3, 8, 13], [4, 9, 14]],
        [[1, 6, 11], [2, 7, 12], [3, 8, 13], [4, 9, 14], [5, 10, 15]],
        [[2, 7, 12], [3, 8, 13], [4, 9, 14], [5, 10, 15], [0, 0, 0]]]
    assert lens.tolist() == [5, 3, 1]


@pytest.mark.parametrize("version, axis, dims_repr", [  # observed from the reference
    (17, "T", "[B,T|'time:var:extern_data:data'[B],'output:window'(3),F|F'feature:data'(4)]"),
    (18, "T", "['output:window'(3),T|'time:var:extern_data:data'[B],B,F|F'feature:data'(4)]"),
    (18, "F", "['output:window'(3),F|F'feature:data'(4),B,T|'time:var:extern_data:data'[B]]"),
])
def test_window_template_by_behavior_version(session, version, axis, dims_repr):
    BehaviorVersion.set(version)
    net = build_net({"output": {"class": "window", "from": "data", "window_size": 3, "axis": axis}}, EXTERN)
    assert net.layers["output"].output.get_dims_repr() == dims_repr


def test_window_of_concatenated_time_major_and_batch_major_sources(session):
    """``from`` a time-major layer (rec) and a batch-major one: the windows of the concatenation (numpy), as the
    reference's onlineblstm setup uses it"""
    net = build_net({"lstm": {"class": "rec", "unit": "lstm", "n_out": 2, "from": "data"},
                     "output": {"class": "window", "window_size": 3, "window_right": 2, "from": ["lstm", "data"]}},
                    extern_data={"data": {"dim": 3}})
    session.run(tf.compat.v1.global_variables_initializer())
    x = np.random.RandomState(1).uniform(-1, 1, (2, 4, 3)).astype("float32")
    out = net.get_layer("output").output.copy_as_batch_major()
    out = out.copy_move_axis(out.get_axis_from_description("stag:window"), 2)
    y, lstm = session.run([out.placeholder, net.get_layer("lstm").output.copy_as_batch_major().placeholder],
                          make_feed(net, {"data": x}, {"data": [4, 4]}))
    full = np.concatenate([lstm, x], axis=-1)  # [B, T, 5]
    padded = np.pad(full, [(0, 0), (0, 2), (0, 0)])
    expected = np.stack([padded[:, w:w + 4] for w in range(3)], axis=2)  # [B, T, W, 5]
    np.testing.assert_allclose(y, expected, rtol=1e-6)

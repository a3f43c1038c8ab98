"""Every layer gives the same valid frames for batch-major and time-major input with variable sequence lengths
(padding filled with garbage that must not leak), and takes a gradient step in both layouts."""

import numpy as np
import pytest
import tensorflow as tf

from tf_net_helpers import build_net, forward_and_grad_step, make_feed

RND = np.random.RandomState(11)
X = RND.randn(3, 6, 4).astype("float32")
LENS = np.array([6, 2, 4])
GARBAGE = np.where((np.arange(6)[None, :] < LENS[:, None])[:, :, None], X, 1e3).astype("float32")

CASES = {
    "linear": {"class": "linear", "n_out": 3, "activation": "tanh"},
    "softmax": {"class": "softmax", "n_out": 3},
    "copy": {"class": "copy"},
    "activation": {"class": "activation", "activation": "relu"},
    "dropout": {"class": "dropout", "dropout": 0.3},
    "combine": {"class": "combine", "kind": "mul", "from": ["data", "data"]},
    "eval": {"class": "eval", "eval": "source(0) * 3 - 1"},
    "compare": {"class": "compare", "kind": "less", "value": 0.5},
    "cast": {"class": "cast", "dtype": "int32"},
    "switch": {"class": "switch", "condition": "c", "true_from": "data", "false_from": 0.0},
    "reduce": {"class": "reduce", "mode": "mean", "axes": "T"},
    "slice": {"class": "slice", "axis": "T", "slice_start": 1, "slice_end": -1},
    "split_dims": {"class": "split_dims", "axis": "F", "dims": (2, 2)},
    "merge_dims": {"class": "merge_dims", "axes": "static", "from": "s"},
    "expand_dims": {"class": "expand_dims", "axis": "F"},
    "squeeze": {"class": "squeeze", "axis": "auto", "from": "e"},
    "transpose": {"class": "transpose", "perm": {"T": "F", "F": "T"}},
    "length": {"class": "length"},
    "postfix_in_time": {"class": "postfix_in_time", "postfix": 0.5, "repeat": 2},
    "prefix_in_time": {"class": "prefix_in_time", "prefix": 0.5},
    "window": {"class": "window", "window_size": 3},
    "gather": {"class": "gather", "axis": "F", "position": 2},
    "pad": {"class": "pad", "axes": "T", "padding": (2, 1)},
    "layer_norm": {"class": "layer_norm"},
    "batch_norm": {"class": "batch_norm"},
    "conv": {"class": "conv", "filter_size": (3,), "n_out": 2, "padding": "same", "with_bias": True},
    "pool": {"class": "pool", "mode": "max", "pool_size": (2,), "padding": "same"},
    "subnetwork": {"class": "subnetwork", "subnetwork": {"output": {"class": "linear", "n_out": 2, "from": "data"}}},
    "reinterpret_data": {"class": "reinterpret_data", "enforce_batch_major": True},
    "constant": {"class": "combine", "kind": "add", "from": ["data", "k"]},
}
HELPERS = {"c": {"class": "compare", "kind": "greater", "value": 0.0, "from": "data"},
           "s": {"class": "split_dims", "axis": "F", "dims": (2, 2), "from": "data"},
           "e": {"class": "expand_dims", "axis": "F", "from": "data"},
           "k": {"class": "constant", "value": 1.5}}


def _valid_batch_major(session, net, feed):
    out = net.layers["output"].output
    bm = out.copy_as_batch_major()
    value = session.run(bm.placeholder, feed)
    if bm.time_dim_axis is None or bm.time_dim.dimension is not None:
        return [value[b] for b in range(value.shape[0])]
    lens = session.run(bm.get_sequence_lengths(), feed)
    t_axis = bm.time_dim_axis - 1  # per-sequence slice (batch axis removed)
    return [np.take(value[b], np.arange(n), axis=t_axis) for b, n in enumerate(lens)]


@pytest.mark.parametrize("name", sorted(CASES))
def test_batch_major_equals_time_major(name):
    results = []
    for time_major in (False, True):
        with tf.Graph().as_default(), tf.compat.v1.Session() as session:
            layer = dict(CASES[name])
            layer.setdefault("from", "data")
            net_dict = {"output": layer}
            net_dict.update({k: v for k, v in HELPERS.items() if k in str(layer.get("from")) or k == layer.get("condition")})
            net = build_net(net_dict, {"data": {"dim": 4, **({"batch_dim_axis": 1} if time_major else {})}},
                            train_flag=False)
            feed = make_feed(net, {"data": GARBAGE.transpose(1, 0, 2) if time_major else GARBAGE}, {"data": LENS})
            forward_and_grad_step(session, net, feed)
            session.run(tf.compat.v1.global_variables_initializer())
            results.append(_valid_batch_major(session, net, feed))
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
        # window reads the padded frames next to a sequence's end, as the reference's (observed)
        if name not in ("transpose", "window") and a.dtype.kind == "f" and a.size:
            assert np.abs(a).max() < 100, "padding leaked into valid frames"

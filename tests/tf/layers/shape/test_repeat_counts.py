"""repeat with per-frame counts from a layer (durations), and repeat's out_dim of a spatial axis: numpy references;
names as observed from the reference."""

import numpy as np
import pytest

from returnn.errors import LayerArgError
from returnn.tensor import FeatureDim, SpatialDim, batch_dim
from tf_net_helpers import build_net

X = np.arange(2 * 3 * 2, dtype="float32").reshape(2, 3, 2)  # [B, T, F]
DUR = np.array([[1, 2, 0], [3, 1, 5]], dtype="int32")  # the 5 is past the second sequence's length
LENS = np.array([3, 2], dtype="int32")


def _extern():
    time_dim, feat_dim = SpatialDim("time"), FeatureDim("feat", 2)
    return {"data": {"dim_tags": [batch_dim, time_dim, feat_dim]},
            "dur": {"dim_tags": [batch_dim, time_dim], "dtype": "int32"}}


def _numpy_repeat():
    seqs = [np.repeat(X[b, :LENS[b]], DUR[b, :LENS[b]], axis=0) for b in range(2)]
    out = np.zeros((2, max(len(s) for s in seqs), 2), "float32")
    for b, s in enumerate(seqs):
        out[b, :len(s)] = s
    return out, [len(s) for s in seqs]


def _feed(net):
    data, dur = net.extern_data.data["data"], net.extern_data.data["dur"]
    return {data.placeholder: X, dur.placeholder: DUR, data.get_sequence_lengths(): LENS}


def test_repeat_by_durations_layer(session):
    net = build_net({"output": {"class": "repeat", "from": "data", "repetitions": "data:dur", "axis": "T"}},
                    _extern())
    out = net.get_default_output_layer().output
    assert out.dims[1].description == "repeated:output"  # as the reference's 'repeated:<layer name>'
    assert (out.batch_dim_axis, out.time_dim_axis, out.feature_dim_axis) == (0, 1, 2)
    assert net.get_layer("data:dur") in net.get_default_output_layer().get_dep_layers()
    y, lens = session.run([out.placeholder, out.get_sequence_lengths()], feed_dict=_feed(net))
    expected, expected_lens = _numpy_repeat()
    np.testing.assert_array_equal(y, expected)
    assert lens.tolist() == expected_lens == [3, 4]


def test_repeat_by_durations_layer_out_dim_gets_the_lengths(session):
    speech = SpatialDim("speech")
    net = build_net({"output": {"class": "repeat", "from": "data", "repetitions": "data:dur", "axis": "T",
                                "out_dim": speech}}, _extern())
    out = net.get_default_output_layer().output
    assert out.dims[1] is speech
    lens = session.run(speech.dyn_size, feed_dict=_feed(net))
    assert lens.tolist() == [3, 4]


def test_repeat_counts_without_a_matching_axis(session):
    with pytest.raises(LayerArgError, match="per-frame counts"):
        build_net({"c": {"class": "constant", "value": 2, "shape": [FeatureDim("four", 4)], "dtype": "int32"},
                   "output": {"class": "repeat", "from": "data", "repetitions": "c", "axis": "T"}}, _extern())


def test_repeat_int_out_dim_of_the_spatial_axis(session):
    """A config's ``time_dim * 5`` as out_dim (a spatial axis of an output with a feature axis) names the output's
    axis, as in the reference."""
    extern = _extern()
    time_dim = extern["data"]["dim_tags"][1]
    out_time = time_dim * 5
    net = build_net({"output": {"class": "repeat", "from": "data", "repetitions": 5, "axis": time_dim,
                                "out_dim": out_time, "out_shape": {batch_dim, out_time, extern["data"]["dim_tags"][2]}}},
                    extern)
    out = net.get_default_output_layer().output
    in_time = net.extern_data.data["data"].get_time_dim_tag()
    assert out.dims[1] == in_time * 5
    lens = session.run(out.get_sequence_lengths(), feed_dict=_feed(net))
    assert lens.tolist() == [15, 10]

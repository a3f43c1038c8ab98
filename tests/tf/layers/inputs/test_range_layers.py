"""range, range_in_axis, range_from_length, train_flag, global_train_step: dims as observed from the reference."""

import numpy as np
import pytest

from returnn.errors import LayerArgError
from tf_net_helpers import build_net, make_feed


def test_range_layers(session):
    net = build_net({
        "rg": {"class": "range", "start": -2, "limit": 3, "delta": 2, "is_output_layer": True},
        "ria": {"class": "range_in_axis", "from": "data", "axis": "T", "sparse": True, "is_output_layer": True},
        "ria2": {"class": "range_in_axis", "from": "data", "axis": "F", "dtype": "float32", "is_output_layer": True},
        "len": {"class": "length", "from": "data"},
        "rfl": {"class": "range_from_length", "from": "len", "is_output_layer": True},
        "tf": {"class": "train_flag", "is_output_layer": True},
        "gs": {"class": "global_train_step", "is_output_layer": True},
    }, {"data": {"dim": 3}}, train_flag=False)
    # observed from the reference
    assert repr(net.get_layer("rg").output) == "Tensor{'rg_output', [F|'rg:range'(3)], dtype='int32'}"
    time_dim = net.extern_data.data["data"].dims[1]
    assert net.get_layer("ria").output.sparse_dim is time_dim and net.get_layer("ria").output.time_dim_axis == 0
    assert net.get_layer("ria2").output.feature_dim_axis == 0
    assert net.get_layer("rfl").output.dims[0] is time_dim
    assert net.get_layer("tf").output.dtype == "bool" and net.get_layer("gs").output.dtype == "int64"
    import tensorflow as tf
    session.run(tf.compat.v1.global_variables_initializer())
    feed = make_feed(net, {"data": np.zeros((2, 4, 3), "float32")}, {"data": [4, 2]})
    rg, ria, ria2, rfl, flag, step = session.run(
        [net.get_layer(n).output.placeholder for n in ("rg", "ria", "ria2", "rfl", "tf", "gs")], feed_dict=feed)
    assert rg.tolist() == [-2, 0, 2] and ria.tolist() == [0, 1, 2, 3] and ria2.tolist() == [0.0, 1.0, 2.0]
    assert rfl.tolist() == [0, 1, 2, 3] and not flag and step == 0


def test_range_in_axis_rejects_keepdims(session):
    with pytest.raises(LayerArgError) as info:
        build_net({"output": {"class": "range_in_axis", "from": "data", "axis": "T", "keepdims": True}},
                  {"data": {"dim": 3}})
    assert info.value.arg == "keepdims"

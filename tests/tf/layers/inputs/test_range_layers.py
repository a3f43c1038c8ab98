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


def test_length_of_batch_and_static_axes_is_a_scalar(session):
    """As the reference (observed): the length of the batch axis is the batch size, of a static axis its size,
    both int32 scalars; a dynamic axis gives the lengths [B]."""
    import numpy
    from returnn.tensor import batch_dim
    from tf_net_helpers import build_net
    net = build_net({"b": {"class": "length", "from": "data", "axis": batch_dim, "is_output_layer": True},
                     "s": {"class": "length", "from": "data", "axis": "dim:4", "is_output_layer": True},
                     "t": {"class": "length", "from": "data", "axis": "T", "is_output_layer": True}},
                    {"data": {"shape": (None, 4, 3)}})
    assert [net.layers[k].output.batch_shape for k in "bst"] == [(), (), (None,)]
    data = net.extern_data.get_data("data")
    values = session.run([net.layers[k].output.placeholder for k in "bst"],
                         {data.placeholder: numpy.zeros((2, 5, 4, 3)), data.get_sequence_lengths(): [5, 3]})
    assert values[0] == 2 and values[1] == 4 and list(values[2]) == [5, 3]

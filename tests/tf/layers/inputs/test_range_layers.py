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


def _generic_dim_net(net_dict):
    from returnn.tensor import FeatureDim, SpatialDim, batch_dim
    time_dim = SpatialDim("time")
    plus2 = time_dim + 2  # computed from the config's dim: the network's copy + 2, as the reference's
    return build_net(net_dict(plus2), {"data": {"dim_tags": [batch_dim, time_dim, FeatureDim("feat", 3)]}})


def test_length_and_range_in_axis_of_a_dim_computed_from_the_input(session):
    net = _generic_dim_net(lambda d: {"len": {"class": "length", "from": "data", "axis": d, "is_output_layer": True},
                                      "ria": {"class": "range_in_axis", "from": "data", "axis": d,
                                              "is_output_layer": True}})
    data = net.extern_data.get_data("data")
    ria = net.get_layer("ria").output
    assert ria.dims == (data.get_time_dim_tag() + 2,) and ria.time_dim_axis == 0
    lens, rng = session.run([net.get_layer("len").output.placeholder, ria.placeholder],
                            make_feed(net, {"data": np.zeros((2, 4, 3), "float32")}, {"data": [4, 2]}))
    assert lens.tolist() == [6, 4] and rng.tolist() == list(range(6))


def test_length_of_a_static_sparse_dim(session):
    """As the reference (observed): the size as a scalar; ``sparse`` gives a new dynamic sparse dim."""
    from returnn.tensor import FeatureDim, batch_dim
    feat_dim = FeatureDim("feat", 3)
    net = build_net({"output": {"class": "length", "from": "data", "axis": feat_dim, "sparse": True},
                     "dense": {"class": "length", "from": "data", "axis": feat_dim, "is_output_layer": True}},
                    {"data": {"dim_tags": [batch_dim], "sparse_dim": feat_dim}})
    out = net.get_default_output_layer().output
    assert repr(out) == ("Tensor{'output_static_dim', [], dtype='int32', "
                         "sparse_dim=Dim{F'output_static_dim:sparse-dim'[?]}}")
    assert not net.get_layer("dense").output.sparse
    assert session.run(out.placeholder) == 3


def test_range_from_length_over_batch(session):
    """The length of the batch axis gives the batch axis, as the reference."""
    from returnn.tensor import batch_dim
    net = build_net({"batch_len": {"class": "length", "axis": "B", "from": "data"},
                     "output": {"class": "range_from_length", "from": "batch_len"}}, {"data": {"dim": 3}})
    out = net.get_default_output_layer().output
    assert out.dims == (batch_dim,) and out.time_dim_axis is None
    assert net.get_layer("batch_len").output.name == "batch_len_batch_dim"  # as the reference
    assert batch_dim.dyn_size is None  # the batch size is no length of the global batch dim
    v = session.run(out.placeholder, make_feed(net, {"data": np.zeros((3, 2, 3), "float32")}, {"data": [2, 1, 2]}))
    assert v.tolist() == [0, 1, 2]

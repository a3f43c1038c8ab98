"""The Dims of a config's ``extern_data`` (``dim_tags``/``sparse_dim``) are the very axes of the networks' extern
data and layer outputs, as in the reference (observed: ``layer.output.dims[1] is time_dim``, the name ``'time'``
kept); each graph gets its own lengths placeholders."""

import numpy as np
import tensorflow as tf

from returnn.config import Config
from returnn.tensor import Dim, Tensor, batch_dim
from returnn.tf.network import TFNetwork
from returnn.tf.util.data import FeatureDim, SpatialDim


def _config(time_dim, feat_dim, classes_dim=None):
    extern = {"data": {"dim_tags": [batch_dim, time_dim, feat_dim]}}
    if classes_dim is not None:
        extern["classes"] = {"dim_tags": [batch_dim, time_dim], "sparse_dim": classes_dim}
    return Config({"extern_data": extern})


def test_outputs_hold_the_config_dims_in_each_of_two_graphs():
    time_dim, feat_dim, out_dim = SpatialDim("time"), FeatureDim("in", 3), FeatureDim("out", 4)
    classes_dim = FeatureDim("classes", 5)
    config = _config(time_dim, feat_dim, classes_dim)
    for _ in range(2):
        with tf.Graph().as_default() as graph, tf.compat.v1.Session(graph=graph) as session:
            net = TFNetwork(config=config)
            net.construct_from_dict({"output": {"class": "linear", "from": "data", "out_dim": out_dim},
                                     "c": {"class": "copy", "from": "data:classes", "is_output_layer": True}})
            out = net.get_default_output_layer().output
            assert out.dims[1] is time_dim and out.dims[2] is out_dim
            assert net.get_layer("c").output.sparse_dim is classes_dim
            data = net.extern_data.data["data"]
            assert data.dims[1] is time_dim and data.dims[2] is feat_dim
            # the user's name is kept (the reference renames only the dims the entry made itself)
            assert repr(data) == "Tensor{'data', [B,T|'time'[B],F|F'in'(3)]}"
            lengths = data.get_sequence_lengths()
            assert lengths.graph is graph  # not the previous graph's placeholder
            assert net.extern_data.data["classes"].get_sequence_lengths() is lengths  # one dim, one lengths
            session.run(tf.compat.v1.global_variables_initializer())
            y = session.run(out.placeholder, feed_dict={data.placeholder: np.ones((2, 3, 3), "float32"),
                                                        lengths: [3, 2]})
            assert y.shape == (2, 3, 4)


def test_two_networks_in_one_graph_share_the_lengths():
    time_dim, feat_dim = SpatialDim("time"), FeatureDim("in", 3)
    config = _config(time_dim, feat_dim)
    with tf.Graph().as_default():
        net1 = TFNetwork(config=config, name="n1")
        net1.construct_from_dict({"output": {"class": "copy", "from": "data"}})
        net2 = TFNetwork(config=config, name="n2")
        net2.construct_from_dict({"output": {"class": "copy", "from": "data"}})
        lengths1 = net1.extern_data.data["data"].get_sequence_lengths()
        assert net2.extern_data.data["data"].get_sequence_lengths() is lengths1
        assert net1.extern_data.data["data"].placeholder is not net2.extern_data.data["data"].placeholder


def test_same_dim_tags_as_with_a_dim_that_is_an_axis_elsewhere():
    time_dim, feat_dim = SpatialDim("time"), FeatureDim("in", 3)
    config = Config({"extern_data": {"data": {"dim_tags": [batch_dim, time_dim, feat_dim]},
                                     "classes": {"dim": 5, "sparse": True, "same_dim_tags_as": {"t": time_dim}}}})
    with tf.Graph().as_default():
        net = TFNetwork(config=config)
        classes = net.extern_data.data["classes"]
        assert classes.dims[1] == time_dim
        assert classes.get_sequence_lengths() is net.extern_data.data["data"].get_sequence_lengths()


def test_scalar_lengths_dim_gets_a_scalar_placeholder():
    # Dim(Tensor) as the reference: a dynamic dim named after the tensor, with one length for the whole batch
    time_dim = Dim(Tensor("time", dims=(), dtype="int32"))
    config = Config({"extern_data": {"data": {"dim_tags": (batch_dim, time_dim, Dim(2, name="in")),
                                              "time_dim_axis": 1}}})
    with tf.Graph().as_default() as graph, tf.compat.v1.Session(graph=graph) as session:
        net = TFNetwork(config=config, train_flag=True)
        net.construct_from_dict({"output": {"class": "batch_norm", "from": "data", "masked_time": True}})
        data = net.extern_data.data["data"]
        assert repr(data) == "Tensor{'data', [B,T|'time'[],F|'in'(2)]}"  # observed from the reference
        assert data.get_sequence_lengths().shape.as_list() == []
        session.run(tf.compat.v1.global_variables_initializer())
        x = np.arange(2 * 4 * 2, dtype="float32").reshape(2, 4, 2)
        y = session.run(net.get_default_output_layer().output.placeholder,
                        feed_dict={data.placeholder: x, data.get_sequence_lengths(): 3})
        valid = x[:, :3]  # the frames within the length, of all sequences
        expected = (x - valid.mean(axis=(0, 1))) / np.sqrt(valid.var(axis=(0, 1)) + 1e-5)
        np.testing.assert_allclose(y[:, :3], expected[:, :3], rtol=1e-3, atol=1e-3)


def test_config_dims_pickle_after_a_network_used_them():
    import pickle
    time_dim, feat_dim = SpatialDim("time"), FeatureDim("in", 3)
    config = _config(time_dim, feat_dim)
    with tf.Graph().as_default():
        net = TFNetwork(config=config)
        net.construct_from_dict({"output": {"class": "copy", "from": "data"}})
        assert time_dim.dyn_size is not None
    dims = pickle.loads(pickle.dumps(config.typed_dict["extern_data"]["data"]["dim_tags"]))  # no graph tensors in it
    assert dims[0] is batch_dim and dims[1] != time_dim and dims[1].dyn_size is None and dims[2].dimension == 3


def test_extern_data_of_dicts_shares_same_dim_tags_as():
    """``ExternData({...})`` of dicts: two entries declaring their time axis the same Dim have one time dim (as with
    the config's extern_data); the masked_computation reference test relies on it."""
    from returnn.tensor import SpatialDim
    from returnn.tf.network import ExternData
    with tf.Graph().as_default():
        tag = SpatialDim("time")
        extern = ExternData({"data": {"dim": 20, "sparse": True, "same_dim_tags_as": {"t": tag}},
                             "mask": {"dim": 2, "dtype": "bool", "sparse": True, "same_dim_tags_as": {"t": tag}}})
        assert extern.data["data"].get_time_dim_tag() == extern.data["mask"].get_time_dim_tag()
        other = ExternData({"data": {"dim": 3}, "other": {"dim": 3}})
        assert other.data["data"].get_time_dim_tag() != other.data["other"].get_time_dim_tag()


def test_static_batch_dim_gives_static_shapes_and_an_int_batch():
    """A batch dim of a fixed size (``Dim(kind=Dim.Types.Batch, dimension=2)``): the placeholders, the lengths
    placeholder and the batch info are static in it (the batch info's size the int), as the reference (observed)."""
    static_batch = Dim(kind=Dim.Types.Batch, description="static-batch", dimension=2)
    time_dim, feat_dim, hidden = SpatialDim("time"), FeatureDim("in", 3), FeatureDim("hidden", 4)
    config = Config({"extern_data": {"data": {"dim_tags": (static_batch, time_dim, feat_dim)}}})
    with tf.Graph().as_default() as graph, tf.compat.v1.Session(graph=graph) as session:
        net = TFNetwork(config=config)
        net.construct_from_dict({"output": {"class": "rec", "unit": "lstm", "from": "data", "out_dim": hidden}})
        data = net.extern_data.get_default_input_data()
        assert data.placeholder.shape.as_list() == [2, None, 3]
        assert data.dims[1].dyn_size.shape.as_list() == [2]
        assert data.batch.dim == 2
        out = net.get_default_output_layer().output
        assert out.placeholder.shape.as_list() == [None, 2, 4]
        session.run(tf.compat.v1.global_variables_initializer())
        y = session.run(out.placeholder, {data.placeholder: np.ones((2, 5, 3)), data.dims[1].dyn_size: [5, 3]})
        assert y.shape == (5, 2, 4) and not y[3:, 1].any()  # frames past a sequence's end are zero


def test_rec_layer_loops_over_the_given_axis():
    """``axis``: the dim the rec layer loops over, for an input without a time axis (``time_dim_axis`` None)."""
    time_dim, feat_dim, hidden = SpatialDim("time", 4), FeatureDim("in", 3), FeatureDim("hidden", 2)
    config = Config({"extern_data": {"data": {"dim_tags": (batch_dim, time_dim, feat_dim), "time_dim_axis": None}}})
    with tf.Graph().as_default() as graph, tf.compat.v1.Session(graph=graph) as session:
        net = TFNetwork(config=config)
        net.construct_from_dict({"output": {"class": "rec", "unit": "lstm", "from": "data", "out_dim": hidden,
                                            "axis": time_dim}})
        data = net.extern_data.get_default_input_data()
        assert data.time_dim_axis is None
        layer = net.get_default_output_layer()
        assert layer.time_dim_tag == time_dim and layer.output.dims[0] == time_dim
        session.run(tf.compat.v1.global_variables_initializer())
        x = np.random.RandomState(1).normal(size=(3, 4, 3))
        y = session.run(layer.output.placeholder, {data.placeholder: x})
        # a step only depends on the frames before it: the first two outputs of a cut input are the same
        y2 = session.run(layer.output.placeholder, {data.placeholder: np.concatenate([x[:, :2], 0 * x[:, 2:]], 1)})
        np.testing.assert_allclose(y[:2], y2[:2], rtol=1e-6)
        assert y.shape == (4, 3, 2) and not np.allclose(y[3], y2[3])


def test_same_dim_tags_as_only_dim_equals_the_axis_in_each_network():
    """A Dim that only ``same_dim_tags_as`` names equals the extern data's axis (observed in the reference:
    ``time_dim == data.dim_tags[1]``, the axis named ``'time:var:extern_data:data'``), in a second network too; a
    layer's output over it contains it."""
    time_dim = SpatialDim("time_dim")
    config = Config({"extern_data": {"data": {"dim": 3, "same_dim_tags_as": {"T": time_dim}}}})
    for _ in range(2):
        with tf.Graph().as_default():
            net = TFNetwork(config=config)
            net.construct_from_dict({"output": {"class": "reduce", "mode": "max", "axis": time_dim, "from": "data"}})
            data = net.extern_data.get_default_input_data()
            assert repr(data.dims[1]) == "Dim{'time:var:extern_data:data'[B]}"
            assert time_dim == data.dims[1] and time_dim != data.dims[2]
            assert net.get_default_output_layer().output.dims == (data.dims[0], data.dims[2])


def test_a_dim_the_user_declared_the_same_is_not_re_pointed():
    other = SpatialDim("other")
    time_dim = SpatialDim("time_dim")
    time_dim.declare_same_as(other)
    config = Config({"extern_data": {"data": {"dim": 3, "same_dim_tags_as": {"T": time_dim}}}})
    with tf.Graph().as_default():
        TFNetwork(config=config)
        assert time_dim.same_as is other


def test_global_batch_dim_value_is_the_batch_size_of_the_latest_network():
    """``batch_dim.get_dim_value()`` after a network with ``batch_dim`` in its extern data: that network's batch size
    (as the reference, observed), also for a second network in another graph."""
    config = _config(SpatialDim("time"), FeatureDim("in", 3))
    for n_batch in (2, 4):
        with tf.Graph().as_default() as graph, tf.compat.v1.Session(graph=graph) as session:
            net = TFNetwork(config=config)
            data = net.extern_data.get_default_input_data()
            value = batch_dim.get_dim_value()
            assert value.graph is graph
            feed = {data.placeholder: np.zeros((n_batch, 5, 3), "float32"), data.get_sequence_lengths(): [5] * n_batch}
            assert session.run(value, feed_dict=feed) == n_batch

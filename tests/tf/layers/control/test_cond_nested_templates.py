"""A ``cond`` branch's templates: sub layers of inner layers (``"top_k/indices"``), layer-valued ``random``
bounds, and dims of the config in ``out_shape`` (cases of the reference's own tests, behaviour observed there)."""

import numpy as np
import tensorflow as tf

from returnn.config import Config
from returnn.tf.network import TFNetwork
from returnn.tf.util.data import SpatialDim, FeatureDim, batch_dim

tf.compat.v1.disable_eager_execution()


def _net(extern_dims, net_dict, train_flag=False):
    config = Config({"extern_data": {"data": {"dim_tags": extern_dims}}})
    net = TFNetwork(config=config, train_flag=train_flag)
    net.construct_from_dict(net_dict)
    return net


def _cond_dict(branch):
    return {"c": {"class": "constant", "value": True, "dtype": "bool"},
            "output": {"class": "cond", "from": [], "condition": "c", "true_layer": branch,
                       "false_layer": {"class": "copy", "from": "data"}}}


def test_branch_subnetwork_reads_sub_layer_of_inner_top_k():
    time_dim, feat_dim, k_dim = SpatialDim("time"), FeatureDim("feat", 5), SpatialDim("k")
    branch = {"class": "subnetwork", "from": [], "subnetwork": {
        "top_k": {"class": "top_k", "from": "base:data", "axis": feat_dim, "k": 2, "k_dim": k_dim},
        "idx": {"class": "cast", "from": "top_k/indices", "dtype": "float32"},
        "output": {"class": "reduce", "from": "idx", "mode": "sum", "axis": k_dim, "keep_dims": True}}}
    with tf.Graph().as_default(), tf.compat.v1.Session() as session:
        net = _net((batch_dim, time_dim, feat_dim), dict(_cond_dict(branch), output={
            **_cond_dict(branch)["output"], "false_layer": {"class": "copy", "from": "base_out"}},
            base_out={"class": "reduce", "from": "data", "mode": "sum", "axis": feat_dim, "keep_dims": True}))
        x = np.array([[[0.0, 4.0, 1.0, 3.0, 2.0]]], "float32")
        out = net.get_layer("output").output
        y = session.run(out.placeholder, feed_dict={net.extern_data.data["data"].placeholder: x,
                                                    net.extern_data.data["data"].get_sequence_lengths(): [1]})
        assert y.flatten().tolist() == [1.0 + 3.0]  # indices of the two largest values 4 and 3


def test_combine_of_two_declared_time_dims_keeps_both():
    # as observed in the reference: [B,time,F] * [B,ceil(extra_time/2),F] -> [B,time,ceil(extra_time/2),F]
    time_dim, input_dim, extra_time_dim = SpatialDim("time"), FeatureDim("input", 3), SpatialDim("extra_time")
    with tf.Graph().as_default():
        net = _net((batch_dim, time_dim, input_dim), {
            "new_dim": {"class": "reinterpret_data", "from": "data", "set_dim_tags": {time_dim: extra_time_dim}},
            "pool": {"class": "pool", "from": "new_dim", "mode": "max", "padding": "same", "pool_size": [2]},
            "combine": {"class": "combine", "from": ["data", "pool"], "kind": "mul"},
            "output": {"class": "combine", "from": ["data", "pool"], "kind": "mul",
                       "out_shape": {batch_dim, time_dim, extra_time_dim.ceildiv_right(2), input_dim}}})
        for name in ("combine", "output"):  # without and with out_shape: the same
            out = net.get_layer(name).output
            assert out.dims == (batch_dim, time_dim, extra_time_dim.ceildiv_right(2), input_dim)


def test_random_bounds_from_layers():
    time_dim, feat_dim = SpatialDim("time"), FeatureDim("feat", 2)
    with tf.Graph().as_default(), tf.compat.v1.Session() as session:
        net = _net((batch_dim, time_dim, feat_dim), {
            "lo": {"class": "constant", "value": 5},
            "hi": {"class": "constant", "value": 8},
            "output": {"class": "random", "shape": (batch_dim, feat_dim), "distribution": "uniform",
                       "minval": "lo", "maxval": "hi", "dtype": "int32"}})
        layer = net.get_layer("output")
        assert {dep.name for dep in layer.get_dep_layers()} >= {"lo", "hi"}
        y = session.run(layer.output.placeholder, feed_dict={
            net.extern_data.data["data"].placeholder: np.zeros((50, 1, 2), "float32"),
            net.extern_data.data["data"].get_sequence_lengths(): [1] * 50})
        assert y.shape == (50, 2) and y.min() >= 5 and y.max() <= 7 and len(set(y.flatten())) == 3

"""Layouts and graph names of the attention layers as observed from the reference: ``self_attention`` batch-major
with ``'<name>_self_att_feat'`` and its keys as ``'<layer>/qkv_1:1'`` ``[B, H, T, K/H]``;
``relative_positional_encoding`` with query/key dims and ``query_offset`` (against numpy); a ``dot`` of static
axes keeping an input's time axis; ``constant`` with an int ``shape``; ``Tensor.size_dtype``."""

import numpy as np
import tensorflow as tf

from tf_net_helpers import build_net, make_feed

from returnn.tensor import Dim, Tensor, batch_dim

tf.compat.v1.disable_eager_execution()


def test_self_attention_batch_major_and_keys_name(session):
    net = build_net({"tm": {"class": "rec", "unit": "lstm", "n_out": 4, "from": "data"},
                     "output": {"class": "self_attention", "from": "tm", "num_heads": 2, "total_key_dim": 4,
                                "n_out": 6}}, train_flag=False)
    out = net.get_layer("output").output
    assert out.batch_dim_axis == 0 and out.time_dim_axis == 1  # input time-major {T, B, F}
    assert out.dims[2].description == "output_self_att_feat" and out.dims[2].dimension == 6
    session.run(tf.compat.v1.global_variables_initializer())
    x = np.random.RandomState(1).uniform(-1, 1, size=(2, 3, 3)).astype("float32")
    feed = make_feed(net, {"data": x}, {"data": [3, 2]})
    keys, tm, qkv_w = session.run([session.graph.get_tensor_by_name("output/qkv_1:1"),
                                   net.get_layer("tm").output.copy_as_batch_major().placeholder,
                                   net.get_layer("output").params["QKV"]], feed_dict=feed)
    qkv = (tm @ qkv_w).reshape(2, 3, 2, 2 + 2 + 3)  # columns grouped by head: q, k, v of each
    np.testing.assert_allclose(keys, qkv[..., 2:4].transpose(0, 2, 1, 3), rtol=1e-5, atol=1e-6)


def test_rel_pos_encoding_query_offset(session):
    query_dim, window_dim = Dim(2, name="query"), Dim(5, name="window")
    feat = Dim(3, name="enc")
    net = build_net({"output": {"class": "relative_positional_encoding", "from": "data", "clipping": 2,
                                "out_dim": feat, "query_spatial_dim": query_dim, "key_value_spatial_dim": window_dim,
                                "query_offset": 3}},
                    extern_data={"data": {"dims": (batch_dim, window_dim, Dim(4, name="in")), "time_dim_axis": 1}})
    out = net.get_layer("output").output
    assert out.dims == (query_dim, window_dim, feat) and out.time_dim_axis is None  # as the reference
    session.run(tf.compat.v1.global_variables_initializer())
    y, table = session.run([out.placeholder, net.get_layer("output").params["encoding_matrix"]],
                           feed_dict=make_feed(net, {"data": np.zeros((1, 5, 4), "float32")}, {"data": []}))
    rel = np.arange(5)[None, :] - (np.arange(2)[:, None] + 3)
    np.testing.assert_allclose(y, table[np.clip(rel, -2, 2) + 2])


def test_dot_over_static_axes_keeps_time_axis(session):
    w_dim, q_dim, k_dim = Dim(4, name="w"), Dim(3, name="q"), Dim(2, name="k")
    net = build_net({"output": {"class": "dot", "from": ["data:a", "data:b"], "reduce": k_dim, "var1": "auto",
                                "var2": "auto"}},
                    extern_data={"a": {"dims": (batch_dim, w_dim, k_dim), "time_dim_axis": 1},
                                 "b": {"dims": (batch_dim, q_dim, k_dim), "time_dim_axis": 1}})
    out = net.get_layer("output").output
    assert out.dims == (batch_dim, w_dim, q_dim) and out.time_dim_axis == 1 and out.feature_dim_axis == 2


def test_constant_int_shape_last_is_feature():
    with tf.Graph().as_default():
        net = build_net({"output": {"class": "constant", "value": 0.0, "shape": [batch_dim, 2, 3]}})
        out = net.get_layer("output").output
        assert [d.description for d in out.dims[1:]] == ["output_const:static:1", "output_const:static:2"]
        assert out.feature_dim_axis == 2 and out.dims[2].is_feature_dim() and not out.dims[1].is_feature_dim()


def test_size_dtype_is_a_class_attribute():
    assert Tensor.size_dtype == "int32"
    assert np.array([3, 1], dtype=Tensor.size_dtype).dtype == np.int32

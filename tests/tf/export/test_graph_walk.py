"""returnn.tf.export.graph_walk: the ops a fetch needs (data and control inputs), the layer an op belongs to."""

import tensorflow as tf

from returnn.tf.export.graph_walk import needed_ops, owner_layer


def test_needed_ops_follows_data_and_control_inputs_only():
    graph = tf.Graph()
    with graph.as_default():
        a = tf.compat.v1.placeholder(tf.float32, name="a")
        b = tf.compat.v1.placeholder(tf.float32, name="b")
        unused = tf.compat.v1.placeholder(tf.float32, name="unused")
        side = tf.identity(b, name="side")
        with tf.control_dependencies([side]):
            out = tf.add(a, 1.0, name="out")
        tf.identity(unused, name="other")
    assert sorted(op.name for op in needed_ops([out])) == ["a", "b", "out", "out/y", "side"]


def test_owner_layer_is_the_longest_enclosing_name_scope():
    names = ["enc", "enc_ctx", "output", "output/prob"]
    assert owner_layer("enc_ctx/MatMul", names) == "enc_ctx"
    assert owner_layer("enc/rec/while/Enter", names) == "enc"
    assert owner_layer("output/prob/Softmax", names) == "output/prob"
    assert owner_layer("output", names) == "output"
    assert owner_layer("extern_data/placeholders/data/data", names) is None

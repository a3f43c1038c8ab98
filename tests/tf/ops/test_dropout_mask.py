"""returnn.tf.ops.dropout.apply_dropout: a shared mask multiplied in gives tf.nn.dropout's values with fewer kernels."""

import numpy
import tensorflow as tf

from returnn.tensor import Tensor
from returnn.tf.ops.dropout import apply_dropout


def _data(x):
    data = Tensor(name="x", shape=(None, 8), batch_dim_axis=0, time_dim_axis=1, feature_dim_axis=2)
    data.placeholder = x
    return data


def test_shared_mask_same_values_as_tf_dropout_and_gradient():
    x = numpy.random.RandomState(1).normal(size=(3, 5, 8)).astype("float32")
    with tf.Graph().as_default() as graph, tf.compat.v1.Session() as session:
        xs = tf.constant(x)
        out = apply_dropout(_data(xs), 0.3, train_flag=True, seed=7)  # default: shared over batch and time
        want = tf.nn.dropout(xs, rate=0.3, noise_shape=[1, 1, 8], seed=7)
        grad, = tf.gradients(tf.reduce_sum(out * 2.0), [xs])
        got, ref, got_grad = session.run([out, want, grad])
        selects = [op for op in graph.get_operations() if op.type == "SelectV2" and "gradients" not in op.name]
    numpy.testing.assert_array_equal(got, ref)
    kept = (got != 0)[0, 0]  # one mask for all frames
    assert 0 < kept.sum() < 8
    numpy.testing.assert_array_equal(got, numpy.where(kept, x * numpy.float32(1.0 / 0.7), 0.0).astype("float32"))
    numpy.testing.assert_allclose(got_grad, numpy.broadcast_to(numpy.where(kept, 2.0 / 0.7, 0.0), x.shape), rtol=1e-6)
    assert len(selects) == 1  # only tf.nn.dropout's (the reference value above)


def test_unshared_mask_is_tf_dropout():
    x = numpy.ones((2, 4, 8), "float32")
    with tf.Graph().as_default(), tf.compat.v1.Session() as session:
        xs = tf.constant(x)
        out = apply_dropout(_data(xs), 0.5, train_flag=True, noise_shape={"*": None}, seed=3)
        want = tf.nn.dropout(xs, rate=0.5, seed=3)
        got, ref = session.run([out, want])
    numpy.testing.assert_array_equal(got, ref)
    assert len(numpy.unique(got[:, :, 0])) == 2  # independent per frame

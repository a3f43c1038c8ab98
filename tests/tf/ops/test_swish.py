"""returnn.tf.ops.activations.swish: tf.nn.swish's values, the derivative of x * sigmoid(x), fewer gradient kernels."""

import numpy
import tensorflow as tf

from returnn.tf.ops.activations import get_activation_function, swish


def test_swish_values_grad_and_kernels():
    x = numpy.linspace(-6.0, 6.0, 25).astype("float32")
    assert get_activation_function("swish") is swish and get_activation_function("silu") is swish
    with tf.Graph().as_default() as graph, tf.compat.v1.Session() as session:
        xs = tf.constant(x)
        n_before = len(graph.get_operations())
        grad, = tf.gradients(tf.reduce_sum(swish(xs)), [xs])
        ours_ops = len(graph.get_operations()) - n_before
        n_before = len(graph.get_operations())
        tf_grad, = tf.gradients(tf.reduce_sum(tf.nn.swish(xs)), [xs])
        tf_ops = len(graph.get_operations()) - n_before
        got, want, got_grad, want_grad = session.run([swish(xs), tf.nn.swish(xs), grad, tf_grad])
    numpy.testing.assert_array_equal(got, want)
    s = 1.0 / (1.0 + numpy.exp(-x.astype("float64")))
    numpy.testing.assert_allclose(got_grad, s * (1 + x * (1 - s)), rtol=1e-5, atol=1e-6)
    numpy.testing.assert_allclose(got_grad, want_grad, rtol=1e-5, atol=1e-6)
    assert ours_ops < tf_ops, (ours_ops, tf_ops)

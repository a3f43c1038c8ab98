"""returnn.tf.ops.layer_norm: values of the plain expression, gradients in closed form against numpy's."""

import numpy
import pytest
import tensorflow as tf

from returnn.tf.ops.layer_norm import layer_norm


def _numpy_layer_norm(x, scale, bias, axis, eps):
    mean = x.mean(axis=axis, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axis, keepdims=True)
    shape = [1] * x.ndim
    shape[axis] = -1
    return (x - mean) / numpy.sqrt(var + eps) * scale.reshape(shape) + bias.reshape(shape)


def _numeric_grads(x, scale, bias, g, axis, eps, delta=1e-4):
    """Central differences of sum(g * layer_norm(...)) in float64, per input."""
    grads = []
    args = [x, scale, bias]
    for i, arr in enumerate(args):
        grad = numpy.zeros_like(arr)
        it = numpy.nditer(arr, flags=["multi_index"])
        for _ in it:
            idx = it.multi_index
            plus = [a.copy() for a in args]
            minus = [a.copy() for a in args]
            plus[i][idx] += delta
            minus[i][idx] -= delta
            grad[idx] = ((g * _numpy_layer_norm(*plus, axis, eps)).sum()
                         - (g * _numpy_layer_norm(*minus, axis, eps)).sum()) / (2 * delta)
        grads.append(grad)
    return grads


@pytest.mark.parametrize("axis", [2, 1])
def test_layer_norm_values_and_grads(axis):
    rng = numpy.random.RandomState(3)
    shape = (2, 3, 4)
    f = shape[axis]
    x = rng.normal(size=shape) * 2.0 + 0.5
    scale = rng.normal(size=(f,))
    bias = rng.normal(size=(f,))
    g = rng.normal(size=shape)
    eps = 1e-6
    with tf.Graph().as_default(), tf.compat.v1.Session() as session:
        xs, ss, bs = (tf.constant(a, tf.float64) for a in (x, scale, bias))
        out = layer_norm(xs, ss, bs, axis=axis, epsilon=eps)
        grads = tf.gradients(tf.reduce_sum(out * tf.constant(g, tf.float64)), [xs, ss, bs])
        got, got_grads = session.run([out, grads])
    numpy.testing.assert_allclose(got, _numpy_layer_norm(x, scale, bias, axis, eps), rtol=1e-10, atol=1e-10)
    for got_g, want_g in zip(got_grads, _numeric_grads(x, scale, bias, g, axis, eps)):
        numpy.testing.assert_allclose(got_g, want_g, rtol=1e-5, atol=1e-6)


def test_layer_norm_float32_same_values_as_plain_expression():
    """The forward ops are the plain expression's: bit-identical float32 values."""
    rng = numpy.random.RandomState(5)
    x = rng.normal(size=(3, 5, 16)).astype("float32")
    scale, bias = rng.normal(size=(2, 16)).astype("float32")
    with tf.Graph().as_default(), tf.compat.v1.Session() as session:
        xs = tf.constant(x)
        centered = xs - tf.reduce_mean(xs, axis=[2], keepdims=True)
        var = tf.reduce_mean(centered * centered, axis=[2], keepdims=True)
        plain = centered * tf.math.rsqrt(var + 1e-6) * scale + bias
        ours = layer_norm(xs, tf.constant(scale), tf.constant(bias), axis=2, epsilon=1e-6)
        a, b = session.run([ours, plain])
    numpy.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("shape", [(2, 3, 8), (7, 16)])
def test_layer_norm_float32_grads_equal_float64(shape):
    """Float32 over the last axis (the gradient's scale/bias part through one FusedBatchNormGradV3): the gradients
    of x, scale and bias equal the float64 closed form's within float32 rounding."""
    rng = numpy.random.RandomState(7)
    f = shape[-1]
    x = rng.normal(size=shape) * 3.0 - 1.0
    scale, bias = rng.normal(size=(2, f))
    g = rng.normal(size=shape)
    results = {}
    for dtype in (tf.float32, tf.float64):
        with tf.Graph().as_default() as graph, tf.compat.v1.Session() as session:
            xs, ss, bs = (tf.constant(a, dtype) for a in (x, scale, bias))
            out = layer_norm(xs, ss, bs, axis=len(shape) - 1, epsilon=1e-6)
            grads = tf.gradients(out, [xs, ss, bs], grad_ys=tf.constant(g, dtype))
            results[dtype] = session.run(grads)
            if dtype == tf.float32:
                assert any(op.type == "FusedBatchNormGradV3" for op in graph.get_operations())
    for got, want in zip(results[tf.float32], results[tf.float64]):
        assert got.dtype == numpy.float32 and got.shape == want.shape
        numpy.testing.assert_allclose(got, want, rtol=1e-4, atol=2e-5)
    # d scale and d bias also against plain numpy sums
    mean = x.mean(axis=-1, keepdims=True)
    y = (x - mean) / numpy.sqrt(((x - mean) ** 2).mean(axis=-1, keepdims=True) + 1e-6)
    axes = tuple(range(len(shape) - 1))
    numpy.testing.assert_allclose(results[tf.float32][1], (g * y).sum(axis=axes), rtol=1e-4, atol=2e-5)
    numpy.testing.assert_allclose(results[tf.float32][2], g.sum(axis=axes), rtol=1e-4, atol=2e-5)

"""returnn.tf.util.basic (legacy TFUtil) shape helpers against numpy and values observed from the reference."""

import numpy as np
import pytest
import tensorflow as tf

from returnn.errors import ReturnnError
from returnn.tf.util import basic as tf_util

tf1 = tf.compat.v1


def test_get_shape_static_ints_dynamic_tensors(session):
    x = tf1.placeholder(tf.float32, (None, 3))
    shape = tf_util.get_shape(x)
    assert shape[1] == 3 and isinstance(shape[1], int)
    assert isinstance(shape[0], tf.Tensor)
    assert session.run(shape[0], {x: np.zeros((5, 3))}) == 5
    assert tf_util.get_shape(tf.zeros((2, 4))) == [2, 4]


def test_get_shape_dim(session):
    assert tf_util.get_shape_dim(tf.zeros((2, 3)), 1) == 3
    assert tf_util.get_shape_dim(tf.zeros((2, 3)), -1) == 3
    x = tf1.placeholder(tf.float32, (None, None))
    assert session.run(tf_util.get_shape_dim(x, 1), {x: np.zeros((2, 7))}) == 7


def test_check_input_dim(session):
    x = tf.zeros((2, 3))
    assert tf_util.check_input_dim(x, 1, 3) is x  # decided statically: x itself, as the reference
    with pytest.raises(AssertionError) as exc:  # the reference raises AssertionError here
        tf_util.check_input_dim(x, 1, 4)
    assert isinstance(exc.value, ReturnnError) and "expected 4" in str(exc.value)
    y = tf1.placeholder(tf.float32, (None, None))
    checked = tf_util.check_input_dim(y, 1, tf.constant(4))  # a tensor dim: checked when run
    assert session.run(checked, {y: np.ones((1, 4))}).shape == (1, 4)
    with pytest.raises(tf.errors.InvalidArgumentError):
        session.run(checked, {y: np.ones((1, 3))})


def test_check_shape_equal(session):
    x = tf.zeros((2, 3))
    assert tf_util.check_shape_equal(x, x * 2) is x
    with pytest.raises(AssertionError, match=r"rank of .* \(2, 3\) differs from .* \(2, 3, 1\)"):
        tf_util.check_shape_equal(x, tf.zeros((2, 3, 1)))
    with pytest.raises(AssertionError, match=r"axis 1: .* \(2, 3\) vs .* \(2, 4\)"):
        tf_util.check_shape_equal(x, tf.zeros((2, 4)))
    y = tf1.placeholder(tf.float32, (None, None))
    checked = tf_util.check_shape_equal(x, y)
    session.run(checked, {y: np.ones((2, 3))})
    with pytest.raises(tf.errors.InvalidArgumentError):
        session.run(checked, {y: np.ones((1, 4))})


def test_expand_dims_unbroadcast(session):
    v = np.array([1, 2], np.int32)
    np.testing.assert_array_equal(session.run(tf_util.expand_dims_unbroadcast(v, axis=0, dim=3)), np.tile(v, (3, 1)))
    np.testing.assert_array_equal(session.run(tf_util.expand_dims_unbroadcast(v, axis=-1, dim=2)), [[1, 1], [2, 2]])
    out = session.run(tf_util.expand_dims_unbroadcast(tf.constant([[1, 2]]), axis=1, dim=tf.constant(3)))
    np.testing.assert_array_equal(out, [[[1, 2]] * 3])


def test_expand_multiple_dims_sequential_as_expand_dims(session):
    # each axis refers to the shape after the previous insertions (observed: (2,) with (0, 2, -1) -> (1, 2, 1, 1))
    assert tf_util.expand_multiple_dims(tf.zeros((2,)), (0, 2, -1)).shape.as_list() == [1, 2, 1, 1]
    assert tf_util.expand_multiple_dims(tf.zeros((2, 3)), (1, -2)).shape.as_list() == [2, 1, 1, 3]


def test_move_axis_and_swapaxes(session):
    x = np.arange(24).reshape(2, 3, 4)
    np.testing.assert_array_equal(session.run(tf_util.move_axis(x, 0, 2)), np.moveaxis(x, 0, 2))
    np.testing.assert_array_equal(session.run(tf_util.move_axis(x, -1, 0)), np.moveaxis(x, -1, 0))
    np.testing.assert_array_equal(session.run(tf_util.swapaxes(x, -1, 0)), np.swapaxes(x, -1, 0))


def test_to_int32_64(session):
    assert tf_util.to_int32_64(tf.constant([1], tf.int8)).dtype == tf.int32
    assert tf_util.to_int32_64(tf.constant([1], tf.uint8)).dtype == tf.int32
    x64 = tf.constant([1], tf.int64)
    assert tf_util.to_int32_64(x64) is x64
    with pytest.raises(AssertionError, match="expected an integer tensor.*float32"):
        tf_util.to_int32_64(tf.constant([1.0]))


def test_tile_transposed_repeats_in_place(session):
    x = np.array([[1, 2], [3, 4]], np.int32)
    np.testing.assert_array_equal(session.run(tf_util.tile_transposed(x, axis=0, multiples=3)),
                                  np.repeat(x, 3, axis=0))
    np.testing.assert_array_equal(session.run(tf_util.tile_transposed(x, axis=1, multiples=2)),
                                  np.repeat(x, 2, axis=1))
    np.testing.assert_array_equal(session.run(tf_util.tile_transposed(tf.constant([5, 6]), 0, tf.constant(2))),
                                  [5, 5, 6, 6])
    assert tf_util.tile_transposed(tf1.placeholder(tf.int32, (None, 2)), 1, 3).shape.as_list() == [None, 6]
    with pytest.raises(AssertionError, match="axis -1 out of range"):  # negative axis: rejected, as the reference
        tf_util.tile_transposed(x, axis=-1, multiples=2)

"""Slicing/padding/windowing helpers of returnn.tf.util.basic against numpy and values observed from the reference."""

import numpy as np
import pytest
import tensorflow as tf

from returnn.tf.util import basic as tf_util

tf1 = tf.compat.v1


def test_single_strided_slice_static_and_dynamic_axis(session):
    x = np.arange(24).reshape(2, 3, 4)
    for axis in (0, 1, 2, -1):
        for begin, end, step in [(1, None, None), (None, 2, None), (0, 4, 2), (None, None, -1)]:
            index = [slice(None)] * 3
            index[axis] = slice(begin, end, step)
            expected = x[tuple(index)]
            got = session.run(tf_util.single_strided_slice(x, axis=axis, begin=begin, end=end, step=step))
            np.testing.assert_array_equal(got, expected)
            axis_ph = tf1.placeholder(tf.int32, ())
            got = session.run(tf_util.single_strided_slice(tf.constant(x), axis=axis_ph, begin=begin, end=end,
                                                           step=step), {axis_ph: axis})
            np.testing.assert_array_equal(got, expected)


def test_slice_pad_zeros_observed(session):
    x = tf.constant([1, 2, 3, 4])
    # values observed from the reference
    assert session.run(tf_util.slice_pad_zeros(x, begin=1, end=3)).tolist() == [2, 3]
    assert session.run(tf_util.slice_pad_zeros(x, begin=-2, end=2)).tolist() == [0, 0, 1, 2]
    assert session.run(tf_util.slice_pad_zeros(x, begin=-2, end=6)).tolist() == [0, 0, 1, 2, 3, 4, 0, 0]
    assert session.run(tf_util.slice_pad_zeros(x, begin=-5, end=-2)).tolist() == [0, 0, 0]
    assert session.run(tf_util.slice_pad_zeros(x, begin=5, end=7)).tolist() == [0, 0]
    x2 = np.arange(6).reshape(2, 3)
    got = session.run(tf_util.slice_pad_zeros(x2, begin=-1, end=2, axis=1))
    np.testing.assert_array_equal(got, np.pad(x2, [(0, 0), (1, 0)])[:, :3])


def test_circular_pad_like_numpy_wrap(session):
    x = np.arange(6).reshape(2, 3)
    np.testing.assert_array_equal(session.run(tf_util.circular_pad(x, paddings=1)), np.pad(x, 1, mode="wrap"))
    got = session.run(tf_util.circular_pad(x, paddings=((1, 0), (2, 1)), axes=(0, 1)))
    np.testing.assert_array_equal(got, np.pad(x, ((1, 0), (2, 1)), mode="wrap"))
    x3 = np.arange(24).reshape(2, 3, 4)
    got = session.run(tf_util.circular_pad(x3, paddings=(1, 2), axes=(1, 2)))
    np.testing.assert_array_equal(got, np.pad(x3, ((0, 0), (1, 1), (2, 2)), mode="wrap"))


def _naive_slice_nd(x, start, size):
    out = np.zeros((x.shape[0], size) + x.shape[2:], dtype=x.dtype)
    for b, s in enumerate(start):
        part = x[b, s:s + size]
        out[b, :len(part)] = part
    return out


def test_slice_nd_against_numpy(session):
    rng = np.random.RandomState(3)
    x = rng.randn(4, 6, 2).astype(np.float32)
    start = np.array([0, 3, 5, 6], np.int32)
    got = tf_util.slice_nd(tf.constant(x), start=start, size=3)
    assert got.shape.as_list() == [4, 3, 2]
    np.testing.assert_array_equal(session.run(got), _naive_slice_nd(x, start, 3))
    # observed from the reference: 2-D input
    assert session.run(tf_util.slice_nd(tf.reshape(tf.range(10), (2, 5)), start=tf.constant([1, 4]), size=3)
                       ).tolist() == [[1, 2, 3], [9, 0, 0]]


def test_windowed_nd_observed(session):
    x = tf.reshape(tf.range(10), (2, 5))
    # values observed from the reference
    assert session.run(tf_util.windowed_nd(x, window_size=3)).tolist() == [
        [[0, 0, 1], [0, 1, 2], [1, 2, 3], [2, 3, 4], [3, 4, 0]],
        [[0, 5, 6], [5, 6, 7], [6, 7, 8], [7, 8, 9], [8, 9, 0]]]
    assert session.run(tf_util.windowed_nd(x, window_size=3, window_left=2)).tolist() == [
        [[0, 0, 0], [0, 0, 1], [0, 1, 2], [1, 2, 3], [2, 3, 4]],
        [[0, 0, 5], [0, 5, 6], [5, 6, 7], [6, 7, 8], [7, 8, 9]]]
    assert session.run(tf_util.windowed_nd(x, window_size=3, padding="valid", stride=2)).tolist() == [
        [[0, 1, 2], [2, 3, 4]], [[5, 6, 7], [7, 8, 9]]]


def test_windowed_nd_time_major_against_numpy(session):
    rng = np.random.RandomState(4)
    src = rng.rand(7, 2, 3).astype(np.float32)  # (time, batch, dim)
    window = 4
    right = window // 2
    left = window - right - 1
    padded = np.pad(src, ((left, right), (0, 0), (0, 0)))
    expected = np.stack([padded[t:t + window] for t in range(7)])  # (time, window, batch, dim)
    got = session.run(tf_util.windowed_nd(src, window_size=window, time_axis=0, new_window_axis=1))
    np.testing.assert_array_equal(got, expected)


def test_windowed_nd_rejects_unknown_padding():
    with pytest.raises(ValueError, match="padding"):
        tf_util.windowed_nd(np.zeros((2, 3)), window_size=2, padding="full")


def test_constant_with_shape_dtypes(session):
    for value, dtype in [(3, np.int32), (7.0, np.float32), (False, np.bool_), (True, np.bool_)]:
        got = session.run(tf_util.constant_with_shape(value, [2, 3]))
        assert got.dtype == dtype and got.shape == (2, 3) and (got == value).all()
    n = tf1.placeholder(tf.int32, ())
    got = session.run(tf_util.constant_with_shape(2, [n, 2], dtype=tf.float32), {n: 3})
    assert got.dtype == np.float32 and got.tolist() == [[2.0, 2.0]] * 3


def test_dimshuffle(session):
    x = np.arange(6).reshape(2, 3)
    assert session.run(tf_util.dimshuffle(x, (1, "x", 0))).tolist() == [[[0, 3]], [[1, 4]], [[2, 5]]]
    y = np.zeros((2, 1, 3))
    assert session.run(tf.shape(tf_util.dimshuffle(y, (2, "x", "x", 0)))).tolist() == [3, 1, 1, 2]
    with pytest.raises(AssertionError, match="twice"):
        tf_util.dimshuffle(x, (0, 0))


def test_flatten_with_seq_len_mask_time_major(session):
    x = np.arange(3 * 4 * 2).reshape(4, 3, 2)  # (time, batch, dim)
    seq_lens = [4, 3, 2]
    got = session.run(tf_util.flatten_with_seq_len_mask_time_major(x, seq_lens, batch_dim_axis=1, time_dim_axis=0))
    expected = [x[t, b] for t in range(4) for b in range(3) if t < seq_lens[b]]
    np.testing.assert_array_equal(got, np.array(expected))

"""returnn.tf.util.basic (legacy TFUtil) selection/masking helpers against numpy and observed reference values."""

import numpy as np
import pytest
import tensorflow as tf

from returnn.errors import ReturnnError
from returnn.tf.util import basic as tf_util

tf1 = tf.compat.v1


def test_where_bc_broadcasts_like_numpy(session):
    rng = np.random.RandomState(0)
    cond = rng.rand(1, 3) > 0.5
    x = rng.randn(2, 3).astype(np.float32)
    np.testing.assert_array_equal(session.run(tf_util.where_bc(cond, 0.0, x)), np.where(cond, 0.0, x))
    cond2 = np.array([[True], [False]])
    np.testing.assert_array_equal(session.run(tf_util.where_bc(cond2, x, -1.0)), np.where(cond2, x, -1.0))
    out = session.run(tf_util.where_bc(tf.constant([True, False]), tf.constant(["a", "b"]), tf.constant("")))
    assert out.tolist() == [b"a", b""]


def test_where_bc_rejects_rank_and_size_mismatch(session):
    with pytest.raises(AssertionError) as exc:  # the reference: AssertionError "ndim does not match"
        tf_util.where_bc(tf.constant([True, False, True]), tf.ones((2, 3)), 0.0)
    assert isinstance(exc.value, ReturnnError) and "ranks do not match" in str(exc.value)
    with pytest.raises(AssertionError) as exc:
        tf_util.where_bc(tf.constant([True, False, True]), tf.constant([1.0, 2.0]), 0.0)
    assert "axis 0" in str(exc.value)


def test_nd_indices_observed(session):
    ind = tf.constant([[2, 0], [1, 1], [0, 3]])
    # values observed from the reference
    assert session.run(tf_util.nd_indices(ind)).tolist() == [
        [[0, 2], [0, 0]], [[1, 1], [1, 1]], [[2, 0], [2, 3]]]
    assert session.run(tf_util.nd_indices(ind, batch_axis=1)).tolist() == [
        [[2, 0], [0, 1]], [[1, 0], [1, 1]], [[0, 0], [3, 1]]]
    assert session.run(tf_util.nd_indices(ind, batch_axis=1, indices_batch_major=True)).tolist() == [
        [[0, 2], [1, 0]], [[0, 1], [1, 1]], [[0, 0], [1, 3]]]
    out = tf_util.nd_indices(tf.constant([3, 1, 0], tf.int64))
    assert out.dtype == tf.int64 and session.run(out).tolist() == [[0, 3], [1, 1], [2, 0]]
    with pytest.raises(AssertionError, match="batch_axis 2 not supported"):
        tf_util.nd_indices(tf.zeros((2, 2, 2), tf.int32), batch_axis=2)


def test_nd_indices_with_gather_nd(session):
    rng = np.random.RandomState(1)
    data = rng.randn(3, 5).astype(np.float32)
    idx = np.array([[4, 0], [2, 2], [1, 3]], np.int32)
    out = session.run(tf.gather_nd(data, tf_util.nd_indices(idx)))
    np.testing.assert_array_equal(out, np.take_along_axis(data, idx, axis=1))


def test_sequence_masks(session):
    lens = tf.constant([2, 0, 3])
    expected = np.arange(3)[None, :] < np.array([2, 0, 3])[:, None]
    np.testing.assert_array_equal(session.run(tf_util.sequence_mask(lens)), expected)
    np.testing.assert_array_equal(session.run(tf_util.sequence_mask_time_major(lens)), expected.T)
    np.testing.assert_array_equal(session.run(tf_util.sequence_mask_time_major(lens, maxlen=4)),
                                  (np.arange(4)[None, :] < np.array([2, 0, 3])[:, None]).T)


def test_flatten_with_seq_len_mask_batch_major_order(session):
    x = np.arange(24).reshape(2, 4, 3)
    out = session.run(tf_util.flatten_with_seq_len_mask(x, tf.constant([3, 1]), 0, 1))
    np.testing.assert_array_equal(out, np.concatenate([x[0, :3], x[1, :1]]))
    # time-major input (time 2, batch 4): still batch-major order, as observed from the reference
    out = session.run(tf_util.flatten_with_seq_len_mask(x, tf.constant([2, 1, 0, 2]), time_major=True))
    assert out.tolist() == [[0, 1, 2], [12, 13, 14], [3, 4, 5], [9, 10, 11], [21, 22, 23]]
    # time axis after a feature axis
    y = np.arange(24).reshape(2, 3, 4)
    out = session.run(tf_util.flatten_with_seq_len_mask(y, tf.constant([3, 1]), batch_dim_axis=0, time_dim_axis=2))
    assert out.tolist() == [[0, 4, 8], [1, 5, 9], [2, 6, 10], [12, 16, 20]]
    with pytest.raises(AssertionError, match="expected batch_dim_axis and time_dim_axis, or time_major"):
        tf_util.flatten_with_seq_len_mask(x, tf.constant([3, 1]))


def test_matrix_triangular(session):
    lower = session.run(tf_util.matrix_triangular((1, 1, 3, 4), dtype=tf.bool, lower=True))
    np.testing.assert_array_equal(lower[0, 0], np.tril(np.ones((3, 4), bool)))
    np.testing.assert_array_equal(session.run(tf_util.matrix_triangular((3, 4), upper=True)), np.triu(np.ones((3, 4))))
    dyn = session.run(tf_util.matrix_triangular((tf.constant(2), 3), dtype=tf.int32, lower=True))
    np.testing.assert_array_equal(dyn, np.tril(np.ones((2, 3), np.int32)))
    with pytest.raises(AssertionError, match="exactly one of lower=True or upper=True"):
        tf_util.matrix_triangular((3, 3))


def test_filter_ended_scores(session):
    x = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    ended = tf.constant([True, False])
    np.testing.assert_array_equal(session.run(tf_util.filter_ended_scores(x, ended, batch_dim=2, dim=None)),
                                  np.array([[0.0, -1e30, -1e30], [4.0, 5.0, 6.0]], np.float32))
    assert session.run(tf_util.filter_ended_scores(x, ended, score_zero=7.0, score_rem=-5.0)).tolist() == [
        [7.0, -5.0, -5.0], [4.0, 5.0, 6.0]]

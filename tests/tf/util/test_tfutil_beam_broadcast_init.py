"""Beam helpers, broadcasting, rank checks, initializers and control dependencies of returnn.tf.util.basic, against
numpy and values observed from the reference."""

import numpy as np
import pytest
import tensorflow as tf

from returnn.tf.util import basic as tf_util

tf1 = tf.compat.v1


def test_beam_search_observed(session):
    scores = tf.constant([[[0.1, 0.5, 0.2], [0.3, 0.0, 0.9]]])
    # observed from the reference
    src, labels, best = session.run(tf_util.beam_search(scores, beam_size=2))
    assert src.tolist() == [[1, 0]] and labels.tolist() == [[2, 1]]
    np.testing.assert_allclose(best, [[0.9, 0.5]])
    src, labels, best = session.run(tf_util.beam_search(scores, beam_size=2, keep_beams=True))
    assert src.tolist() == [[0, 1]] and labels.tolist() == [[1, 2]]
    np.testing.assert_allclose(best, [[0.5, 0.9]])
    with pytest.raises(AssertionError, match="cheating"):
        tf_util.beam_search(scores, beam_size=2, cheating_gold_targets=tf.constant([1]))


def test_select_src_beams_observed(session):
    x = tf.reshape(tf.range(12), (6, 2))  # (batch 2 * src_beam 3, 2)
    got = session.run(tf_util.select_src_beams(x, tf.constant([[2, 0, 0], [1, 1, 0]])))
    assert got.tolist() == [[4, 5], [0, 1], [0, 1], [8, 9], [8, 9], [6, 7]]  # observed from the reference


def test_unflatten_with_seq_len_mask_observed(session):
    x, lens = tf.constant([1, 2, 3, 4, 5]), tf.constant([2, 3])
    # observed from the reference
    assert session.run(tf_util.unflatten_with_seq_len_mask(x, lens)).tolist() == [[1, 2, 0], [3, 4, 5]]
    assert session.run(tf_util.unflatten_with_seq_len_mask(x, lens, batch_major=False)).tolist() == [
        [1, 3], [2, 4], [0, 5]]
    packed = tf_util.flatten_with_seq_len_mask(tf.reshape(tf.range(12), (2, 3, 2)), [3, 1], time_major=False)
    back = session.run(tf_util.unflatten_with_seq_len_mask(packed, [3, 1]))
    x_np = np.arange(12).reshape(2, 3, 2)
    mask = np.arange(3)[None, :] < np.array([3, 1])[:, None]
    np.testing.assert_array_equal(back, np.where(mask[:, :, None], x_np, 0))


def test_common_shape_and_concat(session):
    a, b = tf.zeros((2, 1)), tf.zeros((1, 3))
    assert tf_util.get_common_shape([a, b]) == [2, 3]  # observed from the reference
    assert tf_util.get_common_shape([tf.zeros((2, 1)), tf.zeros((2, 3))], ignore_axes=[1]) == [2, None]
    assert session.run(tf_util.unbroadcast_to_common_shape(tf.zeros((1, 3)), [2, 3])).shape == (2, 3)
    got = session.run(tf_util.concat_with_opt_broadcast([tf.zeros((1, 2)), tf.ones((3, 1))], [True, True], axis=1))
    assert got.tolist() == [[0.0, 0.0, 1.0]] * 3
    n = tf1.placeholder(tf.int32, ())
    dyn = tf.zeros(tf.stack([n, 1]))
    common = tf_util.get_common_shape([dyn, tf.zeros((1, 4))])
    assert common[1] == 4 and session.run(common[0], {n: 5}) == 5
    with pytest.raises(AssertionError, match="same rank"):
        tf_util.get_common_shape([a, tf.zeros((2,))])
    shapes = tf_util.nested_get_shapes({"a": tf.zeros((2, 3)), "b": [tf.zeros(())]})
    assert shapes["a"].as_list() == [2, 3] and shapes["b"][0].as_list() == []


def test_rank_and_dim_checks(session):
    x = tf.zeros((2, 3))
    assert tf_util.check_input_ndim(x, 2) is x
    with pytest.raises(AssertionError, match="rank 2"):
        tf_util.check_input_ndim(x, 3)
    assert tf_util.check_dim_equal(x, 1, tf.zeros((3,)), 0) is x
    with pytest.raises(AssertionError, match="axis 1"):
        tf_util.check_dim_equal(x, 1, tf.zeros((4,)), 0)
    assert tf_util.check_input_ndim_equal_offset(x, tf.zeros((2,)), y_ndim_offset=1) is x
    p = tf1.placeholder(tf.float32, None)
    checked = tf_util.check_input_ndim(p, 2)
    session.run(checked, {p: np.zeros((1, 1))})
    with pytest.raises(tf.errors.InvalidArgumentError):
        session.run(checked, {p: np.zeros((1,))})


def test_initializers(session):
    v = session.run(tf_util.random_uniform_abs_initializer(0.5, seed=1)((1000,)))
    assert np.abs(v).max() <= 0.5 and v.min() < -0.4
    v = session.run(tf_util.variance_scaling_non_zero_initializer(non_zero_fraction=0.5, seed=1)((100, 100)))
    limit = np.sqrt(3.0 / 100)
    assert np.abs(v).max() <= limit + 1e-6 and np.abs(v).min() >= 0.5 * limit - 1e-6
    assert session.run(tf_util.xavier_initializer(seed=1)((3, 4))).shape == (3, 4)
    k = session.run(tf_util.gaussian_kernel_2d(3, 1.0))
    r = np.arange(-3, 4)
    ref = np.exp(-(r[:, None] ** 2 + r[None, :] ** 2) / 2.0)
    np.testing.assert_allclose(k, ref / ref.sum(), rtol=1e-5)
    assert abs(k[3, 3] - 0.15924) < 1e-5  # observed from the reference


def test_load_txt_file_initializer(session, tmp_path):
    fn = tmp_path / "init.txt"
    fn.write_text("1 2\n3 4\n")
    v = tf1.get_variable("from_txt", shape=(2, 2), initializer=tf_util.load_txt_file_initializer(str(fn)))
    session.run(v.initializer)
    assert session.run(v).tolist() == [[1.0, 2.0], [3.0, 4.0]]


def test_control_deps(session):
    v = tf.Variable(1, name="ctrl_v")
    session.run(v.initializer)
    with tf_util.sequential_control_dependencies([lambda: tf1.assign(v, 3), lambda: tf1.assign_add(v, 5)]):
        x = tf.identity(v.read_value())
    assert session.run(x) == 8
    y = tf_util.post_control_dependencies(tf.constant(2), [tf1.assign(v, 0)])
    assert session.run(y) == 2 and session.run(v) == 0
    c = tf_util.copy_tensor(v.read_value())
    with tf.control_dependencies([c]):
        a = tf1.assign(v, 7)
    assert session.run([c, a])[0] == 0

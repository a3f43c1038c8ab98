"""get_rnnt_linear_aligned_output against outputs observed from the reference and a numpy model of its placement."""

import numpy as np
import pytest
import tensorflow as tf

from returnn.tf.util import basic as tf_util


def _numpy_alignment(input_lens, targets, target_lens, blank, pad, consume):
    """Independent model: label i at round((i + 1) * ((L + 1) / (N + 1))) - 1 (float32, half to even)."""
    out_lens = input_lens if consume else input_lens + target_lens
    out = np.full((len(input_lens), max(out_lens)), pad, targets.dtype)
    for b, (t, n, length) in enumerate(zip(input_lens, target_lens, out_lens)):
        n = min(n, t) if consume else n
        out[b, :length] = blank
        ratio = np.float32(length + 1) / np.float32(n + 1)
        pos = np.round(np.arange(1, n + 1, dtype=np.float32) * ratio).astype(int) - 1
        out[b, pos] = targets[b, :n]
    return out, out_lens


# observed from the reference (targets, target_lens [3, 2, 5, 0], input_lens [6, 7, 5, 3], blank 10)
_TARGETS = np.array([[1, 2, 3, 0, 0], [4, 5, 0, 0, 0], [6, 7, 8, 9, 1], [0, 0, 0, 0, 0]], np.int32)
_OBSERVED_RNNT = [[10, 1, 10, 10, 2, 10, 10, 3, 10, -1],
                  [10, 10, 4, 10, 10, 10, 5, 10, 10, -1],
                  [10, 6, 10, 7, 10, 8, 9, 10, 1, 10],
                  [10, 10, 10, -1, -1, -1, -1, -1, -1, -1]]
_OBSERVED_RNA = [[10, 1, 10, 2, 3, 10, -1],
                 [10, 10, 4, 10, 5, 10, 10],
                 [6, 7, 8, 9, 1, -1, -1],
                 [10, 10, 10, -1, -1, -1, -1]]


@pytest.mark.parametrize("consume,observed,observed_lens", [(False, _OBSERVED_RNNT, [9, 9, 10, 3]),
                                                            (True, _OBSERVED_RNA, [6, 7, 5, 3])])
def test_observed(session, consume, observed, observed_lens):
    out, out_lens = tf_util.get_rnnt_linear_aligned_output(
        input_lens=tf.constant([6, 7, 5, 3]), targets=tf.constant(_TARGETS), target_lens=tf.constant([3, 2, 5, 0]),
        blank_label_idx=10, pad_value=-1, targets_consume_time=consume)
    out, out_lens = session.run([out, out_lens])
    assert out.tolist() == observed
    assert out_lens.tolist() == observed_lens


@pytest.mark.parametrize("consume", [False, True])
def test_against_numpy_model(session, consume):
    rng = np.random.RandomState(3)
    n_batch = 200
    input_lens = rng.randint(0, 60, size=n_batch).astype(np.int32)
    target_lens = rng.randint(0, 30, size=n_batch).astype(np.int32)
    targets = rng.randint(1, 50, size=(n_batch, 30)).astype(np.int32)
    out, out_lens = session.run(tf_util.get_rnnt_linear_aligned_output(
        input_lens=input_lens, targets=targets, target_lens=target_lens, blank_label_idx=0, pad_value=-1,
        targets_consume_time=consume))
    expected, expected_lens = _numpy_alignment(input_lens, targets, target_lens, 0, -1, consume)
    np.testing.assert_array_equal(out_lens, expected_lens)
    np.testing.assert_array_equal(out, expected)


def test_rna_truncates_labels_beyond_input_length(session):
    # observed from the reference: 3 labels, 2 frames → the first 2 labels only
    out, out_lens = session.run(tf_util.get_rnnt_linear_aligned_output(
        input_lens=tf.constant([2]), targets=tf.constant([[1, 2, 3]]), target_lens=tf.constant([3]),
        blank_label_idx=0, targets_consume_time=True))
    assert out.tolist() == [[1, 2]] and out_lens.tolist() == [2]


@pytest.mark.parametrize("consume,input_len,target_len,pattern", [
    # observed from the reference ('_' blank, 'x' label); half-way cases round to even
    (False, 5, 5, "_x_x_xx_x_"), (False, 3, 5, "_xxx_x_x"), (False, 1, 3, "xx_x"), (False, 9, 1, "_____x____"),
    (False, 11, 1, "_____x______"), (False, 13, 8, "_x__x_x__x_x__x_x__x_"), (True, 10, 7, "x_xx_xxx_x"),
    (True, 12, 3, "__x__x___x__"), (True, 5, 4, "xx_xx")])
def test_observed_patterns(session, consume, input_len, target_len, pattern):
    out, _ = session.run(tf_util.get_rnnt_linear_aligned_output(
        input_lens=tf.constant([input_len]), targets=tf.constant([list(range(1, target_len + 1))]),
        target_lens=tf.constant([target_len]), blank_label_idx=0, targets_consume_time=consume))
    assert "".join("_" if v == 0 else "x" for v in out[0]) == pattern

"""Incremental edit distance rows and optimal completions: against numpy Levenshtein on random sequences, and the
reference's rows (observed in its edit_distance_table / optimal_completions layers), blank included."""

import numpy as np
import tensorflow as tf

from returnn.tf.ops.edit_distance import initial_row, next_row, optimal_completions
from returnn.util.edit_distance import edit_distance_counts

REFS = np.array([[1, 2, 3, 0], [4, 2, 0, 0]], "int32")
LENS = np.array([4, 2], "int32")


def _run(session, hyps, blank=None, refs=REFS, lens=LENS, num_classes=5):
    row = initial_row(tf.constant(lens), refs.shape[1] + 1)
    rows, ocs = [], []
    for labels in hyps:
        ocs.append(optimal_completions(row, tf.constant(refs), tf.constant(lens), num_classes, blank))
        row = next_row(row, tf.constant(labels), tf.constant(refs), tf.constant(lens), blank)
        rows.append(row)
    return session.run([rows, ocs])


def test_rows_against_levenshtein(session):
    rnd = np.random.RandomState(0)
    refs = rnd.randint(0, 4, size=(5, 6)).astype("int32")
    lens = np.array([6, 3, 0, 1, 4], "int32")
    hyps = rnd.randint(0, 4, size=(7, 5)).astype("int32")
    rows, ocs = _run(session, hyps, refs=refs, lens=lens, num_classes=4)
    for t in range(7):
        for b in range(5):
            hyp = list(hyps[:t + 1, b])
            expected = [edit_distance_counts(list(refs[b, :j]), hyp).errors for j in range(lens[b] + 1)]
            assert list(rows[t][b, :lens[b] + 1]) == expected
            assert (rows[t][b, lens[b] + 1:] == expected[-1]).all()  # padding repeats D[S]
            prefix = list(hyps[:t, b])
            best = [min(edit_distance_counts(list(refs[b, :j]), prefix + [c]).errors for j in range(lens[b] + 1))
                    for c in range(4)]
            assert list(ocs[t][b]) == best


def test_observed_from_reference(session):
    rows, ocs = _run(session, [[3, 3], [1, 1], [1, 1], [1, 1], [1, 1]])
    assert np.array(rows).tolist() == [
        [[1, 1, 2, 2, 3], [1, 1, 2, 2, 2]], [[2, 1, 2, 3, 3], [2, 2, 2, 2, 2]], [[3, 2, 2, 3, 4], [3, 3, 3, 3, 3]],
        [[4, 3, 3, 3, 4], [4, 4, 4, 4, 4]], [[5, 4, 4, 4, 4], [5, 5, 5, 5, 5]]]
    assert np.array(ocs).tolist() == [
        [[1, 0, 1, 1, 1], [1, 1, 1, 1, 0]], [[2, 1, 1, 2, 2], [2, 2, 1, 2, 1]], [[2, 2, 1, 2, 2], [3, 3, 2, 3, 2]],
        [[3, 3, 2, 2, 3], [4, 4, 3, 4, 3]], [[3, 4, 3, 3, 4], [5, 5, 4, 5, 4]]]
    # blank 3: leaves the row unchanged; its completion keeps the best distance
    rows, ocs = _run(session, [[3, 3], [1, 1], [2, 3], [4, 1], [0, 1]], blank=3)
    assert np.array(rows).tolist() == [
        [[0, 1, 2, 3, 4], [0, 1, 2, 2, 2]], [[1, 0, 1, 2, 3], [1, 1, 2, 2, 2]], [[2, 1, 0, 1, 2], [1, 1, 2, 2, 2]],
        [[3, 2, 1, 1, 2], [2, 2, 2, 2, 2]], [[4, 3, 2, 2, 1], [3, 3, 3, 3, 3]]]
    assert np.array(ocs).tolist() == [
        [[1, 0, 1, 0, 1], [1, 1, 1, 0, 0]], [[1, 0, 1, 0, 1], [1, 1, 1, 0, 0]], [[1, 1, 0, 0, 1], [2, 2, 1, 1, 1]],
        [[1, 1, 1, 0, 1], [2, 2, 1, 1, 1]], [[1, 2, 2, 1, 2], [3, 3, 2, 2, 2]]]

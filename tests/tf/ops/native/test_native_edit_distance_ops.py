"""The edit distance ops of returnn.tf.ops.native.edit_distance_ops against a numpy Levenshtein."""

import numpy as np

from returnn.tf.ops.native import edit_distance_ops as ops


def _lev_row(a, b):
    row = list(range(len(b) + 1))
    for i, label in enumerate(a):
        new = [i + 1]
        for j in range(1, len(b) + 1):
            new.append(min(row[j - 1] + (label != b[j - 1]), row[j] + 1, new[j - 1] + 1))
        row = new
    return row


def _data():
    rnd = np.random.RandomState(1)
    a = rnd.randint(0, 4, size=(6, 5)).astype("int32")
    b = rnd.randint(0, 4, size=(6, 7)).astype("int32")
    a_len = np.array([5, 1, 3, 0, 4, 2], "int32")
    b_len = np.array([7, 2, 0, 3, 5, 1], "int32")
    return a, a_len, b, b_len


def test_edit_distance_and_optimal_completion(session):
    a, a_len, b, b_len = _data()
    dist, oc, rows = session.run([ops.edit_distance(a, a_len, b, b_len),
                                  ops.optimal_completion_edit_distance(a, a_len, b, b_len),
                                  ops.edit_distance_via_next_edit_distance_row(a, a_len, b, b_len,
                                                                               full_row_output=True)])
    for i in range(6):
        row = _lev_row(list(a[i, :a_len[i]]), list(b[i, :b_len[i]]))
        assert dist[i] == row[-1]
        assert oc[i] == min(row)
        assert list(rows[i, :b_len[i] + 1]) == row


def test_per_successor_and_reduce(session):
    a, a_len, b, b_len = _data()
    per = session.run(ops.optimal_completion_edit_distance_per_successor(a, a_len, b, b_len, 4))
    assert per.shape == (6, 4)
    for i in range(6):
        for c in range(4):
            assert per[i, c] == min(_lev_row(list(a[i, :a_len[i]]) + [c], list(b[i, :b_len[i]])))
    row0 = np.tile(np.arange(8, dtype="int32"), (6, 1))
    labels = np.tile(np.arange(4, dtype="int32"), (6, 1))
    red = session.run(ops.next_edit_distance_reduce(row0, labels, 0, np.zeros(6, bool), b, b_len, a_blank_idx=0))
    for i in range(6):
        assert red[i, 0] == b_len[i]  # the blank leaves the empty hypothesis
        for c in range(1, 4):
            assert red[i, c] == _lev_row([c], list(b[i, :b_len[i]]))[-1]

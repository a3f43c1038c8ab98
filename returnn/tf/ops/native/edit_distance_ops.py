"""The reference's edit distance ops (``edit_distance``, optimal completion, row by row), in TensorFlow ops on
top of :mod:`returnn.tf.ops.edit_distance` (one Levenshtein row per step of ``a``, batched).

A row ``D[j]``, ``j = 0 .. N - 1`` with ``N = max_len(b) + 1``, is the distance of the prefix of ``a`` read so
far to the prefix of ``b`` of length ``j``. The *optimal completion* distance of a prefix of ``a`` is the
smallest distance to any prefix of ``b``: ``min_{j <= len(b)} D[j]``.
"""

from __future__ import annotations

from typing import Any, Optional

import tensorflow as tf


def _int(x: Any) -> tf.Tensor:
    return tf.cast(tf.convert_to_tensor(x), tf.int32)


def _valid(b_len: tf.Tensor, n: tf.Tensor) -> tf.Tensor:
    return tf.range(n)[None, :] <= b_len[:, None]


def next_edit_distance_row(last_row: Any, a: Any, a_n: Any, a_ended: Any, b: Any, b_len: Any) -> tf.Tensor:
    """One label more of ``a``.

    :param last_row: int32 ``[B, N]``, the row after ``a_n`` labels of ``a``
    :param a: int32 ``[B]``, label ``a_n`` (0-based) of ``a``; :param a_n: int32 scalar or ``[B]``, labels read
        before it
    :param a_ended: bool ``[B]``, the sequence of ``a`` has ended (its row stays)
    :param b: int32 ``[B, N - 1]``; :param b_len: int32 ``[B]``
    :return: int32 ``[B, N]``: ``D'[0] = a_n + 1``, ``D'[j] = min(D[j - 1] + [a != b[j - 1]], D[j] + 1,
        D'[j - 1] + 1)``
    """
    del b_len  # the row is computed up to N - 1 for every sequence
    last_row, a, b, a_n = _int(last_row), _int(a), _int(b), _int(a_n)
    n = tf.shape(last_row)[1]
    sub = tf.cast(tf.not_equal(b[:, :n - 1], a[:, None]), tf.int32)
    tmp = tf.concat([tf.broadcast_to(a_n + 1, tf.shape(last_row)[:1])[:, None],
                     tf.minimum(last_row[:, :-1] + sub, last_row[:, 1:] + 1)], axis=1)
    j = tf.range(n)
    offset = j[:, None] - j[None, :]
    big = tf.reduce_max(tmp) + n + 1
    # D'[j] = min_{k <= j} tmp[k] + (j - k): the insertions along the new row
    new = tf.reduce_min(tmp[:, None, :] + offset[None] + tf.where(offset >= 0, 0, big)[None], axis=2)
    return tf.where(tf.convert_to_tensor(a_ended, tf.bool)[:, None], last_row, new)


def _rows(a: Any, a_len: Any, b: Any, b_len: Any) -> tf.Tensor:
    """The rows after all of ``a``: int32 ``[B, N]``."""
    a, a_len, b, b_len = _int(a), _int(a_len), _int(b), _int(b_len)
    n = tf.shape(b)[1] + 1
    batch = tf.shape(a)[0]
    row0 = tf.broadcast_to(tf.range(n)[None, :], [batch, n])

    def body(i, row):
        new = next_edit_distance_row(row, a[:, i], i, i >= a_len, b, b_len)
        return i + 1, new

    _, row = tf.while_loop(lambda i, _: i < tf.shape(a)[1], body, (tf.constant(0), row0))
    return row


def edit_distance_via_next_edit_distance_row(a: Any, a_len: Any, b: Any, b_len: Any,
                                              optimal_completion: bool = False,
                                              full_row_output: bool = False) -> tf.Tensor:
    """:param a: int32 ``[B, Ta]``; :param a_len: int32 ``[B]``; :param b: int32 ``[B, Tb]``; :param b_len: ``[B]``
    :param optimal_completion: the optimal completion distance instead of the distance to all of ``b``
    :param full_row_output: return the whole last row ``[B, Tb + 1]``
    :return: int32 ``[B]`` (or the row)
    """
    row = _rows(a, a_len, b, b_len)
    if full_row_output:
        return row
    b_len = _int(b_len)
    if optimal_completion:
        return tf.reduce_min(tf.where(_valid(b_len, tf.shape(row)[1]), row, tf.int32.max), axis=1)
    return tf.gather(row, b_len, batch_dims=1)


def edit_distance(a: Any, a_len: Any, b: Any, b_len: Any) -> tf.Tensor:
    """Levenshtein distance of ``a[:a_len]`` and ``b[:b_len]`` (unit costs).

    :param a: int32 ``[B, Ta]``; :param a_len: int32 ``[B]``; :param b: int32 ``[B, Tb]``; :param b_len: ``[B]``
    :return: int32 ``[B]``
    """
    return edit_distance_via_next_edit_distance_row(a, a_len, b, b_len)


def optimal_completion_edit_distance(a: Any, a_len: Any, b: Any, b_len: Any) -> tf.Tensor:
    """The smallest distance of ``a[:a_len]`` to a prefix of ``b[:b_len]``.

    :return: int32 ``[B]``
    """
    return edit_distance_via_next_edit_distance_row(a, a_len, b, b_len, optimal_completion=True)


def _successor_labels(successors: Any, batch: tf.Tensor) -> tf.Tensor:
    """int32 ``[B, K]`` from an int ``K`` (labels ``0 .. K - 1``), ``[K]`` or ``[B, K]``."""
    if isinstance(successors, int):
        successors = tf.range(successors)
    successors = _int(successors)
    if successors.shape.rank == 1:
        successors = tf.broadcast_to(successors[None, :], [batch, tf.shape(successors)[0]])
    return successors


def next_edit_distance_reduce(last_row: Any, a: Any, a_n: Any, a_ended: Any, b: Any, b_len: Any,
                              optimal_completion: bool = False, a_blank_idx: Optional[int] = None) -> tf.Tensor:
    """The distance after one more label, for several candidate labels.

    :param last_row: int32 ``[B, N]``; :param a: int32 ``[B, K]``, the candidate labels
    :param a_n: int32 scalar or ``[B]``, labels read so far; :param a_ended: bool ``[B]`` (the row stays)
    :param b: int32 ``[B, N - 1]``; :param b_len: int32 ``[B]``
    :param optimal_completion: reduce the row by its minimum over ``j <= b_len`` instead of taking ``D[b_len]``
    :param a_blank_idx: a label that leaves the row unchanged
    :return: int32 ``[B, K]``
    """
    last_row, a, b, b_len = _int(last_row), _int(a), _int(b), _int(b_len)
    batch, k, n = tf.shape(a)[0], tf.shape(a)[1], tf.shape(last_row)[1]
    rep = lambda x: tf.repeat(x, k, axis=0)  # noqa: E731
    a_n = rep(tf.broadcast_to(_int(a_n), [batch]))
    rows = next_edit_distance_row(rep(last_row), tf.reshape(a, [-1]), a_n, rep(tf.convert_to_tensor(a_ended)),
                                  rep(b), rep(b_len))
    if a_blank_idx is not None:
        rows = tf.where(tf.equal(tf.reshape(a, [-1]), a_blank_idx)[:, None], rep(last_row), rows)
    if optimal_completion:
        res = tf.reduce_min(tf.where(_valid(rep(b_len), n), rows, tf.int32.max), axis=1)
    else:
        res = tf.gather(rows, rep(b_len), batch_dims=1)
    return tf.reshape(res, [batch, k])


def optimal_completion_edit_distance_per_successor_via_next_edit_distance(
        a: Any, a_len: Any, b: Any, b_len: Any, successors: Any) -> tf.Tensor:
    """The optimal completion distance of ``a[:a_len] + [c]`` for every successor label ``c``.

    :param successors: int ``K`` (labels ``0 .. K - 1``), or int32 ``[K]`` / ``[B, K]`` labels
    :return: int32 ``[B, K]``
    """
    row = _rows(a, a_len, b, b_len)
    labels = _successor_labels(successors, tf.shape(row)[0])
    return next_edit_distance_reduce(row, labels, _int(a_len), tf.zeros(tf.shape(row)[:1], tf.bool), b, b_len,
                                     optimal_completion=True)


def optimal_completion_edit_distance_per_successor(a: Any, a_len: Any, b: Any, b_len: Any,
                                                   successors: Any) -> tf.Tensor:
    """Same as :func:`optimal_completion_edit_distance_per_successor_via_next_edit_distance`.

    :return: int32 ``[B, K]``
    """
    return optimal_completion_edit_distance_per_successor_via_next_edit_distance(a, a_len, b, b_len, successors)

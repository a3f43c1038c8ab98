"""Incremental edit distance against reference label sequences (for ``edit_distance_table`` and
``optimal_completions``), in TF ops.

A row ``D[j]`` (``j = 0 .. S``) holds the Levenshtein distance of the hypothesis so far to the reference prefix
of length ``j``; the row has ``N = S_max + 1`` entries, entries beyond a sequence's ``S`` repeat ``D[S]`` (as the
reference). Appending label ``c``: ``D'[0] = D[0] + 1``, ``D'[j] = min(D[j-1] + [c != ref[j-1]], D[j] + 1,
D'[j-1] + 1)``; a ``blank_idx`` label leaves the row unchanged.
"""

from __future__ import annotations

from typing import Optional

import tensorflow as tf


def initial_row(ref_lens: tf.Tensor, n: tf.Tensor) -> tf.Tensor:
    """:return: int32 ``[B, N]``: ``min(j, S)``, the distances of the empty hypothesis"""
    return tf.minimum(tf.range(n)[None, :], tf.cast(ref_lens, tf.int32)[:, None])


def _valid(ref_lens: tf.Tensor, n: tf.Tensor) -> tf.Tensor:
    return tf.range(n)[None, :] <= tf.cast(ref_lens, tf.int32)[:, None]  # [B, N]: j <= S


def next_row(prev: tf.Tensor, labels: tf.Tensor, refs: tf.Tensor, ref_lens: tf.Tensor,
             blank_idx: Optional[int] = None) -> tf.Tensor:
    """:param prev: int32 ``[B, N]``; :param labels: int ``[B]`` appended labels; :param refs: int ``[B, N-1]``
    :return: int32 ``[B, N]``, the row after appending ``labels``"""
    prev = tf.cast(prev, tf.int32)
    n = tf.shape(prev)[1]
    labels = tf.cast(labels, tf.int32)
    refs = tf.cast(refs, tf.int32)[:, :n - 1]
    sub = tf.cast(tf.not_equal(refs, labels[:, None]), tf.int32)  # [B, N-1]
    diag = prev[:, :-1] + sub  # from D[j-1]
    tmp = tf.concat([prev[:, :1] + 1, tf.minimum(diag, prev[:, 1:] + 1)], axis=1)  # [B, N]
    # D'[j] = min_{k <= j} tmp[k] + (j - k): the insertions along the new row
    j = tf.range(n)
    offset = j[:, None] - j[None, :]  # [j, k]
    big = tf.reduce_max(tmp) + n + 1
    cand = tmp[:, None, :] + offset[None] + tf.where(offset >= 0, 0, big)[None]
    new = tf.reduce_min(cand, axis=2)
    last = tf.gather(new, tf.cast(ref_lens, tf.int32), batch_dims=1)  # D'[S]
    new = tf.where(_valid(ref_lens, n), new, last[:, None])
    if blank_idx is not None:
        new = tf.where(tf.equal(labels, blank_idx)[:, None], prev, new)
    return new


def optimal_completions(prev: tf.Tensor, refs: tf.Tensor, ref_lens: tf.Tensor, num_classes: int,
                        blank_idx: Optional[int] = None) -> tf.Tensor:
    """:param prev: int32 ``[B, N]`` the current row; :param refs: int ``[B, N-1]``
    :return: int32 ``[B, C]``: for each class, the smallest distance of the row after appending it
        (``min(min_j D[j] + 1, min_{j < S, ref[j] = c} D[j])``; the blank: ``min_j D[j]``)"""
    prev = tf.cast(prev, tf.int32)
    batch, n = tf.shape(prev)[0], tf.shape(prev)[1]
    refs = tf.cast(refs, tf.int32)[:, :n - 1]
    ref_lens = tf.cast(ref_lens, tf.int32)
    big = tf.int32.max
    m = tf.reduce_min(tf.where(_valid(ref_lens, n), prev, big), axis=1)  # [B]
    match_valid = tf.range(n - 1)[None, :] < ref_lens[:, None]  # j < S
    seg = tf.reshape(tf.range(batch)[:, None] * num_classes + tf.clip_by_value(refs, 0, num_classes - 1), [-1])
    vals = tf.reshape(tf.where(match_valid, prev[:, :-1], big), [-1])
    match = tf.reshape(tf.math.unsorted_segment_min(vals, seg, batch * num_classes), [batch, num_classes])
    out = tf.minimum(m[:, None] + 1, match)
    if blank_idx is not None:
        out = tf.where(tf.equal(tf.range(num_classes), blank_idx)[None, :], m[:, None], out)
    return out

"""Label sequences as dense and sparse tensors (legacy ``TFUtil`` functions): ``map_labels``, ``sparse_labels``,
``sparse_labels_with_seq_lens``, ``remove_labels``, ``ctc_greedy_decode``."""

from __future__ import annotations

from typing import Any, Collection, Dict, Optional, Tuple, Union

import numpy
import tensorflow as tf

from returnn.tf.ops.masks import sequence_mask
from returnn.tf.util.errors import TFUtilArgError


def map_labels(x: Union[tf.Tensor, tf.SparseTensor, Any], label_map: Dict[int, int], name: str = "map_labels"
               ) -> Union[tf.Tensor, tf.SparseTensor]:
    """:param x: int labels, dense (any shape) or a ``tf.SparseTensor``
    :param label_map: old label -> new label; labels not in it are kept as they are (they must be >= 0)
    :param name: name scope
    :return: ``x`` with each label replaced, the same kind of tensor
    :raises TFUtilArgError: a negative key in ``label_map``"""
    with tf.name_scope(name):
        if isinstance(x, tf.SparseTensor):
            return tf.SparseTensor(indices=x.indices, values=map_labels(x.values, label_map),
                                   dense_shape=x.dense_shape)
        x = tf.convert_to_tensor(x)
        if any(k < 0 for k in label_map):
            raise TFUtilArgError("map_labels", f"label_map keys must be >= 0, got {sorted(label_map)}")
        size = max(label_map) + 1 if label_map else 0
        table = numpy.arange(size, dtype=x.dtype.as_numpy_dtype)
        for k, v in label_map.items():
            table[k] = v
        in_table = tf.less(x, size)
        mapped = tf.gather(tf.constant(table), tf.minimum(x, max(size - 1, 0))) if size else x
        return tf.where(in_table, mapped, x)


def sparse_labels_with_seq_lens(x: Any, seq_lens: Any, dtype: Any = tf.int32, collapse_repeated: bool = False,
                                post_filter_idx: Optional[Union[int, Collection[int]]] = None
                                ) -> Tuple[tf.SparseTensor, tf.Tensor]:
    """:param x: (batch, time) int labels
    :param seq_lens: (batch,) int: valid labels per row
    :param dtype: dtype of the sparse values
    :param collapse_repeated: merge runs of the same label into one
    :param post_filter_idx: label(s) to drop (after collapsing)
    :return: (sparse (batch, max new length) tensor of the labels, new seq lens (batch,) int32)"""
    with tf.name_scope("sparse_labels"):
        x = tf.convert_to_tensor(x)
        seq_lens = tf.convert_to_tensor(seq_lens)
        mask = sequence_mask(seq_lens, maxlen=tf.shape(x)[1])
        if collapse_repeated:
            prev = tf.concat([tf.fill([tf.shape(x)[0], 1], -1), tf.cast(x[:, :-1], tf.int32)], axis=1)
            mask = tf.logical_and(mask, tf.not_equal(tf.cast(x, tf.int32), prev))
        if post_filter_idx is not None:
            ids = [post_filter_idx] if isinstance(post_filter_idx, int) else list(post_filter_idx)
            for idx in ids:
                mask = tf.logical_and(mask, tf.not_equal(x, tf.cast(idx, x.dtype)))
        return _pack_masked(x, mask, dtype)


def _pack_masked(x: tf.Tensor, mask: tf.Tensor, dtype: Any) -> Tuple[tf.SparseTensor, tf.Tensor]:
    new_lens = tf.reduce_sum(tf.cast(mask, tf.int32), axis=1)  # (batch,)
    values = tf.cast(tf.boolean_mask(x, mask), dtype)
    rows = tf.cast(tf.where(mask)[:, 0], tf.int64)
    # position within the row: running count of kept entries
    cols = tf.cast(tf.boolean_mask(tf.cumsum(tf.cast(mask, tf.int32), axis=1) - 1, mask), tf.int64)
    dense_shape = tf.stack([tf.cast(tf.shape(x)[0], tf.int64), tf.cast(tf.reduce_max(
        tf.concat([new_lens, [0]], axis=0)), tf.int64)])
    return tf.SparseTensor(indices=tf.stack([rows, cols], axis=1), values=values, dense_shape=dense_shape), new_lens


def sparse_labels(x: Any, seq_lens: Any, dtype: Any = tf.int32, collapse_repeated: bool = False) -> tf.SparseTensor:
    """:param x: (batch, time) int labels
    :param seq_lens: (batch,) int: valid labels per row
    :param dtype: dtype of the sparse values
    :param collapse_repeated: merge runs of the same label into one
    :return: sparse (batch, max length) tensor of the valid labels (e.g. CTC targets)"""
    return sparse_labels_with_seq_lens(x, seq_lens, dtype=dtype, collapse_repeated=collapse_repeated)[0]


def remove_labels(x: tf.SparseTensor, labels: Collection[int]) -> tf.SparseTensor:
    """:param x: 2-D sparse tensor of labels, row entries at positions 0..n-1
    :param labels: the labels to drop
    :return: ``x`` without them, the remaining entries of each row moved to the front; dense shape
        (rows, max remaining per row)"""
    with tf.name_scope("remove_labels"):
        keep = tf.ones_like(x.values, dtype=tf.bool)
        for label in labels:
            keep = tf.logical_and(keep, tf.not_equal(x.values, tf.cast(label, x.values.dtype)))
        indices = tf.boolean_mask(x.indices, keep)
        values = tf.boolean_mask(x.values, keep)
        rows = indices[:, 0]
        n_rows = x.dense_shape[0]
        # new column: number of kept entries before this one in the same row (entries are in row-major order)
        counts = tf.math.unsorted_segment_sum(tf.ones_like(rows), rows, num_segments=n_rows)  # (rows,)
        row_starts = tf.cumsum(counts, exclusive=True)
        cols = tf.range(tf.size(rows, out_type=tf.int64), dtype=tf.int64) - tf.gather(row_starts, rows)
        dense_shape = tf.stack([n_rows, tf.reduce_max(tf.concat([counts, [0]], axis=0))])
        return tf.SparseTensor(indices=tf.stack([rows, cols], axis=1), values=values, dense_shape=dense_shape)


def ctc_greedy_decode(logits: Any, seq_lens: Any, time_major: bool) -> tf.SparseTensor:
    """Best path: per frame the argmax, repeated labels merged, the blank (the last class) dropped.

    :param logits: (time, batch, classes) if ``time_major`` else (batch, time, classes)
    :param seq_lens: (batch,) int
    :param time_major: layout of ``logits``
    :return: sparse (batch, max decoded length) int64 labels, as ``tf.nn.ctc_greedy_decoder``"""
    with tf.name_scope("ctc_greedy_decode"):
        logits = tf.convert_to_tensor(logits)
        if time_major:
            logits = tf.transpose(logits, [1, 0, 2])  # (batch, time, classes)
        n_classes = tf.shape(logits)[-1]
        best = tf.argmax(logits, axis=-1, output_type=tf.int64)  # (batch, time)
        mask = sequence_mask(seq_lens, maxlen=tf.shape(best)[1])
        prev = tf.concat([tf.fill([tf.shape(best)[0], 1], tf.constant(-1, tf.int64)), best[:, :-1]], axis=1)
        mask = tf.logical_and(mask, tf.not_equal(best, prev))
        mask = tf.logical_and(mask, tf.not_equal(best, tf.cast(n_classes - 1, tf.int64)))
        return _pack_masked(best, mask, tf.int64)[0]

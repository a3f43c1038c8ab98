"""String tensors (legacy ``TFUtil`` functions): ``encode_raw``, ``vocab_idx_to_vocab_string``, ``string_merge``,
``string_replace``, ``bpe_merge``, ``words_split``, ``get_sparse_tensor_length``, ``string_words_calc_wer``."""

from __future__ import annotations

import re
from typing import Any, Optional, Tuple

import tensorflow as tf

from returnn.tf.ops.masks import sequence_mask
from returnn.tf.util.errors import TFUtilValueError


def encode_raw(x: Any, axis: int = -1, seq_lens: Optional[Any] = None) -> tf.Tensor:
    """The inverse of ``tf.io.decode_raw(..., tf.uint8)``: bytes to strings.

    :param x: uint8 (or int) tensor of byte values
    :param axis: the axis of the bytes of one string
    :param seq_lens: per string its number of bytes (shape of ``x`` without ``axis``); default: all
    :return: string tensor, the shape of ``x`` without ``axis``
    """
    with tf.name_scope("encode_raw"):
        x = tf.convert_to_tensor(x)
        rank = x.shape.rank
        axis = axis + rank if axis < 0 else axis
        if axis != rank - 1:
            x = tf.transpose(x, [i for i in range(rank) if i != axis] + [axis])
        table = tf.constant([bytes([i]) for i in range(256)])
        chars = tf.gather(table, tf.cast(x, tf.int32))
        if seq_lens is not None:
            mask = sequence_mask(seq_lens, maxlen=tf.shape(x)[-1])
            chars = tf.where(mask, chars, tf.zeros_like(chars))  # zeros_like of strings: ""
        return tf.strings.reduce_join(chars, axis=-1)


def vocab_idx_to_vocab_string(labels: Any, vocab: Any) -> tf.Tensor:
    """:param labels: int tensor of label indices, any shape
    :param vocab: (vocab_size,) string tensor (or a list of strings)
    :return: string tensor of ``labels``' shape: the vocabulary entry of each label"""
    with tf.name_scope("vocab_idx_to_vocab_string"):
        return tf.gather(tf.convert_to_tensor(vocab, tf.string), labels)


def string_merge(strings: Any, seq_lens: Any, separator: str = " ") -> tf.Tensor:
    """:param strings: (batch, time) string tensor
    :param seq_lens: (batch,) int: number of valid strings per row
    :param separator: put between the valid strings
    :return: (batch,) string tensor, each row's valid strings joined by ``separator``"""
    with tf.name_scope("string_merge"):
        strings = tf.convert_to_tensor(strings, tf.string)
        ragged = tf.RaggedTensor.from_tensor(strings, lengths=seq_lens)
        return tf.strings.reduce_join(ragged, axis=1, separator=separator)


def string_replace(strings: Any, old: str, new: str, count: int = -1) -> tf.Tensor:
    """:param strings: string tensor, any shape
    :param old: substring to replace (literal, not a pattern)
    :param new: its replacement
    :param count: -1: replace all occurrences; 1: the first only
    :return: string tensor of the same shape
    :raises TFUtilValueError: another ``count``"""
    if count not in (-1, 1):
        raise TFUtilValueError("string_replace", "count", expected="-1 (all) or 1 (the first)", got=count)
    with tf.name_scope("string_replace"):
        return tf.strings.regex_replace(strings, re.escape(old), new.replace("\\", "\\\\"),
                                        replace_global=(count == -1))


def bpe_merge(strings: Any) -> tf.Tensor:
    """:param strings: string tensor of BPE tokens joined by spaces, e.g. ``"hel@@ lo wo@@ r@@ ld"``
    :return: the words: every ``"@@ "`` removed (``"hello world"``); a trailing ``"@@"`` stays"""
    return string_replace(strings, old="@@ ", new="")


def words_split(strings: Any) -> tf.SparseTensor:
    """:param strings: (batch,) string tensor
    :return: (batch, max_num_words) sparse string tensor of the space-separated words (empty words, from
        repeated spaces, are dropped)"""
    with tf.name_scope("words_split"):
        return tf.compat.v1.string_split(strings, delimiter=" ", skip_empty=True)


def get_sparse_tensor_length(x: tf.SparseTensor) -> tf.Tensor:
    """:param x: 2-D sparse tensor, entries of each row at positions 0..n-1 (e.g. from :func:`words_split`)
    :return: (batch,) int64: the number of entries per row"""
    with tf.name_scope("get_sparse_tensor_length"):
        rows = x.indices[:, 0]
        return tf.math.unsorted_segment_sum(tf.ones_like(rows), rows, num_segments=x.dense_shape[0])


def string_words_calc_wer(hyps: Any, refs: Any) -> Tuple[tf.Tensor, tf.Tensor]:
    """:param hyps: (batch,) string tensor of space-separated words
    :param refs: (batch,) string tensor of space-separated words
    :return: (word edit distance per sequence, number of reference words per sequence), both (batch,) int64"""
    with tf.name_scope("string_words_calc_wer"):
        hyp_words = words_split(hyps)
        ref_words = words_split(refs)
        dist = tf.edit_distance(hyp_words, ref_words, normalize=False)
        return tf.cast(dist, tf.int64), get_sparse_tensor_length(ref_words)

"""String and label-sequence helpers of returnn.tf.util.basic against Python references and values observed from
the reference."""

import numpy as np
import pytest
import tensorflow as tf

from returnn.tf.util import basic as tf_util

tf1 = tf.compat.v1


def test_encode_raw(session):
    raw = tf1.decode_raw(tf.constant(["hello", "world", "a    "]), tf.uint8)
    assert session.run(tf_util.encode_raw(raw, seq_lens=tf.constant([5, 5, 1]))).tolist() == [b"hello", b"world",
                                                                                                b"a"]
    x = tf.constant([[65, 66], [67, 68]], dtype=tf.uint8)
    assert session.run(tf_util.encode_raw(x)).tolist() == [b"AB", b"CD"]
    assert session.run(tf_util.encode_raw(x, axis=0)).tolist() == [b"AC", b"BD"]  # observed from the reference


def test_string_merge_replace_bpe(session):
    vocab = ["</s>", "sub@@", "word", "hel@@", "lo"]
    labels = tf.constant([[1, 2, 0], [3, 4, 0]])
    strings = tf_util.vocab_idx_to_vocab_string(labels, vocab=vocab)
    merged = session.run(tf_util.string_merge(strings, seq_lens=tf.constant([3, 2])))
    assert merged.tolist() == [b"sub@@ word </s>", b"hel@@ lo"]
    assert session.run(tf_util.string_merge(tf.constant([["a", "b"], ["c", ""]]), tf.constant([2, 0]),
                                            separator="-")).tolist() == [b"a-b", b""]
    assert session.run(tf_util.bpe_merge(tf.constant(["hel@@ lo wo@@ r@@ ld", "a@@"]))).tolist() == [
        b"hello world", b"a@@"]
    assert session.run(tf_util.string_replace(tf.constant(["a.b.c"]), ".", "X")).tolist() == [b"aXbXc"]
    assert session.run(tf_util.string_replace(tf.constant(["a.b.c"]), ".", "X", count=1)).tolist() == [b"aXb.c"]
    with pytest.raises(ValueError, match="count"):
        tf_util.string_replace(tf.constant(["a"]), "a", "b", count=2)


def _levenshtein(a, b):
    d = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        prev, d[0] = d[0], i
        for j, y in enumerate(b, 1):
            prev, d[j] = d[j], min(d[j] + 1, d[j - 1] + 1, prev + (x != y))
    return d[len(b)]


def test_words_split_and_wer(session):
    words = tf_util.words_split(tf.constant(["a  b", " c", ""]))
    value, lens = session.run([words, tf_util.get_sparse_tensor_length(words)])
    assert value.indices.tolist() == [[0, 0], [0, 1], [1, 0]] and value.dense_shape.tolist() == [3, 2]
    assert lens.tolist() == [2, 1, 0]
    hyps = ["hello world", "a b c", "", "good"]
    refs = ["hello nice world", "a x c d", "x", "good"]
    wer, n_ref = session.run(tf_util.string_words_calc_wer(hyps=tf.constant(hyps), refs=tf.constant(refs)))
    assert wer.tolist() == [_levenshtein(h.split(), r.split()) for h, r in zip(hyps, refs)]
    assert n_ref.tolist() == [len(r.split()) for r in refs]


def test_map_labels_dense_and_sparse(session):
    label_map = {0: 3, 1: 2, 2: 1}
    assert session.run(tf_util.map_labels(tf.constant([0, 1, 2, 1, 7]), label_map)).tolist() == [3, 2, 1, 2, 7]
    sp = tf.SparseTensor(indices=[[0, 0], [1, 1]], values=tf.constant([0, 2]), dense_shape=[2, 2])
    res = tf_util.map_labels(sp, label_map)
    assert isinstance(res, tf.SparseTensor) and session.run(res).values.tolist() == [3, 1]


def test_sparse_labels_observed(session):
    x = tf.constant([[0, 1, 2, 3], [4, 5, 0, 0]])
    # values observed from the reference
    value = session.run(tf_util.sparse_labels(x, seq_lens=tf.constant([3, 2])))
    assert value.indices.tolist() == [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1]]
    assert value.values.tolist() == [0, 1, 2, 4, 5] and value.dense_shape.tolist() == [2, 3]
    value = session.run(tf_util.sparse_labels(tf.constant([[1, 1, 2, 2], [4, 4, 0, 0]]), seq_lens=tf.constant([4, 2]),
                                              collapse_repeated=True))
    assert value.indices.tolist() == [[0, 0], [0, 1], [1, 0]]
    assert value.values.tolist() == [1, 2, 4] and value.dense_shape.tolist() == [2, 2]


def test_remove_labels_observed(session):
    sp = tf.SparseTensor(indices=tf.constant([[0, 0], [0, 1], [0, 2], [1, 0]], tf.int64),
                         values=tf.constant([1, 1, 1, 3]), dense_shape=tf.constant([3, 3], tf.int64))
    # observed from the reference
    value = session.run(tf_util.remove_labels(sp, {1}))
    assert value.indices.tolist() == [[1, 0]] and value.values.tolist() == [3] and value.dense_shape.tolist() == [3, 1]
    value = session.run(tf_util.remove_labels(sp, {7}))
    assert value.values.tolist() == [1, 1, 1, 3] and value.dense_shape.tolist() == [3, 3]


def test_ctc_greedy_decode_matches_tf(session):
    rng = np.random.RandomState(5)
    logits = rng.randn(3, 6, 4).astype(np.float32)
    logits[0, 1:3, 1] = 10.0  # a repeated label
    seq_lens = [6, 4, 0]
    ours = session.run(tf_util.ctc_greedy_decode(tf.constant(logits), seq_lens=tf.constant(seq_lens),
                                                 time_major=False))
    (ref,), _ = tf.nn.ctc_greedy_decoder(tf.transpose(logits, [1, 0, 2]), sequence_length=tf.constant(seq_lens))
    ref = session.run(ref)
    assert ours.indices.tolist() == ref.indices.tolist() and ours.values.tolist() == ref.values.tolist()
    assert ours.dense_shape.tolist() == ref.dense_shape.tolist()
    ours_tm = session.run(tf_util.ctc_greedy_decode(tf.constant(logits.transpose(1, 0, 2)),
                                                    seq_lens=tf.constant(seq_lens), time_major=True))
    assert ours_tm.values.tolist() == ref.values.tolist()

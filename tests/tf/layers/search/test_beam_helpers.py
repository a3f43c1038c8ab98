"""Beam bookkeeping helpers: best beam, gather by source beams, backtracking."""

import numpy as np
import tensorflow as tf

from returnn.tf.layers.search.beam import SearchBeam, backtrack, flat_beam_indices, gather_beams


def test_best_beam_is_the_highest_final_score(session):
    """The final scores are already length-normalized by the search (see the choice layer), so the best
    hypothesis is the one with the highest final score, with and without length normalization."""
    scores = tf.constant([[-3.0, -4.0], [-2.0, -1.0]])
    lengths = tf.constant([1, 4, 1, 5])
    for norm in (True, False):
        beam = SearchBeam(2, "x", scores=scores, lengths=lengths, length_normalization=norm)
        assert list(session.run(beam.best_beam_index())) == [0, 1]


def test_gather_and_backtrack(session):
    # 1 sequence, K=2, 3 steps; values written after each step's selection
    values = tf.constant([[10, 11], [20, 21], [30, 31]])  # [T, B*K]
    src = tf.constant([[[0, 0]], [[1, 0]], [[0, 0]]])  # [T, B, K]
    out = session.run(backtrack(values, src))
    # beam 0 at t=2 extends beam 0 at t=1, which extends beam 1 at t=0
    np.testing.assert_array_equal(out[:, 0], [11, 20, 30])
    np.testing.assert_array_equal(out[:, 1], [11, 20, 31])
    np.testing.assert_array_equal(session.run(gather_beams(tf.constant([5, 6, 7, 8]),
                                                              flat_beam_indices(tf.constant([[1, 1], [0, 1]])))),
                                  [6, 6, 7, 8])

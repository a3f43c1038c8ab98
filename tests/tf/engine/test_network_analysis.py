"""Engine.analyze's frame-wise statistics (returnn.tf.engine.network_analysis) against hand-computed values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from returnn.tf.engine.network_analysis import FramewiseStatistics

P = "stats:analyze:"


def test_framewise_statistics_two_batches():
    stats = FramewiseStatistics(sil_label_idx=0)
    # frames: (probs, target): correct sil p=0.7, wrong non-sil p=0.2, correct non-sil p=0.5
    stats.add(np.array([[0.7, 0.2, 0.1], [0.5, 0.2, 0.3], [0.25, 0.5, 0.25]]), np.array([0, 1, 1]))
    stats.add(np.array([[0.1, 0.3, 0.6]]), np.array([2]))  # correct non-sil, p=0.6; no sil frame
    got = stats.get_stats()
    assert list(got) == sorted(got) and all(k.startswith(P) for k in got)
    assert got[P + "accumulated_seq_length"] == 4
    assert got[P + "accumulated_seq_length_sil"] == 1 and got[P + "accumulated_seq_length_no_sil"] == 3
    assert got[P + "accumulated_frame_error"] == pytest.approx(0.25)
    assert got[P + "accumulated_frame_error_no_sil"] == pytest.approx(1 / 3)
    ce = [-math.log(p) for p in (0.7, 0.2, 0.5, 0.6)]
    assert got[P + "accumulated_loss_ce"] == pytest.approx(sum(ce) / 4, rel=1e-6)
    assert got[P + "accumulated_loss_ce_sil"] == pytest.approx(ce[0], rel=1e-6)
    assert got[P + "accumulated_loss_perplexity"] == pytest.approx(math.exp(sum(ce) / 4), rel=1e-6)
    hist = np.zeros(20)
    for p in (0.7, 0.2, 0.5, 0.6):  # 20 bins over [0, 1]
        hist[int(p * 20)] += 0.25
    np.testing.assert_allclose(got[P + "accumulated_true_label_prob_histogram"], hist)
    # the last batch only: one non-sil frame; no sil frame: nan
    assert got[P + "batch_seq_length"] == 1 and got[P + "batch_seq_length_sil"] == 0
    assert got[P + "batch_frame_error"] == 0.0 and math.isnan(got[P + "batch_frame_error_sil"])
    assert got[P + "batch_loss_ce_no_sil"] == pytest.approx(-math.log(0.6), rel=1e-6)
    assert got[P + "batch_true_label_prob_histogram"][12] == 1.0

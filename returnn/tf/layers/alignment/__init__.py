"""Alignment layers: ``forced_align`` (Viterbi) and ``fast_bw`` (Baum-Welch soft alignment); importing registers
them."""

from returnn.tf.layers.alignment import fast_bw as _fast_bw  # noqa: F401
from returnn.tf.layers.alignment import forced_align as _forced_align  # noqa: F401

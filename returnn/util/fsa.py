"""Finite-state automata in the edge-list form of the Baum-Welch / Viterbi ops (``fast_bw``, ``forced_align``).

``FastBwFsaShared`` builds one FSA (edges ``from → to`` emitting a label, with a weight in -log space), the same
for every sequence of a batch; :meth:`FastBwFsaShared.get_fast_bw_fsa` lays out ``n_batch`` copies with disjoint
state numbers as :class:`FastBaumWelchBatchFsa`.
"""

from __future__ import annotations

from typing import List

import numpy


class FastBaumWelchBatchFsa:
    """The FSAs of a batch in the ops' layout.

    :param edges: int32 ``(4, num_edges)``: rows from-state, to-state, emission label, sequence index
    :param weights: float32 ``(num_edges,)``, -log space
    :param start_end_states: int32 ``(2, n_batch)``: start and end state per sequence
    """

    def __init__(self, edges: numpy.ndarray, weights: numpy.ndarray, start_end_states: numpy.ndarray):
        self.edges = edges
        self.weights = weights
        self.start_end_states = start_end_states
        self.num_edges = edges.shape[1]
        self.num_batch = start_end_states.shape[1]


class FastBwFsaShared:
    """One FSA shared by all sequences of a batch. Its start state is 0 and its end state the highest state
    index used by an edge."""

    def __init__(self):
        self.num_states = 1
        self.edges: List[list] = []  # [from, to, emission_idx, weight]

    def add_edge(self, source_state_idx: int, target_state_idx: int, emission_idx: int, weight: float = 0.0) -> None:
        """Adds the edge ``source → target`` that emits label ``emission_idx`` with ``weight`` (-log space)."""
        self.num_states = max(self.num_states, source_state_idx + 1, target_state_idx + 1)
        self.edges.append([source_state_idx, target_state_idx, emission_idx, weight])

    def add_inf_loop(self, state_idx: int, num_emission_labels: int) -> None:
        """Adds a loop on ``state_idx`` for every label ``0 .. num_emission_labels - 1`` (weight 0)."""
        for label in range(num_emission_labels):
            self.add_edge(state_idx, state_idx, label)

    def get_num_edges(self, n_batch: int) -> int:
        """Edges of the whole batch."""
        return len(self.edges) * n_batch

    def get_edges(self, n_batch: int) -> numpy.ndarray:
        """int32 ``(4, num_edges * n_batch)``: the edges of sequence ``b`` with states shifted by
        ``b * num_states``, sequence by sequence, in the order they were added."""
        edges = numpy.zeros((4, self.get_num_edges(n_batch)), dtype="int32")
        n = len(self.edges)
        for b in range(n_batch):
            for i, (src, tgt, emission, _) in enumerate(self.edges):
                edges[:, b * n + i] = (src + b * self.num_states, tgt + b * self.num_states, emission, b)
        return edges

    def get_weights(self, n_batch: int) -> numpy.ndarray:
        """float32 ``(num_edges * n_batch,)``."""
        return numpy.tile(numpy.array([e[3] for e in self.edges], dtype="float32"), n_batch)

    def get_start_end_states(self, n_batch: int) -> numpy.ndarray:
        """int32 ``(2, n_batch)``: ``b * num_states`` and ``b * num_states + num_states - 1``."""
        offsets = numpy.arange(n_batch, dtype="int32") * self.num_states
        return numpy.stack([offsets, offsets + self.num_states - 1]).astype("int32")

    def get_fast_bw_fsa(self, n_batch: int) -> FastBaumWelchBatchFsa:
        """The batch layout of ``n_batch`` copies."""
        return FastBaumWelchBatchFsa(edges=self.get_edges(n_batch), weights=self.get_weights(n_batch),
                                     start_end_states=self.get_start_end_states(n_batch))


from returnn.util.fsa_ctc import get_ctc_fsa_fast_bw as get_ctc_fsa_fast_bw  # noqa: E402  (public name)

"""The CTC FSA of a batch of label sequences in the edge-list layout of :mod:`returnn.util.fsa`, in numpy (the
same automaton as :func:`returnn.tf.ops.native.ctc.get_ctc_fsa_fast_bw`, whose module docstring describes it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, List

import numpy

if TYPE_CHECKING:  # returnn.util.fsa re-exports this module's function: no module-level import of it here
    from returnn.util.fsa import FastBaumWelchBatchFsa


def get_ctc_fsa_fast_bw(targets: numpy.ndarray, seq_lens: numpy.ndarray, blank_idx: int,
                        label_loop: bool = True) -> FastBaumWelchBatchFsa:
    """:param targets: int ``[B, S]`` (padded); :param seq_lens: int ``[B]``; :param blank_idx: the blank label
    :param label_loop: a label may repeat over frames (CTC); without: the RNA topology
    :return: the batch FSA: per sequence ``b`` the states ``b K .. b K + K - 1`` with ``K = 2 S + 3`` (start,
        the ``2 L + 1`` chain positions, end), all weights 0
    """
    targets = numpy.asarray(targets)
    seq_lens = numpy.asarray(seq_lens)
    batch, s_max = targets.shape
    k = 2 * s_max + 3
    edges: List[List[int]] = []
    for b in range(batch):
        length = int(seq_lens[b])
        last = 2 * length
        labels = [int(blank_idx) if p % 2 == 0 else int(targets[b, p // 2]) for p in range(last + 1)]
        start, end = b * k, b * k + k - 1

        def state(p: int) -> int:
            return b * k + 1 + p

        def add(src: int, p: int) -> None:
            edges.append([src, state(p), labels[p], b])
            if p == last or (p == last - 1 and last > 0):
                edges.append([src, end, labels[p], b])

        add(start, 0)
        if length > 0:
            add(start, 1)
        for p in range(last + 1):
            if p % 2 == 0 or label_loop:
                add(state(p), p)
            if p + 1 <= last:
                add(state(p), p + 1)
            if p % 2 == 1 and p + 2 <= last - 1 and (not label_loop or labels[p] != labels[p + 2]):
                add(state(p), p + 2)
    edges_np = numpy.array(edges, dtype="int32").reshape((-1, 4)).T.copy()
    start_end = numpy.stack([numpy.arange(batch) * k, numpy.arange(batch) * k + k - 1]).astype("int32")
    from returnn.util.fsa import FastBaumWelchBatchFsa  # at call time: see the import above

    return FastBaumWelchBatchFsa(edges=edges_np, weights=numpy.zeros((edges_np.shape[1],), "float32"),
                                 start_end_states=start_end)

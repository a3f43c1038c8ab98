"""Frame-level options of every dataset, as the reference: ``window`` (frame stacking of ``"data"``),
``context_window`` (extra context frames in the batches) and the sequence/chunk iteration the batch generator
uses (:func:`iterate_seqs`).
"""

from __future__ import annotations

from typing import Any, Iterator, Optional, Sequence, Tuple

import numpy as np

from returnn.errors import DatasetArgError
from returnn.util.numbers_dict import NumbersDict


def check_window(window: Any, cls_name: str) -> int:
    """``window``: an odd int >= 1 (1: off).

    :raises DatasetArgError: otherwise
    """
    window = 1 if window is None else window
    if not isinstance(window, int) or isinstance(window, bool) or window < 1 or window % 2 == 0:
        raise DatasetArgError(f"{cls_name}: window must be an odd int >= 1 (frames stacked around each frame), "
                              f"got {window!r}")
    return window


def sliding_window(data: np.ndarray, window: int) -> np.ndarray:
    """Stacks ``window`` frames around each frame: ``[T, D] -> [T, window * D]``; frame ``t`` holds frames
    ``t - window // 2 .. t + window // 2``, zeros beyond the sequence."""
    if window == 1:
        return data
    half = window // 2
    num_frames, dim = data.shape
    padded = np.concatenate([np.zeros((half, dim), data.dtype), data, np.zeros((half, dim), data.dtype)])
    return np.concatenate([padded[i:i + num_frames] for i in range(window)], axis=1)


def context_window_sides(context_window: Any) -> Tuple[NumbersDict, NumbersDict]:
    """``context_window`` (an int for ``"data"`` or a dict key -> int: the total frames incl. the current one)
    -> ``(ctx_left, ctx_right)``: ``ctx_left = (w - 1) // 2``, ``ctx_right = w - 1 - ctx_left`` per key."""
    if context_window is None:
        context_window = 1
    if isinstance(context_window, int):
        context_window = {"data": context_window}
    if not isinstance(context_window, dict):
        raise DatasetArgError(f"context_window must be an int or a dict key -> int, got {context_window!r}")
    left, right = {}, {}
    for key, value in context_window.items():
        ctx = int(value) - 1
        left[key] = ctx // 2
        right[key] = ctx - ctx // 2
    return NumbersDict(left), NumbersDict(right)


def iterate_seqs(dataset, *, recurrent_net: bool = True, used_data_keys: Optional[Sequence[str]] = None
                 ) -> Iterator[Tuple[int, NumbersDict, NumbersDict]]:
    """Yields ``(seq_idx, start, end)`` (per-key :class:`NumbersDict` frames) of every sequence of the current
    epoch, or of every chunk with ``dataset.chunk_size`` (chunk ``i`` covers ``[i * step, min(i * step + size,
    len))``, as many chunks as the leading key's steps below its length). ``dataset.custom_chunking_func``
    replaces this (called with ``dataset``, ``seq_idx_start``, ``recurrent_net``, ``used_data_keys``)."""
    from returnn.datasets.chunking import iter_chunks, is_chunking_on
    if dataset.custom_chunking_func is not None:
        yield from dataset.custom_chunking_func(dataset=dataset, seq_idx_start=0, recurrent_net=recurrent_net,
                                                used_data_keys=used_data_keys)
        return
    chunk_size, chunk_step = dataset.chunk_size, dataset.chunk_step
    chunking = is_chunking_on(chunk_size)
    seq_idx = 0
    while dataset.is_less_than_num_seqs(seq_idx):
        length = dataset.get_seq_length(seq_idx)
        lens = {k: int(v) for k, v in length.items() if used_data_keys is None or k in used_data_keys}
        if chunking:
            for start, end in iter_chunks(lens, chunk_size, chunk_step, min_chunk_size=dataset.min_chunk_size):
                yield seq_idx, NumbersDict(start), NumbersDict(end)
        else:
            yield seq_idx, NumbersDict({k: 0 for k in lens}), NumbersDict(lens)
        seq_idx += 1

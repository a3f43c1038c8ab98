"""``CachedDataset``: the reference's older base class of datasets that load sequences into a cache, at its path
``returnn.datasets.cached``.

Here every dataset keeps the sequences of the current batch window (see :class:`returnn.datasets.dataset.Dataset`).
This class adds the older subclass protocol the reference's ``CachedDataset`` subclasses (e.g. old HDF readers copied
into user code) are written against:

- the subclass fills, while adding its files: ``_num_seqs``, ``_num_timesteps``, ``num_inputs``, ``num_outputs``,
  ``labels``, ``target_keys`` and per sequence (real index = corpus index) its lengths via
  :meth:`_get_seq_length_by_real_idx` (a vector: the input frames, then one entry per target key); optionally
  ``targets`` (key -> one flat array of all frames of the epoch order, written at :meth:`get_seq_start`);
- :meth:`init_seq_order` gives ``_seq_index`` (sorted index -> real index), ``_index_map`` (identity here) and the
  running frame starts of the epoch order (:meth:`get_seq_start`);
- :meth:`load_seqs` calls the subclass' ``_load_seqs(start, end)``, which asks :meth:`insert_alloc_interval` for the
  sorted indices still to load and stores each one's input frames with :meth:`_set_alloc_intervals_data`;
  :meth:`is_cached` tells whether a range is loaded.

A subclass that instead implements the corpus interface of :class:`~returnn.datasets.dataset.Dataset`
(``get_total_num_seqs``, ``_collect_corpus_seq``, ...) works as any dataset here.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

import numpy as np

from returnn.datasets.dataset import Dataset, DatasetSeq


class CachedDataset(Dataset):
    """Base of cached datasets (see the module doc).

    :param cache_byte_size: the reference's cache size in bytes (0: no limit); accepted, not used here (the loaded
        sequences are bounded by the batch window instead)
    """

    def __init__(self, cache_byte_size: int = 0, **kwargs):
        super().__init__(**kwargs)
        self.cache_byte_size_total_limit = cache_byte_size
        self._num_seqs = 0
        self._num_timesteps = 0
        self._seq_start: List[np.ndarray] = []  # the subclass may set the first entry; see init_seq_order
        self._seq_index: List[int] = []
        self._index_map: List[int] = []
        self.preload_set: set = set()
        self.timestamps: Optional[np.ndarray] = None
        self._alloc_data: Dict[int, np.ndarray] = {}  # sorted index -> input frames

    def _uses_old_protocol(self) -> bool:
        """:return: whether the subclass loads through ``_load_seqs`` (the older protocol, see the module doc)"""
        return callable(getattr(self, "_load_seqs", None))

    # ---- the corpus interface of Dataset, from the older protocol
    def get_total_num_seqs(self) -> int:
        """:return: ``_num_seqs`` (the older protocol), else the corpus interface's count"""
        if self._uses_old_protocol():
            return int(self._num_seqs)
        return super().get_total_num_seqs()

    def _get_corpus_seq_len(self, corpus_idx: int) -> int:
        if self._uses_old_protocol():
            return int(np.asarray(self._get_seq_length_by_real_idx(corpus_idx)).reshape(-1)[0])
        return super()._get_corpus_seq_len(corpus_idx)

    def _get_seq_length_by_real_idx(self, real_seq_idx: int) -> Any:
        """:return: the lengths of a sequence by its real (corpus) index: input frames, then per target key
        (implemented by a subclass of the older protocol)"""
        raise NotImplementedError(f"{type(self).__name__}: implement _get_seq_length_by_real_idx")

    def get_num_timesteps(self) -> int:
        """:return: the input frames of all sequences (``_num_timesteps``)"""
        return int(self._num_timesteps)

    # ---- epoch order
    def init_seq_order(self, epoch: Optional[int] = None, seq_list: Optional[Sequence[str]] = None,
                       seq_order: Optional[Sequence[int]] = None) -> bool:
        """As :meth:`Dataset.init_seq_order`; also sets ``_seq_index``, ``_index_map`` and the frame starts of
        the epoch order, and empties the cache."""
        result = super().init_seq_order(epoch=epoch, seq_list=seq_list, seq_order=seq_order)
        self._alloc_data.clear()
        self.preload_set.clear()
        if self._uses_old_protocol():
            self._seq_index = self.get_current_seq_order()
            self._index_map = list(range(len(self._seq_index)))
            starts: List[np.ndarray] = []
            running: Optional[np.ndarray] = None
            for real_idx in self._seq_index:
                lens = np.asarray(self._get_seq_length_by_real_idx(real_idx), dtype="int64").reshape(-1)
                running = np.zeros_like(lens) if running is None else running
                starts.append(running)
                running = running + lens
            if running is not None:
                starts.append(running)
            self._seq_start = starts
        return result

    def get_seq_start(self, sorted_seq_idx: int) -> np.ndarray:
        """:return: the frame start of sequence ``sorted_seq_idx`` of the epoch order in the flat arrays of all
        its frames, per column (input, then the target keys)"""
        return self._seq_start[sorted_seq_idx]

    # ---- loading (older protocol)
    def load_seqs(self, start: int, end: int) -> None:
        """Loads the sequences ``[start, end)`` of the epoch order (the older protocol: through ``_load_seqs``)."""
        if not self._uses_old_protocol():
            super().load_seqs(start, end)
            return
        if self.epoch is None:
            self.init_seq_order(epoch=1)
        end = min(end, self.num_seqs)
        if start < end and not self.is_cached(start, end):
            self._load_seqs(start, end)

    def insert_alloc_interval(self, start: int, end: int) -> List[int]:
        """:return: the sorted indices in ``[start, end)`` that are not loaded yet (to be stored with
        :meth:`_set_alloc_intervals_data`)"""
        return [i for i in range(start, end) if i not in self._alloc_data]

    def _set_alloc_intervals_data(self, idc: int, data: Any) -> None:
        """Stores the input frames of sorted sequence ``idc``."""
        self._alloc_data[idc] = np.asarray(data)

    def is_cached(self, start: int, end: int, blocking: bool = False) -> bool:
        """:return: whether the sequences ``[start, end)`` of the epoch order are loaded"""
        return all(i in self._alloc_data for i in range(start, end))

    def _collect_corpus_seq(self, corpus_idx: int) -> DatasetSeq:
        if not self._uses_old_protocol():
            return super()._collect_corpus_seq(corpus_idx)
        sorted_idx = self._seq_index.index(corpus_idx)
        if sorted_idx not in self._alloc_data:
            self._load_seqs(sorted_idx, sorted_idx + 1)
        features = {"data": self._alloc_data[sorted_idx]}
        lens = np.asarray(self._get_seq_length_by_real_idx(corpus_idx)).reshape(-1)
        starts = self.get_seq_start(sorted_idx)
        targets = getattr(self, "targets", None) or {}
        for col, key in enumerate(getattr(self, "target_keys", []) or [], start=1):
            flat = targets.get(key)
            if flat is not None and col < len(lens):
                features[key] = np.asarray(flat[starts[col]:starts[col] + lens[col]])
        return DatasetSeq(corpus_idx, features, seq_tag=self._get_corpus_seq_tag(corpus_idx))

    def _get_corpus_seq_tag(self, corpus_idx: int) -> str:
        if not self._uses_old_protocol():
            return super()._get_corpus_seq_tag(corpus_idx)
        tags = getattr(self, "tags", None)
        return tags[corpus_idx] if tags else f"seq-{corpus_idx}"

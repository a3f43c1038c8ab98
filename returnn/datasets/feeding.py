"""Fast numpy feeding: padded batch arrays built ahead in a background thread.

:func:`iterate_batch_data` turns the :class:`~returnn.datasets.batching.Batch` es of a
:class:`~returnn.datasets.batching.BatchSetGenerator` into :class:`BatchData` (batch-major padded numpy
arrays plus sequence lengths). A producer thread loads the sequences (``dataset.load_seqs``) and builds the
arrays; a bounded queue (``prefetch`` batches) decouples it from the consumer (the training loop). The thread
stops at the end of the epoch, stops and re-raises in the consumer on an error, and stops early on
:meth:`BatchDataIterator.close`. The producer is the only user of the dataset while it runs.
"""

from __future__ import annotations

import queue
import threading
from dataclasses import dataclass, field
from typing import Dict, Iterable, Iterator, List, Optional, Sequence

import numpy as np

from returnn.util.numbers_dict import NumbersDict


@dataclass
class BatchData:
    """One mini-batch as numpy arrays.

    :ivar data: key -> padded array, batch-major: sparse ``int32 [B, T]``, dense ``float32 [B, T, dim]``
        (more static axes possible), keys without a time axis ``[B, ...]``; padding is 0
    :ivar seq_lens: key -> ``int32 [B]`` real lengths (time axis keys only)
    :ivar seq_tags: tag per batch row
    :ivar seq_idx: epoch sequence index per batch row
    :ivar num_frames: real frames per key (sum of ``seq_lens``)
    :ivar num_seqs: number of rows ``B``
    """

    data: Dict[str, np.ndarray]
    seq_lens: Dict[str, np.ndarray]
    seq_tags: List[str]
    seq_idx: List[int]
    num_frames: NumbersDict
    num_seqs: int
    extra: Dict[str, object] = field(default_factory=dict)


def _target_dtype(dataset, key: str, sample: np.ndarray):
    if dataset.is_data_sparse(key):
        return np.int32
    if sample.dtype.kind == "f":
        return np.float32
    return sample.dtype


def build_batch_data(dataset, batch, data_keys: Sequence[str]) -> BatchData:
    """Builds the :class:`BatchData` of one batch (sequences must be loadable with ``dataset.get_data``)."""
    start, end = batch.start_seq, batch.end_seq
    if start is not None:
        dataset.load_seqs(start, end)
    num_slices = batch.num_slices
    data: Dict[str, np.ndarray] = {}
    seq_lens: Dict[str, np.ndarray] = {}
    num_frames = NumbersDict(0)
    tags: List[Optional[str]] = [None] * num_slices
    idxs: List[int] = [-1] * num_slices
    for part in batch.seqs:
        if tags[part.batch_slice] is None:
            tags[part.batch_slice] = dataset.get_tag(part.seq_idx)
            idxs[part.batch_slice] = part.seq_idx
    for key in data_keys:
        shape = list(dataset.get_data_shape(key))
        arrays = [dataset.get_data(part.seq_idx, key) for part in batch.seqs]
        sample = arrays[0] if arrays else np.zeros((0,), np.float32)
        dtype = _target_dtype(dataset, key, sample)
        has_time = sample.ndim > len(shape)
        if not has_time:
            out = np.zeros([num_slices] + list(sample.shape), dtype=dtype)
            for part, arr in zip(batch.seqs, arrays):
                out[part.batch_slice] = arr
            data[key] = out
            continue
        max_t = int(batch.max_num_frames_per_slice[key] or 0)
        out = np.zeros([num_slices, max_t] + list(sample.shape[1:]), dtype=dtype)
        lens = np.zeros([num_slices], dtype=np.int32)
        total = 0
        for part, arr in zip(batch.seqs, arrays):
            s, e, off = part.frame_range(key)
            n = e - s
            out[part.batch_slice, off:off + n] = arr[s:e]
            lens[part.batch_slice] = max(lens[part.batch_slice], off + n)
            total += n
        data[key] = out
        seq_lens[key] = lens
        num_frames[key] = total
    return BatchData(data=data, seq_lens=seq_lens, seq_tags=[t or "" for t in tags], seq_idx=idxs,
                     num_frames=num_frames, num_seqs=num_slices)


_END = object()


class _Failure:
    def __init__(self, exc: BaseException):
        self.exc = exc


class BatchDataIterator:
    """Iterator of :class:`BatchData` fed by a background thread (see the module doc).

    :param dataset: the dataset (its current epoch)
    :param batches: batches (a :class:`BatchSetGenerator` or any iterable of :class:`Batch`)
    :param data_keys: keys to put into each :class:`BatchData`
    :param prefetch: queue size (batches built ahead), >= 1
    """

    def __init__(self, dataset, batches: Iterable, data_keys: Sequence[str], prefetch: int = 4):
        self.dataset = dataset
        self.data_keys = list(data_keys)
        self._batches = batches
        self._queue: "queue.Queue" = queue.Queue(maxsize=max(int(prefetch), 1))
        self._stop = threading.Event()
        self._done = False
        self._thread = threading.Thread(target=self._produce, name=f"batch-feeder({dataset.name})", daemon=True)
        self._thread.start()

    def _put(self, item) -> bool:
        while not self._stop.is_set():
            try:
                self._queue.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def _produce(self) -> None:
        try:
            for batch in self._batches:
                if self._stop.is_set():
                    return
                if not self._put(build_batch_data(self.dataset, batch, self.data_keys)):
                    return
            self._put(_END)
        except BaseException as exc:  # re-raised in the consumer
            self._put(_Failure(exc))

    def __iter__(self) -> Iterator[BatchData]:
        return self

    def __next__(self) -> BatchData:
        if self._done:
            raise StopIteration
        item = self._queue.get()
        if item is _END:
            self._finish()
            raise StopIteration
        if isinstance(item, _Failure):
            self._finish()
            raise item.exc
        return item

    def _finish(self) -> None:
        self._done = True
        self._thread.join()

    def close(self) -> None:
        """Stops the producer thread (pending batches are dropped) and waits for it."""
        self._stop.set()
        self._done = True
        while True:
            try:
                self._queue.get_nowait()
            except queue.Empty:
                break
        self._thread.join()

    def __enter__(self) -> "BatchDataIterator":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self):
        if not self._done:
            self._stop.set()


def iterate_batch_data(dataset, batches: Iterable, data_keys: List[str], prefetch: int = 4) -> BatchDataIterator:
    """Iterates :class:`BatchData` of ``batches``, built in a background thread with a bounded queue.

    :return: a :class:`BatchDataIterator` (iterator with ``close()``; also a context manager)
    :raises: in the consumer, any error the producer hit (e.g. a :class:`~returnn.errors.DataFileError`)
    """
    return BatchDataIterator(dataset, batches, data_keys, prefetch=prefetch)

"""``FeedDictDataProvider``: the mini-batches of a dataset as feed dicts of the extern data placeholders (public
path ``returnn.tf.data_pipeline``, as the reference's; the engine's runner feeds with ``Session.make_callable`` on
the same arrays, :mod:`returnn.datasets.feeding`)."""

from __future__ import annotations

from typing import Any, Dict, Iterable, Optional, Tuple

import numpy as np

from returnn.datasets.feeding import BatchData, build_batch_data


def feed_dict_for_batch(extern_data: Any, data_keys: Iterable[str], batch: BatchData) -> Dict[Any, np.ndarray]:
    """:return: placeholder -> value for each of ``data_keys``: the padded data (time-major data swapped) and the
        sequence lengths of its first dynamic axis, as the runner feeds them
    :raises KeyError: a key that ``extern_data`` or the batch does not have
    """
    feed: Dict[Any, np.ndarray] = {}
    for key in sorted(data_keys):
        data = extern_data.data[key]
        value = batch.data[key]
        if data.batch_dim_axis == 1 and data.time_dim_axis == 0 and value.ndim >= 2:
            value = np.swapaxes(value, 0, 1)
        feed[data.placeholder] = value
        sizes = data.size_placeholder or {}
        if sizes and key in batch.seq_lens:
            feed[sizes[min(sizes)]] = batch.seq_lens[key]
    return feed


class NoMoreBatchesError(AssertionError):
    """:meth:`FeedDictDataProvider.get_feed_dict` was called with no batch left in the epoch (an ``AssertionError``,
    as the reference's provider raises)."""


class FeedDictDataProvider:
    """Builds one feed dict per batch of ``batches``, in order, in the calling thread.

    :param extern_data: the network's :class:`returnn.tf.network.ExternData` (placeholders created)
    :param data_keys: the keys to feed (e.g. ``network.used_data_keys``)
    :param dataset: the dataset the batches belong to (epoch initialized)
    :param batches: a :class:`returnn.datasets.batching.BatchSetGenerator` (``dataset.generate_batches(...)``)
    :param enforce_min_len1: accepted for the reference's signature; not supported (must be False)
    :param capacity: accepted for the reference's signature (batches are built on demand here)
    :param batch_slice: accepted for the reference's signature; not supported (must be None)
    :raises ValueError: ``enforce_min_len1`` or ``batch_slice`` given
    """

    def __init__(self, *, extern_data: Any, data_keys: Iterable[str], dataset: Any, batches: Any,
                 enforce_min_len1: bool = False, capacity: int = 10, batch_slice: Optional[slice] = None):
        if enforce_min_len1 or batch_slice is not None:
            raise ValueError("FeedDictDataProvider: enforce_min_len1 and batch_slice are not supported here")
        self.extern_data = extern_data
        self.data_keys = sorted(data_keys)
        self.dataset = dataset
        self.batches = batches
        self.capacity = capacity
        self._seqs_done = 0  # end sequence index of the last batch given out

    def get_dataset_name(self) -> str:
        """:return: the dataset's name"""
        return getattr(self.dataset, "name", type(self.dataset).__name__)

    def have_more_data(self, session: Any = None) -> bool:
        """:return: whether :meth:`get_feed_dict` has another batch (``session`` is ignored)"""
        return bool(self.batches.has_more())

    def get_next_batch(self) -> Optional[BatchData]:
        """:return: the arrays of the next batch, or None at the end of the epoch"""
        if not self.batches.has_more():
            return None
        batch = self.batches.peek_next_n(1)[0]
        self.batches.advance(1)
        if batch.end_seq is not None:
            self._seqs_done = max(self._seqs_done, batch.end_seq)
        return build_batch_data(self.dataset, batch, self.data_keys)

    def get_complete_frac(self) -> Optional[float]:
        """:return: the fraction of the epoch's sequences given out so far, in [0, 1] (None: the dataset does not
            know its number of sequences)"""
        num_seqs = getattr(self.dataset, "num_seqs", None)
        if not num_seqs:
            return None
        return min(self._seqs_done / num_seqs, 1.0)

    def get_feed_dict(self, single_threaded: bool = False) -> Tuple[Dict[Any, np.ndarray], Dict[str, Any]]:
        """:param single_threaded: accepted for the reference's signature (always in the calling thread here)
        :return: (feed dict of :func:`feed_dict_for_batch`, meta: ``seq_idx``, ``seq_tag`` per batch row and
            ``complete_frac``)
        :raises NoMoreBatchesError: no batch left (check :meth:`have_more_data` first)
        """
        batch = self.get_next_batch()
        if batch is None:
            raise NoMoreBatchesError("FeedDictDataProvider: no more batches in this epoch (check have_more_data())")
        meta = {"seq_idx": list(batch.seq_idx), "seq_tag": list(batch.seq_tags),
                "complete_frac": self.get_complete_frac()}
        return feed_dict_for_batch(self.extern_data, self.data_keys, batch), meta

"""``CachedDataset``: the reference's older base class of datasets that keep loaded sequences in a cache, at
its path ``returnn.datasets.cached``. Here every dataset caches the sequences of the current batch window (see
:class:`returnn.datasets.dataset.Dataset`), so this is the common base with the reference's constructor
argument ``cache_byte_size`` (accepted; the amount of cached data is bounded by the batch window instead).
Subclasses implement the corpus interface of :class:`~returnn.datasets.dataset.Dataset`
(``get_total_num_seqs``, ``_collect_corpus_seq``, optionally ``_get_corpus_seq_len`` / ``_get_corpus_seq_tag``).
"""

from __future__ import annotations

from returnn.datasets.dataset import Dataset


class CachedDataset(Dataset):
    """Base of cached datasets (see the module doc).

    :param cache_byte_size: the reference's cache size in bytes (0: no limit); accepted, not used here
    """

    def __init__(self, cache_byte_size: int = 0, **kwargs):
        super().__init__(**kwargs)
        self.cache_byte_size_total_limit = cache_byte_size

"""``CachedDataset``'s older subclass protocol (``_load_seqs`` + ``insert_alloc_interval`` /
``_set_alloc_intervals_data``), as old readers written against the reference's class use it."""

import numpy as np

from returnn.datasets.cached import CachedDataset


class _ThreeSeqs(CachedDataset):
    """Three sequences of 2, 4, 3 frames (value: 10 * seq + frame), classes = frame index."""

    lens = [2, 4, 3]

    def __init__(self, **kwargs):
        super().__init__(cache_byte_size=100, **kwargs)
        self._num_seqs = len(self.lens)
        self._num_timesteps = sum(self.lens)
        self.num_inputs = 1
        self.num_outputs = {"data": [1, 2], "classes": [5, 1]}
        self.target_keys = ["classes"]
        self.targets = {"classes": None}
        self.loaded_calls = []

    def _get_seq_length_by_real_idx(self, real_seq_idx):
        return np.array([self.lens[real_seq_idx], self.lens[real_seq_idx]])

    def _load_seqs(self, start, end):
        self.loaded_calls.append((start, end))
        if self.targets["classes"] is None:
            self.targets["classes"] = np.zeros((self._num_timesteps,), "int32")
        for idc in self.insert_alloc_interval(start, end):
            real = self._seq_index[idc]
            n = self.lens[real]
            self._set_alloc_intervals_data(idc, data=(10 * real + np.arange(n, dtype="float32"))[:, None])
            s = self.get_seq_start(idc)[1]
            self.targets["classes"][s:s + n] = np.arange(n)
        assert self.is_cached(start, end)


def test_old_protocol_loads_through_load_seqs_in_epoch_order():
    ds = _ThreeSeqs(seq_ordering="sorted")  # by length: seqs 0 (2), 2 (3), 1 (4)
    ds.initialize()
    ds.init_seq_order(epoch=1)
    assert ds.num_seqs == 3 and ds.get_num_timesteps() == 9
    assert list(ds.get_seq_start(1)) == [2, 2] and list(ds.get_seq_start(2)) == [5, 5]
    assert not ds.is_cached(0, 2)
    ds.load_seqs(0, 2)
    assert ds.is_cached(0, 2) and not ds.is_cached(0, 3) and ds.loaded_calls == [(0, 2)]
    ds.load_seqs(0, 2)  # already cached: no second call
    assert ds.loaded_calls == [(0, 2)]
    np.testing.assert_array_equal(ds.get_data(1, "data")[:, 0], [20, 21, 22])
    np.testing.assert_array_equal(ds.get_data(1, "classes"), [0, 1, 2])
    assert ds.get_data(2, "data").shape == (4, 1)  # loaded on demand
    assert ds.get_tag(0) == "seq-0"

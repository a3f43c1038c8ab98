"""Tests for batch generation (padding counted, max_seqs, max_seq_length, chunk windows) and feeding."""

import threading

import numpy as np
import pytest

from returnn.datasets.chunking import chunk_bounds_list, parse_chunking
from returnn.datasets.feeding import iterate_batch_data
from returnn.datasets.generating import StaticDataset
from returnn.errors import ConfigValueError, DatasetFileError

LENS = [5, 3, 10, 7, 2, 8]


def _ds(**kwargs):
    data = [{"data": np.arange(n * 3, dtype="float32").reshape(n, 3) + 100 * i,
             "classes": np.arange(n, dtype="int32") + 10 * i} for i, n in enumerate(LENS)]
    return StaticDataset(data, output_dim={"data": (3, 2), "classes": (100, 1)}, **kwargs)


def _batches(ds, **kwargs):
    ds.init_seq_order(epoch=1)
    return [[(p.seq_idx, p.seq_start_frame["data"], p.seq_end_frame["data"], p.batch_slice) for p in b.seqs]
            for b in ds.generate_batches(**kwargs)]


def _seqs(batches):
    return [[s[0] for s in b] for b in batches]


def test_padding_counted():
    # Observed on the reference: max(len) * num_seqs <= batch_size.
    assert _seqs(_batches(_ds(), batch_size=12)) == [[0, 1], [2], [3], [4], [5]]
    assert _seqs(_batches(_ds(), batch_size=20)) == [[0, 1], [2, 3], [4, 5]]
    assert _seqs(_batches(_ds(), batch_size=1000)) == [[0, 1, 2, 3, 4, 5]]


def test_max_seqs():
    assert _seqs(_batches(_ds(), batch_size=1000, max_seqs=4)) == [[0, 1, 2, 3], [4, 5]]
    assert _seqs(_batches(_ds(), batch_size=1000, max_seqs=1)) == [[i] for i in range(6)]


def test_seq_longer_than_batch_size_is_own_batch():
    assert _seqs(_batches(_ds(), batch_size=4)) == [[i] for i in range(6)]


def test_max_seq_length_skips():
    assert _seqs(_batches(_ds(), batch_size=100, max_seq_length=6)) == [[0, 1, 4]]
    assert _seqs(_batches(_ds(), batch_size=100, max_seq_length={"classes": 7})) == [[0, 1, 3, 4]]


def test_max_pad_size():
    # [5,3]: pad 2; +10 would pad 12 -> new; [10,7]: pad 3; +2 would pad 11; [2] +8 would pad 6.
    assert _seqs(_batches(_ds(), batch_size=1000, max_pad_size=3)) == [[0, 1], [2, 3], [4], [5]]


def test_batch_slices_and_max_frames():
    ds = _ds()
    ds.init_seq_order(epoch=1)
    batches = list(ds.generate_batches(batch_size=20))
    assert [b.num_slices for b in batches] == [2, 2, 2]
    assert [b.max_num_frames_per_slice["data"] for b in batches] == [5, 10, 8]
    assert batches[1].seqs[1].batch_slice == 1


def test_chunk_windows():
    # Observed on the reference with "4:2" and "4:3".
    assert chunk_bounds_list(5, "4:2") == [(0, 4), (2, 5), (4, 5)]
    assert chunk_bounds_list(10, "4:3") == [(0, 4), (3, 7), (6, 10), (9, 10)]
    assert chunk_bounds_list(2, "4:2") == [(0, 2)]
    assert chunk_bounds_list(10, "4:3", min_chunk_size=2) == [(0, 4), (3, 7), (6, 10)]
    assert chunk_bounds_list(10, 5) == [(0, 5), (5, 10)]


def test_chunked_batches():
    batches = _batches(_ds(chunking="4:3"), batch_size=8)
    assert batches == [
        [(0, 0, 4, 0), (0, 3, 5, 1)], [(1, 0, 3, 0), (2, 0, 4, 1)], [(2, 3, 7, 0), (2, 6, 10, 1)],
        [(2, 9, 10, 0), (3, 0, 4, 1)], [(3, 3, 7, 0), (3, 6, 7, 1)], [(4, 0, 2, 0), (5, 0, 4, 1)],
        [(5, 3, 7, 0), (5, 6, 8, 1)]]


@pytest.mark.parametrize("bad", ["4:0", "a:b", "1:2:3", -3])
def test_chunking_bad(bad):
    with pytest.raises(ConfigValueError, match="chunking"):
        parse_chunking(bad)


def test_chunking_per_key_dicts():
    size, step = parse_chunking(({"data": 4, "classes": 2}, {"data": 2, "classes": 1}))
    assert size["data"] == 4 and step["classes"] == 1


def test_feeding_arrays():
    ds = _ds()
    ds.init_seq_order(epoch=1)
    out = list(iterate_batch_data(ds, ds.generate_batches(batch_size=20), ["data", "classes"], prefetch=2))
    assert len(out) == 3
    b = out[1]
    assert b.num_seqs == 2 and b.seq_tags == ["seq-2", "seq-3"] and b.seq_idx == [2, 3]
    assert b.data["data"].shape == (2, 10, 3) and b.data["data"].dtype == np.float32
    assert b.data["classes"].shape == (2, 10) and b.data["classes"].dtype == np.int32
    np.testing.assert_array_equal(b.seq_lens["data"], [10, 7])
    np.testing.assert_array_equal(b.data["classes"][1], [30, 31, 32, 33, 34, 35, 36, 0, 0, 0])
    np.testing.assert_array_equal(b.data["data"][1, 6], [318, 319, 320])
    assert b.num_frames["data"] == 17


def test_feeding_chunked():
    ds = _ds(chunking="4:3")
    ds.init_seq_order(epoch=1)
    out = list(iterate_batch_data(ds, ds.generate_batches(batch_size=8), ["classes"]))
    np.testing.assert_array_equal(out[2].data["classes"], [[23, 24, 25, 26], [26, 27, 28, 29]])
    np.testing.assert_array_equal(out[3].seq_lens["classes"], [1, 4])


def test_feeding_not_recurrent():
    ds = _ds()
    ds.init_seq_order(epoch=1)
    out = list(iterate_batch_data(ds, ds.generate_batches(batch_size=9, recurrent_net=False), ["classes"]))
    # frame-wise: the sequences are concatenated and cut into batches of exactly 9 frames (as the reference)
    np.testing.assert_array_equal(out[0].data["classes"], [[0, 1, 2, 3, 4, 10, 11, 12, 20]])
    np.testing.assert_array_equal(out[1].data["classes"], [[21, 22, 23, 24, 25, 26, 27, 28, 29]])
    assert [b.data["classes"].shape[1] for b in out] == [9, 9, 9, 8]  # 35 frames


def test_framewise_batches_max_seqs_and_offsets():
    # observed on the reference (test_batches_non_recurrent_1): 2 seqs of 11 frames, batch_size 5, max_seqs 2
    from returnn.datasets.generating import DummyDataset
    ds = DummyDataset(input_dim=2, output_dim=3, num_seqs=2, seq_len=11)
    ds.init_seq_order(epoch=1)
    batches = list(ds.generate_batches(recurrent_net=False, max_seqs=2, batch_size=5))
    parts = [[(p.seq_idx, p.seq_start_frame["data"], p.seq_end_frame["data"], p.batch_frame_offset["data"])
              for p in b.seqs] for b in batches]
    assert parts == [[(0, 0, 5, 0)], [(0, 5, 10, 0)], [(0, 10, 11, 0), (1, 0, 4, 1)], [(1, 4, 9, 0)],
                     [(1, 9, 11, 0)]]


class _FailingDataset(StaticDataset):
    def _collect_corpus_seq(self, corpus_idx):
        if corpus_idx == 3:
            raise DatasetFileError("x.hdf", "broken")
        return super()._collect_corpus_seq(corpus_idx)


def test_feeding_error_reraised_and_thread_stops():
    data = [{"data": np.zeros((2, 1), "float32")} for _ in range(6)]
    ds = _FailingDataset(data)
    ds.init_seq_order(epoch=1)
    with pytest.raises(DatasetFileError, match="broken"):
        for _ in iterate_batch_data(ds, ds.generate_batches(batch_size=2), ["data"]):
            pass
    assert not any(t.name.startswith("batch-feeder") and t.is_alive() for t in threading.enumerate())


def test_feeding_close_early():
    data = [{"data": np.zeros((2, 1), "float32")} for _ in range(50)]
    ds = StaticDataset(data)
    ds.init_seq_order(epoch=1)
    it = iterate_batch_data(ds, ds.generate_batches(batch_size=2), ["data"], prefetch=1)
    first = next(it)
    assert first.num_seqs == 1
    it.close()
    assert not it._thread.is_alive()
    with pytest.raises(StopIteration):
        next(it)


def test_shuffle_batches_keeps_batches():
    ds = _ds()
    ds.init_seq_order(epoch=1)
    plain = sorted(tuple(p.seq_idx for p in b.seqs) for b in ds.generate_batches(batch_size=20))
    shuffled = sorted(tuple(p.seq_idx for p in b.seqs) for b in ds.generate_batches(batch_size=20,
                                                                                      shuffle_batches=True))
    assert plain == shuffled

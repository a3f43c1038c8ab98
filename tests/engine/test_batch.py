"""Tests for returnn.engine.batch (the reference's Batch / BatchSeqCopyPart / BatchSetGenerator API); reprs and
values observed from the reference on the same calls."""

import random

import numpy
import pytest

from returnn.datasets.generating import Task12AXDataset
from returnn.engine.batch import Batch, BatchSeqCopyPart, BatchSetGenerator
from returnn.util.basic import NumbersDict


def test_batch_slices():
    b = Batch()
    assert repr(b) == "<Batch start_seq:None, len(seqs):0>"
    assert (b.get_num_seqs(), b.start_seq, b.end_seq) == (0, None, None)
    assert repr(b.max_num_frames_per_slice) == "NumbersDict(0)" and b.num_slices == 0
    b.add_sequence_as_slice(seq_idx=3, seq_start_frame=0, length=NumbersDict({"data": 5, "classes": 5}))
    assert repr(b) == "<Batch start_seq:3, len(seqs):1>"
    assert repr(b.seqs[0]) == ("<BatchSeqCopyPart seq_idx=3 seq_start_frame=NumbersDict(0) "
                               "seq_end_frame=NumbersDict({'data': 5, 'classes': 5}) batch_slice=0 "
                               "batch_frame_offset=NumbersDict(0)>")
    b.add_sequence_as_slice(seq_idx=4, seq_start_frame=0, length=NumbersDict({"data": 7, "classes": 6}))
    assert repr(b.try_sequence_as_slice(NumbersDict({"data": 9, "classes": 2}))) == \
        "[NumbersDict(numbers_dict={'data': 9, 'classes': 6}, broadcast_value=0), 3]"
    assert (b.get_num_seqs(), b.start_seq, b.end_seq, b.num_slices) == (2, 3, 5, 2)
    assert b.get_total_num_frames() == NumbersDict({"data": 12, "classes": 11})
    assert repr(b.get_all_slices_num_frames()) == "NumbersDict(numbers_dict={'data': 14, 'classes': 12}, broadcast_value=0)"
    assert b.seqs[1].batch_slice == 1 and b.seqs[1].frame_length == NumbersDict({"data": 7, "classes": 6})
    b.add_frames(seq_idx=5, seq_start_frame=2, length=NumbersDict(3))
    assert repr(b.max_num_frames_per_slice) == "NumbersDict(10)" and b.num_slices == 2
    assert repr(b.seqs[2]) == ("<BatchSeqCopyPart seq_idx=5 seq_start_frame=NumbersDict(2) "
                               "seq_end_frame=NumbersDict(5) batch_slice=0 batch_frame_offset=NumbersDict(7)>")


def test_add_frames_and_num_seqs():
    b = Batch()
    b.add_frames(1, 0, NumbersDict(3))
    b.add_frames(1, 3, NumbersDict(2))
    b.add_frames(4, 0, NumbersDict(2))
    assert [repr(s.batch_frame_offset) for s in b.seqs] == ["NumbersDict(0)", "NumbersDict(3)", "NumbersDict(5)"]
    assert (b.get_num_seqs(), b.start_seq, b.end_seq, len(b.seqs)) == (4, 1, 5, 3)  # end - start, as the reference
    assert repr(b.get_total_num_frames()) == "NumbersDict(7)" and repr(b.max_num_frames_per_slice) == "NumbersDict(7)"
    b = Batch()
    b.add_frames(2, 0, NumbersDict(1))
    b.add_frames(0, 0, NumbersDict(1))
    assert (b.start_seq, b.end_seq) == (0, 3)


def test_one_full_sequence_and_feeding():
    from returnn.datasets.feeding import build_batch_data

    ds = Task12AXDataset(num_seqs=5)
    ds.init_seq_order(epoch=1)
    b = Batch()
    b.init_with_one_full_sequence(2, ds)
    n = ds.get_seq_length(2)["data"]
    assert repr(b) == "<Batch start_seq:2, len(seqs):1>"
    assert repr(b.seqs[0]) == (f"<BatchSeqCopyPart seq_idx=2 seq_start_frame=NumbersDict({{'data': 0, 'classes': 0}}) "
                               f"seq_end_frame=NumbersDict({{'data': {n}, 'classes': {n}}}) batch_slice=0 "
                               f"batch_frame_offset=NumbersDict(0)>")
    assert b.seqs[0].frame_range("data") == (0, n, 0)
    # the engine's feeding takes these batches like the dataset's own
    fed = build_batch_data(ds, b, ["data", "classes"])
    numpy.testing.assert_array_equal(fed.data["classes"][0], ds.get_data(2, "classes"))
    assert fed.seq_lens["data"].tolist() == [n] and fed.num_seqs == 1
    with pytest.raises(ValueError, match="already has sequences"):
        b.init_with_one_full_sequence(3, ds)


def test_copy_part_positional():
    p = BatchSeqCopyPart(1, NumbersDict(2), NumbersDict(5), 0, NumbersDict(0))
    assert repr(p.frame_length) == "NumbersDict(3)" and p.frame_range("data") == (2, 5, 0)


def _gen(n):
    for i in range(n):
        b = Batch()
        b.add_sequence_as_slice(i, 0, NumbersDict(i + 1))
        yield b


def test_batch_set_generator():
    ds = Task12AXDataset(num_seqs=5)
    ds.init_seq_order(epoch=1)
    g = BatchSetGenerator(ds, _gen(5))
    assert g.has_more() and g.get_current_batch_idx() == 0 and g.completed_frac() == 1e-10
    assert [b.start_seq for b in g.peek_next_n(2)] == [0, 1] and g.get_current_batch_idx() == 0
    g.advance(2)
    assert g.get_current_batch_idx() == 2 and g.completed_frac() == pytest.approx(0.4) and g.has_more()
    assert [b.start_seq for b in g.peek_next_n(10)] == [2, 3, 4]
    g.advance(3)
    assert (g.get_current_batch_idx(), g.completed_frac(), g.has_more(), g.peek_next_n(1)) == (5, 1.0, False, [])
    g.reset()
    assert g.get_current_batch_idx() == 0 and [b.start_seq for b in g.peek_next_n(10)] == [0, 1, 2, 3, 4]
    with pytest.raises(ValueError, match="only 5 batches available"):
        g.advance(10)
    g2 = BatchSetGenerator(ds, _gen(5), cache_whole_epoch=False)
    assert [b.start_seq for b in g2] == [0, 1, 2, 3, 4]
    with pytest.raises(ValueError, match="cache_whole_epoch"):
        g2.reset()


def test_completed_frac_uses_start_seq():
    ds = Task12AXDataset(num_seqs=10)
    ds.init_seq_order(epoch=1)
    b = Batch()
    b.add_sequence_as_slice(2, 0, NumbersDict(1))
    b.add_sequence_as_slice(5, 0, NumbersDict(1))
    g = BatchSetGenerator(ds, iter([b]))
    g.peek_next_n(1)
    g.advance(1)
    assert g.completed_frac() == pytest.approx(0.3)


def test_shuffle_on_reset():
    ds = Task12AXDataset(num_seqs=5)
    random.seed(3)
    g = BatchSetGenerator(ds, _gen(10), shuffle_batches=True)
    assert [b.start_seq for b in g.peek_next_n(10)] == list(range(10))  # reading is in order
    g.advance(10)
    assert not g.has_more()
    g.reset()
    order = [b.start_seq for b in g.peek_next_n(10)]
    assert sorted(order) == list(range(10)) and order != list(range(10)) and g.cache_active
    g = BatchSetGenerator(ds, _gen(10), shuffle_batches=True)
    g.peek_next_n(3)
    g.advance(3)
    g.reset()  # generator not exhausted: the cached 3 (shuffled), then the rest in order
    order = [b.start_seq for b in g.peek_next_n(10)]
    assert sorted(order[:3]) == [0, 1, 2] and order[3:] == list(range(3, 10)) and not g.cache_active

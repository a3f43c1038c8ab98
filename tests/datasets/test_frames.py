"""Dataset frame options (window, context_window), iterate_seqs, serialize_data, seq_order_seq_lens_file;
expected values observed on the reference where noted."""

import numpy as np
import pytest

from returnn.datasets.basic import Dataset, _get_seq_len_as_array
from returnn.datasets.generating import DummyDataset, StaticDataset, Task12AXDataset
from returnn.errors import DatasetArgError
from returnn.util.numbers_dict import NumbersDict


def test_window_stacks_frames():
    plain, stacked = Task12AXDataset(num_seqs=2), Task12AXDataset(num_seqs=2, window=3)
    assert stacked.get_data_dim("data") == 27 and stacked.get_data_shape("data") == [27]
    for ds in (plain, stacked):
        ds.init_seq_order(epoch=1)
        ds.load_seqs(0, 1)
    x, y = plain.get_data(0, "data"), stacked.get_data(0, "data").reshape(-1, 3, 9)
    np.testing.assert_array_equal(y[:, 1], x)
    np.testing.assert_array_equal(y[1:, 0], x[:-1])
    np.testing.assert_array_equal(y[:-1, 2], x[1:])
    assert not y[0, 0].any() and not y[-1, 2].any()
    with pytest.raises(DatasetArgError, match="window"):
        Task12AXDataset(num_seqs=2, window=2)


@pytest.mark.parametrize("context_window, start, end", [(2, 0, 5), (3, -1, 5), ({"data": 3, "classes": 1}, -1, 5)])
def test_context_window_widens_batch_parts(context_window, start, end):
    # observed on the reference for a 4-frame sequence
    ds = DummyDataset(input_dim=2, output_dim=3, num_seqs=1, seq_len=4, context_window=context_window)
    ds.init_seq_order(epoch=1)
    (batch,) = list(ds.generate_batches(recurrent_net=True, batch_size=100, max_seqs=2))
    part = batch.seqs[0]
    assert (part.seq_start_frame["data"], part.seq_end_frame["data"]) == (start, end)
    assert (part.seq_start_frame["classes"], part.seq_end_frame["classes"]) == (0, 4)
    assert batch.max_num_frames_per_slice["data"] == end - start


def test_iterate_seqs_chunks_with_assigned_ints():
    ds = DummyDataset(input_dim=2, output_dim=3, num_seqs=1, seq_len=11)
    ds.chunk_size, ds.chunk_step = 10, 5
    ds.init_seq_order(epoch=1)
    assert [(i, s["data"], e["data"]) for i, s, e in ds.iterate_seqs()] == [(0, 0, 10), (0, 5, 11), (0, 10, 11)]
    ds.chunk_size = 0
    assert list(ds.iterate_seqs()) == [(0, NumbersDict({"data": 0, "classes": 0}),
                                        NumbersDict({"data": 11, "classes": 11}))]


def test_serialize_data_and_have_seqs():
    ds = StaticDataset([{"data": np.array([0, 1, 2])}], output_dim={"data": (3, 1)})
    assert ds.have_seqs() and not ds.can_serialize_data("data")
    ds.labels["data"] = ["a", "bc", "d"]
    assert ds.serialize_data("data", np.array([0, 1, 2])) == "a bc d"  # observed: spaces if a label is longer
    ds.labels["data"] = ["a", "b", "d"]
    assert ds.serialize_data("data", np.array([2, 0])) == "da"
    ds.labels["data"] = [chr(i) for i in range(256)]
    assert ds.serialize_data("data", np.array([119, 195, 171, 114])) == "wër"  # bytes decoded as UTF-8


def test_seq_order_seq_lens_file(tmp_path):
    lens = {"seq-0": 5, "seq-1": 2, "seq-2": 9}
    path = tmp_path / "lens.txt"
    path.write_text(repr(lens))
    ds = StaticDataset([{"data": np.zeros((1, 1), "float32")}] * 3, seq_ordering="sorted_reverse",
                       seq_order_seq_lens_file=str(path))
    ds.init_seq_order(epoch=1)
    assert ds.get_current_seq_order() == [2, 0, 1]  # by the file's lengths, not the data's
    arr = _get_seq_len_as_array(ds._get_seq_order_seq_lens_by_idx, 3)
    assert arr.tolist() == [5, 2, 9] and _get_seq_len_as_array(lambda i: i * 2, 3).tolist() == [0, 2, 4]
    assert isinstance(ds, Dataset)

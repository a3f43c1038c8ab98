"""PostprocessingDataset, LaplaceOrdering, Sequential; expectations from the sub dataset's data (numpy) and from
the reference's observed behaviour (names, orders, errors)."""

import pickle

import numpy as np
import pytest

from returnn.errors import DatasetArgError
from returnn.tensor import Dim, Tensor, TensorDict
from returnn.datasets.basic import init_dataset
from returnn.datasets.postprocessing import LaplaceOrdering, PostprocessingDataset, Sequential

SUB = {"class": "DummyDataset", "input_dim": 3, "output_dim": 5, "num_seqs": 4, "seq_len": 4}


def _read_all(ds, epoch=1):
    ds.init_seq_order(epoch=epoch)
    out, i = [], 0
    while ds.is_less_than_num_seqs(i):
        ds.load_seqs(i, i + 1)
        out.append((ds.get_tag(i), {k: ds.get_data(i, k) for k in ds.get_data_keys()}))
        i += 1
    return out


def _add_1337(tdict, **_kwargs):
    tdict.data["classes"] += 1337
    return tdict


def _repeat2(input_iter, **_kwargs):
    for tdict in input_iter:
        yield tdict
        yield tdict


def test_map_seq_sees_tensor_dict_and_changes_data():
    seen = []

    def func(tdict, **kwargs):
        seen.append((tdict, kwargs))
        return _add_1337(tdict)

    ds = init_dataset({"class": "PostprocessingDataset", "dataset": SUB, "map_seq": func})
    assert isinstance(ds, PostprocessingDataset)
    ref = _read_all(init_dataset(SUB))
    got = _read_all(ds)
    assert ds.num_seqs == 4
    assert [t for t, _ in got] == [t for t, _ in ref]
    for (_, g), (_, r) in zip(got, ref):
        np.testing.assert_array_equal(g["classes"], r["classes"] + 1337)
        np.testing.assert_array_equal(g["data"], r["data"])
    tdict, kwargs = seen[1]
    assert isinstance(tdict, TensorDict)
    # as observed from the reference: data keys + complete_frac, seq_idx, seq_tag; dims named after the key
    assert set(tdict.data) == {"data", "classes", "complete_frac", "seq_idx", "seq_tag"}
    assert [d.description for d in tdict.data["data"].dims] == ["data_frame", "data_dim1"]
    assert tdict.data["classes"].sparse_dim.description == "classes_sparse"
    assert tdict.data["seq_tag"].dtype == "string" and str(tdict.data["seq_tag"].raw_tensor) == "seq-1"
    assert float(tdict.data["complete_frac"].raw_tensor) == pytest.approx(0.5)
    assert kwargs["epoch"] == 1 and kwargs["seq_idx"] == 1 and isinstance(kwargs["rng"], np.random.RandomState)
    assert seen[0][0].data["data"].dims[0] is tdict.data["data"].dims[0]  # the same dims for every sequence
    assert ds.get_all_tags() == ["seq-0", "seq-1", "seq-2", "seq-3"] and ds.get_total_num_seqs() == 4


def test_map_seq_stream_changes_num_seqs():
    ds = init_dataset({"class": "PostprocessingDataset", "dataset": SUB, "map_seq_stream": _repeat2})
    got = _read_all(ds)
    assert len(got) == 8
    assert [t for t, _ in got[:2]] == ["seq-0", "seq-0"]  # the tag comes with the TensorDict
    ds.init_seq_order(epoch=1)
    with pytest.raises(NotImplementedError):
        ds.num_seqs
    with pytest.raises(NotImplementedError, match="map_seq_stream"):
        ds.get_all_tags()
    ds2 = init_dataset({"class": "PostprocessingDataset", "dataset": SUB, "map_seq_stream": _repeat2,
                        "map_seq_stream_preserves_num_seqs": True})
    ds2.init_seq_order(epoch=1)
    assert ds2.num_seqs == 4


def test_tag_and_complete_frac_defaults():
    def drop_meta(input_iter, **_kwargs):
        for tdict in input_iter:
            yield TensorDict({k: tdict.data[k] for k in ("data", "classes")})

    ds = init_dataset({"class": "PostprocessingDataset", "dataset": SUB, "map_seq_stream": drop_meta})
    assert [t for t, _ in _read_all(ds)] == ["seq-0", "seq-1", "seq-2", "seq-3"]


def test_bad_options_and_outputs():
    for opts in [{}, {"map_seq": _add_1337, "map_seq_stream": _repeat2},
                 {"map_seq": _add_1337, "map_seq_stream_preserves_num_seqs": True},
                 {"map_seq": _add_1337, "num_workers": -1}]:
        with pytest.raises(DatasetArgError):
            init_dataset({"class": "PostprocessingDataset", "dataset": SUB, **opts})

    def wrong_dtype(tdict, **_kwargs):
        tdict.data["classes"].raw_tensor = tdict.data["classes"].raw_tensor.astype("int64")
        return tdict

    ds = init_dataset({"class": "PostprocessingDataset", "dataset": SUB, "map_seq": wrong_dtype})
    ds.init_seq_order(epoch=1)
    with pytest.raises(DatasetArgError, match="dtype int64"):
        ds.load_seqs(0, 1)
    ds = init_dataset({"class": "PostprocessingDataset", "dataset": SUB, "map_seq": lambda td, **kw: 3})
    ds.init_seq_order(epoch=1)
    with pytest.raises(DatasetArgError, match="must produce a TensorDict"):
        ds.load_seqs(0, 1)


def test_map_outputs_unknown_sparse_dim():
    ds = init_dataset({
        "class": "PostprocessingDataset", "dataset": {**SUB, "input_dim": 13, "output_dim": 7},
        "map_seq": lambda td, **kw: td,
        "map_outputs": {"data": {"dims": [Dim(None, name="time"), Dim(13, name="feature")], "dtype": "float32"},
                        "classes": {"dims": [Dim(None, name="classes_time")], "dtype": "uint8"}}})
    # observed from the reference
    assert ds.num_outputs == {"data": (13, 2), "classes": (None, 1)}
    assert ds.get_data_dtype("classes") == "uint8" and ds.is_data_sparse("classes")
    assert "classes" not in ds.labels and ds.num_inputs == 13


def test_pickle():
    ds = init_dataset({"class": "PostprocessingDataset", "dataset": SUB, "map_seq": _add_1337})
    first = _read_all(ds)
    ds2 = pickle.loads(pickle.dumps(ds))
    assert ds2 is not ds
    again = _read_all(ds2)
    assert [t for t, _ in again] == [t for t, _ in first]
    for (_, a), (_, b) in zip(first, again):
        np.testing.assert_array_equal(a["classes"], b["classes"])


def test_workers_same_result_and_finish_epoch():
    in_proc = _read_all(init_dataset({"class": "PostprocessingDataset", "dataset": SUB, "map_seq_stream": _repeat2}))
    ds = init_dataset({"class": "PostprocessingDataset", "dataset": SUB, "map_seq_stream": _repeat2,
                       "num_workers": 2, "buf_size": 1})
    try:
        for epoch in (1, 2):
            got = _read_all(ds, epoch=epoch)
            # sequence i goes to worker i % 2; results are taken round-robin: 0 0 1 1 2 2 3 3 (one per worker turn)
            assert [t for t, _ in got] == ["seq-0", "seq-1", "seq-0", "seq-1", "seq-2", "seq-3", "seq-2", "seq-3"]
            assert sorted(t for t, _ in got) == sorted(t for t, _ in in_proc)
        ds.init_seq_order(epoch=3)
        ds.load_seqs(0, 1)  # an epoch that ends early
        assert ds._worker_procs is not None
        ds.finish_epoch(free_resources=True)
        assert ds._worker_procs is None and ds._multi_proc_data_iter is None
    finally:
        ds.finish_epoch(free_resources=True)


def _seq(n, frac, idx):
    t = Tensor("data", dims=[Dim(None, name="t")], dtype="int32")
    t.raw_tensor = np.arange(n, dtype="int32")
    out = {"data": t}
    for key, dtype, value in (("complete_frac", "float32", frac), ("seq_idx", "int32", idx)):
        out[key] = Tensor(key, dims=[], dtype=dtype)
        out[key].raw_tensor = np.array(value, dtype)
    return TensorDict(out)


@pytest.mark.parametrize("per_bin, expected", [
    # (seq_idx, length, complete_frac * 10) as observed from the reference
    (3, [(1, 2, 1), (0, 5, 2), (2, 7, 3), (4, 9, 4), (5, 3, 5), (3, 1, 6), (6, 4, 7), (8, 6, 8), (7, 8, 9),
         (9, 2, 10)]),
    (4, [(3, 1, 1), (1, 2, 2), (0, 5, 3), (2, 7, 4), (4, 9, 5), (7, 8, 6), (6, 4, 7), (5, 3, 8), (9, 2, 9),
         (8, 6, 10)]),
])
def test_laplace_ordering(per_bin, expected):
    lens = [5, 2, 7, 1, 9, 3, 4, 8, 6, 2]
    items = [_seq(n, (i + 1) / len(lens), i) for i, n in enumerate(lens)]
    out = list(LaplaceOrdering(per_bin)(iter(items), epoch=1))
    got = [(int(t.data["seq_idx"].raw_tensor), t.data["data"].raw_tensor.shape[0],
            round(float(t.data["complete_frac"].raw_tensor) * 10)) for t in out]
    assert got == expected
    with pytest.raises(DatasetArgError):
        LaplaceOrdering(0)


def test_sequential():
    assert Sequential(lambda x: x * 10, lambda y: y + 1)(2) == 21
    assert Sequential(lambda x, **kw: (x, kw))(1, a=2) == (1, {"a": 2})


def test_summary_with_unknown_num_seqs():
    from returnn.datasets.from_config import dataset_summary_lines

    ds = init_dataset({"class": "PostprocessingDataset", "dataset": SUB, "map_seq_stream": _repeat2})
    assert "PostprocessingDataset, sequences: unknown" in "\n".join(dataset_summary_lines(ds))

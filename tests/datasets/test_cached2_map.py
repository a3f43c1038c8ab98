"""CachedDataset2 (the base class users subclass), MapDatasetWrapper / MapDatasetBase / FromListDataset: what they
yield against the reference's outputs for the same subclasses and data."""

import numpy as np
import pytest

from returnn.datasets import init_dataset
from returnn.datasets.basic import DatasetSeq
from returnn.datasets.cached2 import CachedDataset2, OptionalNotImplementedError
from returnn.datasets.map import FromListDataset, MapDatasetBase, MapDatasetWrapper
from returnn.errors import DatasetArgError


class _MyDataset(CachedDataset2):
    """A user dataset as the reference documents it."""

    def __init__(self, n=5, **kwargs):
        super().__init__(**kwargs)
        self.n = n
        self.num_inputs = 3
        self.num_outputs = {"data": (3, 2), "classes": (7, 1)}

    def init_seq_order(self, epoch=None, seq_list=None, seq_order=None):
        res = super().init_seq_order(epoch=epoch, seq_list=seq_list, seq_order=seq_order)
        self._order = self.get_seq_order_for_epoch(epoch, self.n, lambda i: i + 1)
        self._num_seqs = len(self._order)
        return res

    def _collect_single_seq(self, seq_idx):
        if seq_idx >= self._num_seqs:
            return None
        c = self._order[seq_idx]
        return DatasetSeq(seq_idx=seq_idx, features={"data": np.full((c + 1, 3), c, "float32"),
                                                     "classes": np.arange(c + 1, dtype="int32")}, seq_tag="s%i" % c)


def test_cached_dataset2_subclass():
    ds = _MyDataset(seq_ordering="sorted_reverse", partition_epoch=2)
    assert ds.num_seqs == 0  # before init_seq_order (reference)
    assert ds.init_seq_order(epoch=1) is True and ds.num_seqs == 3
    ds.load_seqs(0, 2)
    assert [(ds.get_tag(i), ds.get_data(i, "data").shape, dict(ds.get_seq_length(i))) for i in range(2)] == [
        ("s4", (5, 3), {"data": 5, "classes": 5}), ("s3", (4, 3), {"data": 4, "classes": 4})]
    assert ds.get_data_keys() == ["classes", "data"] and ds.get_target_list() == ["classes"]
    assert ds.is_data_sparse("classes") and ds.get_data_dim("classes") == 7 and ds.get_data_shape("data") == [3]
    for method in ("get_all_tags", "get_total_num_seqs", "get_current_seq_order"):
        with pytest.raises(OptionalNotImplementedError):
            getattr(ds, method)()
    assert ds.is_less_than_num_seqs(2) and not ds.is_less_than_num_seqs(3)
    ds.init_seq_order(epoch=2)
    ds.load_seqs(0, 2)
    assert ds.num_seqs == 2 and [ds.get_tag(0), ds.get_tag(1)] == ["s1", "s0"]
    batches = list(ds.generate_batches(batch_size=100, max_seqs=10))
    assert len(batches) == 1 and batches[0].num_slices == 2


def test_cached_dataset2_unknown_length():
    class Unknown(_MyDataset):
        def init_seq_order(self, epoch=None, seq_list=None, seq_order=None):
            super().init_seq_order(epoch=epoch)
            self._end = self._num_seqs
            self._num_seqs = None
            return True

        def _collect_single_seq(self, seq_idx):
            if seq_idx >= self._end:
                return None
            return DatasetSeq(seq_idx, {"data": np.zeros((2, 3), "float32"), "classes": np.zeros(2, "int32")})

    ds = Unknown()
    ds.init_seq_order(epoch=1)
    with pytest.raises(NotImplementedError):
        ds.num_seqs
    assert ds.is_less_than_num_seqs(4) and not ds.is_less_than_num_seqs(5)
    assert len(list(ds.generate_batches(batch_size=4, max_seqs=1))) == 5


class _Map(MapDatasetBase):
    def __init__(self):
        super().__init__(data_types={"data": {"dim": 2, "shape": (None, 2)},
                                     "classes": {"dim": 5, "sparse": True, "shape": (None,)}})

    def __len__(self):
        return 4

    def __getitem__(self, i):
        return {"data": np.full((i + 1, 2), i, "float32"), "classes": np.arange(i + 2, dtype="int32") % 5}


def _tags(ds):
    return [ds.get_tag(i) for i in range(ds.num_seqs)]


def test_map_dataset_wrapper():
    ds = init_dataset({"class": "MapDatasetWrapper", "map_dataset": _Map})
    ds.init_seq_order(epoch=1)
    # observed from the reference
    assert ds.num_seqs == 4 and ds.get_data_keys() == ["data", "classes"]
    assert ds.num_outputs == {"data": (2, 2), "classes": (5, 1)}
    assert _tags(ds) == ["seq-0", "seq-1", "seq-2", "seq-3"] and ds.get_all_tags() == _tags(ds)
    assert [ds.get_data(i, "classes").tolist() for i in range(4)] == [[0, 1], [0, 1, 2], [0, 1, 2, 3], [0, 1, 2, 3, 4]]
    assert [ds.get_data_dtype(k) for k in ds.get_data_keys()] == ["float32", "int32"]
    assert [ds.is_data_sparse(k) for k in ds.get_data_keys()] == [False, True]
    ds = init_dataset({"class": "MapDatasetWrapper", "map_dataset": _Map, "seq_ordering": "random"})
    ds.init_seq_order(epoch=1)
    assert _tags(ds) == ["seq-3", "seq-2", "seq-0", "seq-1"]
    ds = init_dataset({"class": "MapDatasetWrapper", "map_dataset": _Map, "partition_epoch": 2})
    ds.init_seq_order(epoch=1)
    assert _tags(ds) == ["seq-0", "seq-1"] and ds.get_total_num_seqs() == 4
    ds = init_dataset({"class": "MapDatasetWrapper", "map_dataset": _Map, "seq_ordering": "sorted_reverse"})
    with pytest.raises(DatasetArgError, match="get_seq_len is not implemented"):
        ds.init_seq_order(epoch=1)


def test_from_list_dataset():
    data_list = [{"data": np.ones((3, 2), "float32"), "classes": np.array([1, 2], "int32")},
                 {"data": np.zeros((1, 2), "float32"), "classes": np.array([0, 1, 2, 3], "int32")},
                 {"data": np.zeros((2, 2), "float32"), "classes": np.array([4], "int32")}]
    f = FromListDataset(data_list=data_list, data_types={"data": {"dim": 2}, "classes": {"dim": 5, "sparse": True}},
                        sort_data_key="classes")
    assert len(f) == 3 and f.get_seq_len(1) == 4 and f.get_seq_tag(1) == "seq-1"
    ds = MapDatasetWrapper(map_dataset=f, seq_ordering="sorted")
    ds.init_seq_order(epoch=1)
    assert ds.num_outputs == {"data": (2, 2), "classes": (5, 1)}  # observed from the reference
    assert _tags(ds) == ["seq-2", "seq-0", "seq-1"]
    assert [ds.get_data(i, "classes").tolist() for i in range(3)] == [[4], [1, 2], [0, 1, 2, 3]]
    with pytest.raises(DatasetArgError, match="sort_data_key"):
        FromListDataset(data_list=data_list).get_seq_len(0)
    with pytest.raises(DatasetArgError, match="needs to provide data_types"):
        MapDatasetWrapper(map_dataset=FromListDataset(data_list=data_list))


def test_cached2_short_num_outputs():
    # as the reference accepts: an int entry is a sparse dim; num_inputs adds "data"
    from returnn.datasets.cached2 import CachedDataset2

    class _Short(CachedDataset2):
        def __init__(self):
            super().__init__()
            self.num_inputs = 11
            self.num_outputs = {"classes": 7}

    ds = _Short()
    assert ds.num_outputs == {"classes": (7, 1), "data": (11, 2)}
    assert ds.get_data_keys() == ["classes", "data"] and ds.get_data_dim("classes") == 7
    assert ds.is_data_sparse("classes") and ds.get_data_shape("data") == [11]


def test_public_names_of_hdf_module():
    from returnn.datasets import hdf
    from returnn.datasets.cached import CachedDataset
    assert hdf.CachedDataset is CachedDataset

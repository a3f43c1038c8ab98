"""MultiProcDataset: sharding_method="dedicated", the sub dataset built on first use, the global config in the
workers; Dataset's _num_shards / _shard_index. Orders as observed from the reference (on HDF files of 11 and 10
sequences; the orders depend only on the number of sequences and the epoch)."""

import io
import textwrap

import numpy as np
import pytest

from returnn.config import Config, global_config_ctx
from returnn.datasets import init_dataset
from returnn.datasets.multi_proc import MultiProcDataset
from returnn.errors import DatasetArgError


def _static(num_seqs, **kwargs):
    return {"class": "StaticDataset", "data": [{"data": np.full((i + 1, 2), i, "float32")} for i in range(num_seqs)],
            **kwargs}


def _tags(ds):
    out, i = [], 0
    while ds.is_less_than_num_seqs(i):
        ds.load_seqs(i, i + 1)
        out.append(int(ds.get_tag(i).split("-")[-1]))
        i += 1
    return out


@pytest.mark.parametrize("ordering, plain, dedicated", [
    ("default", list(range(11)), [0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7]),
    ("random", [2, 3, 4, 9, 1, 6, 0, 7, 10, 8, 5], [2, 1, 10, 3, 6, 8, 4, 0, 5, 9, 7]),
])
def test_dedicated_sharding_order(ordering, plain, dedicated):
    sub = _static(11, seq_ordering=ordering)
    ds = init_dataset(sub)
    ds.init_seq_order(epoch=1)
    assert _tags(ds) == plain
    for method, expected in [("seq_order", plain), ("dedicated", dedicated)]:
        mp = MultiProcDataset(dataset=sub, num_workers=3, buffer_size=2, sharding_method=method)
        try:
            mp.initialize()
            mp.init_seq_order(epoch=1)
            assert mp.num_seqs == 11
            assert _tags(mp) == expected
            mp.load_seqs(4, 5)
            np.testing.assert_array_equal(mp.get_data(4, "data"), np.full((expected[4] + 1, 2), expected[4]))
        finally:
            mp.__del__()


@pytest.mark.parametrize("num_seqs, num_shards, expected", [
    (10, 4, [[0, 1, 2], [3, 4, 5], [6, 7], [8, 9]]),
    (7, 3, [[0, 1, 2], [3, 4], [5, 6]]),
    (5, 4, [[0, 1], [2], [3], [4]]),
])
def test_dataset_shards(num_seqs, num_shards, expected):
    shards = []
    for index in range(num_shards):
        ds = init_dataset(_static(num_seqs, _num_shards=num_shards, _shard_index=index))
        ds.init_seq_order(epoch=1)
        shards.append(_tags(ds))
    assert shards == expected


def test_dataset_shards_with_partition_epoch():
    # observed: shard 1 of 2 of 12 seqs with partition_epoch 2 -> [3, 4, 5] in sub-epoch 1, [9, 10, 11] in 2
    ds = init_dataset(_static(12, _num_shards=2, _shard_index=1, partition_epoch=2))
    got = []
    for epoch in (1, 2):
        ds.init_seq_order(epoch=epoch)
        got.append(_tags(ds))
    assert got == [[3, 4, 5], [9, 10, 11]]
    with pytest.raises(DatasetArgError, match="_shard_index"):
        init_dataset(_static(3, _num_shards=2, _shard_index=2))


class _FailingInit:
    """picklable by reference (module level); raises when the dataset is built"""

    def __init__(self, **kwargs):
        raise ValueError("no dataset here")


def test_sub_dataset_built_on_initialize():
    mp = MultiProcDataset(dataset={"class": "MapDatasetWrapper", "map_dataset": _FailingInit}, num_workers=1,
                          buffer_size=1)  # nothing built yet
    with pytest.raises(ValueError, match="no dataset here"):
        mp.initialize()
    mp = MultiProcDataset(dataset=_static(4), num_workers=1, buffer_size=1)
    assert mp.get_data_keys() == ["data"] and mp.get_total_num_seqs() == 4 and mp.num_outputs["data"][0] == 2


def test_unknown_sharding_method():
    with pytest.raises(DatasetArgError, match="sharding_method"):
        MultiProcDataset(dataset=_static(2), num_workers=1, buffer_size=1, sharding_method="by_length")


def test_config_class_in_workers():
    # a class defined by a Python config (module __returnn_config__) reaches the workers with the global config
    config = Config()
    config.load_file(io.StringIO(textwrap.dedent("""\
        #!returnn.py
        import numpy
        from returnn.datasets.map import MapDatasetBase

        class ConfigMapDataset(MapDatasetBase):
            def __init__(self):
                super().__init__(data_types={"data": {"shape": (None, 3)}})

            def __len__(self):
                return 3

            def __getitem__(self, item):
                return {"data": numpy.full((item + 2, 3), item, dtype="float32")}
        """)))
    with global_config_ctx(config):
        mp = MultiProcDataset(dataset={"class": "MapDatasetWrapper",
                                       "map_dataset": config.typed_dict["ConfigMapDataset"]},
                              num_workers=2, buffer_size=1)
        try:
            mp.initialize()
            mp.init_seq_order(epoch=1)
            mp.load_seqs(0, 3)
            assert [mp.get_data(i, "data").shape for i in range(3)] == [(2, 3), (3, 3), (4, 3)]
            assert mp.get_data(2, "data")[0, 0] == 2
        finally:
            mp.__del__()

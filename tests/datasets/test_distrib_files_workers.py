"""DistributeFilesDataset: sub-epochs loaded in worker processes, the next one preloaded; sharding of the files over
distributed workers (the split rule observed from the reference)."""

import os
import pickle

import numpy as np
import pytest

from returnn.config import Config, global_config_ctx
from returnn.datasets import init_dataset
from returnn.errors import DatasetArgError


def _write_files(tmp_path, sizes):
    """File i holds ``sizes[i]`` bytes, the first of them the digit of i (read back as the sequence's value)."""
    files = []
    for i, size in enumerate(sizes):
        fn = str(tmp_path / f"f{i}")
        with open(fn, "wb") as f:
            f.write(str(i % 10).encode() + b"x" * (size - 1))
        files.append(fn)
    return files


def _static_sub_dataset(files):
    """One sequence per file: ``classes = [file digit] * 3``, tag ``f<i>``."""
    data = []
    for fn in files:
        with open(fn, "rb") as f:
            value = int(f.read(1))
        data.append({"classes": np.array([value] * 3, dtype="int32")})
    return {"class": "StaticDataset", "data": data, "output_dim": {"classes": [10, 1]}, "seq_ordering": "default"}


def _repeat_each(seqs, **_kwargs):
    for seq in seqs:
        yield seq
        yield seq


def _stream_sub_dataset(files):
    """Each sequence twice, through map_seq_stream: the sub dataset does not know its num_seqs."""
    return {"class": "PostprocessingDataset", "dataset": _static_sub_dataset(files), "map_seq_stream": _repeat_each}


def _values(ds):
    out, i = [], 0
    while ds.is_less_than_num_seqs(i):
        ds.load_seqs(i, i + 1)
        out.append(int(ds.get_data(i, "classes")[0]))
        i += 1
    return out


def test_sub_epochs_in_worker_processes(tmp_path):
    files = _write_files(tmp_path, [1] * 4)
    ds = init_dataset({"class": "DistributeFilesDataset", "files": files, "partition_epoch": 2,
                       "get_sub_epoch_dataset": _static_sub_dataset})
    assert ds.get_data_keys() == ["classes"] and ds.num_seqs == 0
    ds.init_seq_order(epoch=1)
    assert ds._files_order_cache == {0: [files[:2], files[2:]]}
    assert set(ds._workers) == {1, 2}  # the current sub-epoch and the next one, preloaded
    assert ds._workers[2].dataset_dict["data"][0]["classes"].tolist() == [2, 2, 2]
    procs = {ep: w.worker_proc for ep, w in ds._workers.items()}
    assert all(p.is_alive() and p.pid != os.getpid() for p in procs.values())
    assert ds.num_seqs == 2 and _values(ds) == [0, 1]
    ds.init_seq_order(epoch=2)
    assert set(ds._workers) == {2, 3} and ds._workers[2].worker_proc is procs[2]  # the preloaded one is used
    assert not procs[1].is_alive() and procs[1].exitcode == 0  # the finished sub-epoch's worker has ended
    assert _values(ds) == [2, 3]
    ds.init_seq_order(epoch=3)  # the next full epoch, files in order again
    assert _values(ds) == [0, 1]
    assert sorted(ds._files_order_cache) == [1]  # the passed full epoch is dropped
    last = [w.worker_proc for w in ds._workers.values()]
    ds.finish_epoch(free_resources=True)
    assert ds._workers == {} and not any(p.is_alive() for p in last)


def test_worker_with_unknown_num_seqs(tmp_path):
    files = _write_files(tmp_path, [1] * 3)
    ds = init_dataset({"class": "DistributeFilesDataset", "files": files, "partition_epoch": 1,
                       "preload_next_n_sub_epochs": 0, "buffer_size": 2,
                       "get_sub_epoch_dataset": _stream_sub_dataset})
    ds.init_seq_order(epoch=1)
    assert list(ds._workers) == [1]
    with pytest.raises(NotImplementedError):
        ds.num_seqs
    assert _values(ds) == [0, 0, 1, 1, 2, 2]
    ds.finish_epoch(free_resources=True)


def test_unpicklable_sub_dataset_dict(tmp_path):
    files = _write_files(tmp_path, [1] * 2)
    ds = init_dataset({"class": "DistributeFilesDataset", "files": files, "use_worker_proc": False,
                       "get_sub_epoch_dataset": lambda fs: {"class": "PostprocessingDataset",
                                                            "dataset": _static_sub_dataset(fs),
                                                            "map_seq": lambda seq, **_: seq}})
    ds.init_seq_order(epoch=1)
    assert _values(ds) == [0, 1] and ds._workers[1].worker_proc is None  # loaded in this process
    ds = init_dataset({"class": "DistributeFilesDataset", "files": files,
                       "get_sub_epoch_dataset": lambda fs: {"class": "PostprocessingDataset",
                                                            "dataset": _static_sub_dataset(fs),
                                                            "map_seq": lambda seq, **_: seq}})
    with pytest.raises(DatasetArgError, match="must be picklable.*use_worker_proc=False"):
        ds.init_seq_order(epoch=1)


def _shard_parts(files, rank, size, partition_epoch=2, seq_ordering="default"):
    with global_config_ctx(Config({"__debug_dummy_distributed_rank_and_size": (rank, size)})):
        ds = init_dataset({"class": "DistributeFilesDataset", "files": files, "distrib_shard_files": True,
                           "partition_epoch": partition_epoch, "seq_ordering": seq_ordering,
                           "use_worker_proc": False, "get_sub_epoch_dataset": _static_sub_dataset})
    assert (ds._num_shards, ds._shard_index) == (size, rank)
    names = [[os.path.basename(f) for f in ds.files_for_epoch(ep)] for ep in range(1, partition_epoch + 1)]
    return ds, names


def test_distrib_shard_files(tmp_path):
    # all observed from the reference: the files are split into partition_epoch * num_shards parts by size, and
    # shard r takes the parts r * partition_epoch ... (r + 1) * partition_epoch - 1
    files = _write_files(tmp_path, [100, 1, 1, 1, 50, 3, 200])
    assert _shard_parts(files, 0, 2)[1] == [["f0"], ["f1", "f2", "f3", "f4"]]
    assert _shard_parts(files, 1, 2)[1] == [["f5"], ["f6"]]
    assert _shard_parts(files, 0, 3)[1] == [["f0"], ["f1", "f2"]]
    assert _shard_parts(files, 1, 3)[1] == [["f3"], ["f4"]]
    assert _shard_parts(files, 2, 3)[1] == [["f5"], ["f6"]]
    (tmp_path / "eq").mkdir()
    equal = _write_files(tmp_path / "eq", [5] * 7)
    # seq_ordering="random": the same shuffled list on every shard (full epoch 1: f6 f2 f1 f0 f4 f3 f5)
    assert _shard_parts(equal, 0, 2, seq_ordering="random")[1] == [["f6", "f2"], ["f1", "f0"]]
    ds, parts = _shard_parts(equal, 1, 2, seq_ordering="random")
    assert parts == [["f4", "f3"], ["f5"]]
    ds = pickle.loads(pickle.dumps(ds))  # no distributed context needed any more
    assert (ds._num_shards, ds._shard_index) == (2, 1)
    ds.init_seq_order(epoch=2)
    assert _values(ds) == [5]
    with global_config_ctx(Config({})):  # no distributed context: one shard, everything
        ds = init_dataset({"class": "DistributeFilesDataset", "files": files, "distrib_shard_files": True,
                           "use_worker_proc": False, "get_sub_epoch_dataset": _static_sub_dataset})
    assert (ds._num_shards, ds._shard_index) == (1, 0)
    with pytest.raises(DatasetArgError, match="7 files for partition_epoch=4 and 2 shard"):
        _shard_parts(files, 0, 2, partition_epoch=4)
    with pytest.raises(DatasetArgError, match="rank 2 is not in 0..1"):
        _shard_parts(files, 2, 2)

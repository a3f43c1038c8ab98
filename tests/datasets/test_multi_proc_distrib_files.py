"""MultiProcDataset and DistributeFilesDataset against the reference's outputs on the same zips / HDF files."""

import os
import sys
import zipfile

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import speech_corpus  # noqa: E402

from returnn.datasets import init_dataset  # noqa: E402
from returnn.datasets.cached2 import OptionalNotImplementedError  # noqa: E402
from returnn.datasets.distrib_files import distribute_files  # noqa: E402
from returnn.errors import DatasetArgError  # noqa: E402


def _iterate(ds, key=None):
    out, i = [], 0
    while ds.is_less_than_num_seqs(i):
        ds.load_seqs(i, i + 1)
        out.append((ds.get_tag(i), ds.get_data(i, key).tolist()) if key else ds.get_tag(i))
        i += 1
    return out


def test_multi_proc_dataset(tmp_path):
    path = str(tmp_path / "text20.zip")
    speech_corpus.write_text_zip(path)
    sub = {"class": "OggZipDataset", "path": path, "audio": None, "targets": {"class": "Utf8ByteTargets"},
           "seq_ordering": "random", "partition_epoch": 2}
    ds = init_dataset({"class": "MultiProcDataset", "dataset": sub, "num_workers": 2, "buffer_size": 3})
    try:
        assert ds.num_seqs == 0 and ds.get_total_num_seqs() == 20 and ds.get_data_keys() == ["classes", "orth", "raw"]
        ds.init_seq_order(epoch=2)
        # observed from the reference (the sub dataset's own order)
        assert _iterate(ds, "classes") == [
            ("c/s13", [119, 49, 51]), ("c/s00", [119, 48]), ("c/s19", [119, 49, 57]), ("c/s18", [119, 49, 56]),
            ("c/s09", [119, 57]), ("c/s15", [119, 49, 53]), ("c/s08", [119, 56]), ("c/s12", [119, 49, 50]),
            ("c/s11", [119, 49, 49]), ("c/s05", [119, 53])]
        ds.init_seq_order(epoch=1)
        assert ds.num_seqs == 10 and _iterate(ds)[:3] == ["c/s03", "c/s16", "c/s06"]
        with pytest.raises(OptionalNotImplementedError):
            ds.get_current_seq_order()
    finally:
        ds.__del__()
    with pytest.raises(DatasetArgError, match="sharding_method"):
        init_dataset({"class": "MultiProcDataset", "dataset": sub, "num_workers": 2, "buffer_size": 1,
                      "sharding_method": "by_file"})


def _get_sub_epoch_dataset(files):
    return {"class": "OggZipDataset", "path": files, "audio": None, "targets": None, "seq_ordering": "default"}


def test_distribute_files_dataset(tmp_path):
    files = []
    for i in range(5):
        entries = [{"file": "x", "seq_name": "f%i/s%i" % (i, j), "text": "w%i%i" % (i, j), "duration": 1.0 + j}
                   for j in range(i + 1)]
        fn = str(tmp_path / ("z%i.zip" % i))
        with zipfile.ZipFile(fn, "w") as zf:
            zf.writestr("z%i.txt" % i, repr(entries))
        files.append(fn)
    f = {i: ["f%i/s%i" % (i, j) for j in range(i + 1)] for i in range(5)}
    ds = init_dataset({"class": "DistributeFilesDataset", "files": files, "partition_epoch": 2,
                       "use_worker_proc": False, "get_sub_epoch_dataset": _get_sub_epoch_dataset})
    assert ds.num_seqs == 0 and ds.get_data_keys() == ["orth", "raw"]
    with pytest.raises(OptionalNotImplementedError, match="partition_epoch > 1"):
        ds.get_total_num_seqs()
    got = []
    for ep in (1, 2, 3):
        ds.init_seq_order(epoch=ep)
        got.append(_iterate(ds))
    # observed from the reference: files split by size (z0-z2 | z3-z4)
    assert got == [f[0] + f[1] + f[2], f[3] + f[4], f[0] + f[1] + f[2]]
    ds = init_dataset({"class": "DistributeFilesDataset", "files": files, "partition_epoch": 2,
                       "seq_ordering": "random", "use_worker_proc": False,
                       "get_sub_epoch_dataset": _get_sub_epoch_dataset})
    got = []
    for ep in (1, 2, 3, 4):
        ds.init_seq_order(epoch=ep)
        got.append(_iterate(ds))
    # observed from the reference: the files shuffled per full epoch
    assert got == [f[2] + f[1] + f[4], f[0] + f[3], f[2] + f[4], f[1] + f[3] + f[0]]
    ds = init_dataset({"class": "DistributeFilesDataset", "use_worker_proc": False, "files": files,
                       "get_sub_epoch_dataset": _get_sub_epoch_dataset})
    assert ds.get_total_num_seqs() == 15
    ds.init_seq_order(epoch=1)
    assert ds.num_seqs == 15
    with pytest.raises(DatasetArgError, match="explicit seq_ordering"):
        init_dataset({"class": "DistributeFilesDataset", "use_worker_proc": False, "files": files,
                      "get_sub_epoch_dataset": lambda fs: {"class": "OggZipDataset", "path": fs, "audio": None,
                                                           "targets": None}})


#: (sizes, parts, part lengths) observed from the reference's split
#: (DistributeFilesDataset._distribute_evenly_by_size on files f00, f01, ... with these sizes)
REFERENCE_SPLITS = [
    ([10] * 10, 4, [3, 2, 2, 3]),
    ([823, 912, 993, 217, 888, 129, 316, 191, 258, 220, 836, 624, 125], 3, [2, 3, 8]),
    ([974, 563, 592, 170, 833], 3, [1, 1, 3]),
    ([1, 3, 1, 1, 1], 4, [1, 1, 1, 2]),
    ([2, 1, 1, 1, 2, 1], 4, [1, 2, 2, 1]),
    ([80, 61, 1, 120], 3, [1, 1, 2]),
    ([80, 60, 1, 120], 3, [1, 2, 1]),
    ([3, 1, 1, 1, 3], 3, [1, 3, 1]),
    ([20, 16, 0, 30], 3, [1, 2, 1]),
    ([5], 1, [1]),
    ([0, 0, 0, 0], 2, [3, 1]),
    ([13143, 40097, 9409, 12418, 13103, 20008, 6369, 62215, 61349, 13733, 36112, 18060, 16799, 4274, 15775, 1814,
      48633, 18071], 7, [3, 4, 1, 1, 2, 4, 3]),
    ([99152, 91457, 47651, 52828, 73596, 37357, 59172, 96485, 25276, 54226, 98940, 25500, 92216, 73113, 75036,
      81358, 7538, 13030, 54600], 9, [1, 2, 2, 2, 2, 2, 2, 2, 4]),
    ([56092, 56493, 54812, 52435, 50263, 58458, 53093, 59846, 58642, 51707, 50944, 54959, 53291, 50012, 56642,
      54800, 53729, 59446, 53668, 58162], 7, [3, 3, 3, 3, 3, 3, 2]),
]


@pytest.mark.parametrize("sizes,parts,lens", REFERENCE_SPLITS)
def test_distribute_files_split_equals_reference(sizes, parts, lens):
    files = ["f%02i" % i for i in range(len(sizes))]
    got = distribute_files(files, parts, sizes=sizes)
    assert [len(p) for p in got] == lens
    assert sum(got, []) == files  # contiguous, in order, nothing lost


def test_distribute_files_split_errors():
    with pytest.raises(DatasetArgError, match="cannot split 2 files into 3 parts"):
        distribute_files(["a", "b"], 3, sizes=[1, 2])  # the reference: AssertionError


def _write_hdf_corpus(tmp_path):
    """Six HDF files of 3, 1, 4, 2, 5, 2 sequences (tags f<i>/s<j>, 'data' float32 [T, 8], 'classes' int32)."""
    from returnn.datasets.hdf import SimpleHDFWriter

    files = []
    for i, num_seqs in enumerate([3, 1, 4, 2, 5, 2]):
        path = str(tmp_path / ("d%i.hdf" % i))
        writer = SimpleHDFWriter(path, dim=8, ndim=2, extra_type={"classes": (7, 1, "int32")})
        lens = [200 * (j + 1) + i for j in range(num_seqs)]
        t = max(lens)
        x = (np.arange(num_seqs * t * 8, dtype="float32").reshape(num_seqs, t, 8) % 13) + i
        classes = (np.arange(num_seqs * t, dtype="int32").reshape(num_seqs, t) + i) % 7
        writer.insert_batch(x, seq_len={0: lens, "classes": [n // 10 for n in lens]},
                            seq_tag=["f%i/s%i" % (i, j) for j in range(num_seqs)], extra={"classes": classes})
        writer.close()
        files.append(path)
    return files


def test_distribute_files_dataset_hdf(tmp_path):
    files = _write_hdf_corpus(tmp_path)
    tags = {i: ["f%i/s%i" % (i, j) for j in range(n)] for i, n in enumerate([3, 1, 4, 2, 5, 2])}

    def get_sub_epoch_dataset(fs):
        return {"class": "HDFDataset", "files": fs, "seq_ordering": "default"}

    def run(partition_epoch, seq_ordering, epochs):
        ds = init_dataset({"class": "DistributeFilesDataset", "files": files, "partition_epoch": partition_epoch,
                           "seq_ordering": seq_ordering, "use_worker_proc": False,
                           "get_sub_epoch_dataset": get_sub_epoch_dataset})
        out = []
        for ep in epochs:
            ds.init_seq_order(epoch=ep)
            got = _iterate(ds)
            assert ds.num_seqs == len(got)
            out.append(got)
        return ds, out

    # all observed from the reference on the same files (use_worker_proc=False here and there; the worker
    # processes are tested in test_distrib_files_workers.py)
    t = tags
    ds, got = run(2, "default", [1, 2, 3])
    assert got == [t[0] + t[1] + t[2], t[3] + t[4] + t[5], t[0] + t[1] + t[2]]
    _, got = run(3, "default", [1, 2, 3, 4])
    assert got == [t[0] + t[1], t[2], t[3] + t[4] + t[5], t[0] + t[1]]
    _, got = run(3, "random", range(1, 7))
    assert got == [t[2] + t[1], t[4], t[0] + t[3] + t[5], t[4], t[1] + t[3] + t[2], t[5] + t[0]]
    ds.init_seq_order(epoch=1)
    ds.load_seqs(0, 1)
    assert ds.get_data_keys() == ["data", "classes"]
    assert ds.num_outputs == {"data": [8, 2], "classes": [7, 1]}
    data, classes = ds.get_data(0, "data"), ds.get_data(0, "classes")
    assert data.dtype == np.float32 and data.shape == (200, 8) and data[0, :3].tolist() == [0.0, 1.0, 2.0]
    assert classes.dtype == np.int32 and classes.shape == (20,) and classes[:5].tolist() == [0, 1, 2, 3, 4]
    with pytest.raises(OptionalNotImplementedError, match="partition_epoch > 1"):
        ds.get_total_num_seqs()
    ds1, _ = run(1, "default", [1])
    assert ds1.get_total_num_seqs() == 17 and ds1.num_seqs == 17
    # the reference: ValueError "seq_ordering 'sorted' not supported" (only 'default' and 'random' are)
    for seq_ordering in ("sorted", "random:1", "laplace:.10"):
        with pytest.raises(DatasetArgError, match="'seq_ordering': expected 'default' or 'random'"):
            run(2, seq_ordering, [])
    # the reference: ValueError "len(files) 6 < partition_epoch 7"
    with pytest.raises(DatasetArgError, match="6 files for partition_epoch=7"):
        run(7, "default", [])
    list_file = tmp_path / "files.txt"
    list_file.write_text("\n".join(files[:2]) + "\n")  # one path per line, as the reference reads it
    ds = init_dataset({"class": "DistributeFilesDataset", "files": str(list_file), "partition_epoch": 2,
                       "use_worker_proc": False, "get_sub_epoch_dataset": get_sub_epoch_dataset})
    ds.init_seq_order(epoch=2)
    assert _iterate(ds) == t[1]


@pytest.mark.parametrize("sizes, bins, expected", [  # the reference test's cases
    ([1, 10, 1, 1], 3, [[1], [10], [1, 1]]),
    ([1, 1, 1, 56, 141], 4, [[1, 1], [1], [56], [141]]),
    ([5, 5] + [10] * 7, 5, [[5, 5, 10], [10, 10], [10], [10], [10, 10]]),
])
def test_distribute_evenly_by_size_static(sizes, bins, expected):
    from returnn.datasets.distrib_files import DistributeFilesDataset
    files = [f"file-{i}" for i in range(len(sizes))]
    file_sizes = dict(zip(files, sizes))
    res = DistributeFilesDataset._distribute_evenly_by_size(num_bins=bins, file_sizes=file_sizes, files_order=files)
    assert [[file_sizes[f] for f in part] for part in res] == expected
    dup = DistributeFilesDataset._distribute_evenly_by_size(num_bins=5, file_sizes={"f": 1}, files_order=["f"] * 10)
    assert dup == [["f", "f"]] * 5

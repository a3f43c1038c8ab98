"""MultiProcDataset and DistributeFilesDataset against the reference's outputs on the same zips."""

import os
import sys
import zipfile

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import speech_corpus  # noqa: E402

from returnn.datasets import init_dataset  # noqa: E402
from returnn.datasets.cached2 import OptionalNotImplementedError  # noqa: E402
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
                      "sharding_method": "dedicated"})


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
                       "get_sub_epoch_dataset": _get_sub_epoch_dataset})
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
                       "seq_ordering": "random", "get_sub_epoch_dataset": _get_sub_epoch_dataset})
    got = []
    for ep in (1, 2, 3, 4):
        ds.init_seq_order(epoch=ep)
        got.append(_iterate(ds))
    # observed from the reference: the files shuffled per full epoch
    assert got == [f[2] + f[1] + f[4], f[0] + f[3], f[2] + f[4], f[1] + f[3] + f[0]]
    ds = init_dataset({"class": "DistributeFilesDataset", "files": files,
                       "get_sub_epoch_dataset": _get_sub_epoch_dataset})
    assert ds.get_total_num_seqs() == 15
    ds.init_seq_order(epoch=1)
    assert ds.num_seqs == 15
    with pytest.raises(DatasetArgError, match="explicit seq_ordering"):
        init_dataset({"class": "DistributeFilesDataset", "files": files,
                      "get_sub_epoch_dataset": lambda fs: {"class": "OggZipDataset", "path": fs, "audio": None,
                                                           "targets": None}})

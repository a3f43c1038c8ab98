"""Tests for tools/dump-dataset.py and tools/hdf_dump.py (run as scripts from the repo root)."""

import os
import subprocess
import sys

import numpy as np

from returnn.datasets.hdf import HDFDataset
from returnn.datasets.generating import Task12AXDataset

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _run(*args):
    return subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_dump_dataset_prints_sequences():
    out = _run("tools/dump-dataset.py", '{"class": "Task12AXDataset", "num_seqs": 5}')
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert sum(line.startswith("seq ") for line in lines) == 5
    assert "seq 4/5 tag: 'seq-4'" in lines
    assert "Dataset keys: ['data', 'classes']" in lines


def test_dump_dataset_endseq_null_numpy(tmp_path):
    out = _run("tools/dump-dataset.py", '{"class": "Task12AXDataset", "num_seqs": 5}', "--endseq", "1",
               "--type", "null")
    assert out.returncode == 0 and "Iterated 2 seqs" in out.stdout
    prefix = str(tmp_path) + "/d"
    out = _run("tools/dump-dataset.py", "Task12AXDataset:num_seqs=3", "--type", "numpy", "--dump_prefix", prefix)
    assert out.returncode == 0, out.stderr
    ds = Task12AXDataset(num_seqs=3)
    ds.init_seq_order(epoch=1)
    np.testing.assert_array_equal(np.load(prefix + "2.classes.npy"), ds.get_data(2, "classes"))


def test_dump_dataset_config_file(tmp_path):
    cfg = tmp_path / "x.config"
    cfg.write_text('#!rnn.py\ndev = {"class": "Task12AXDataset", "num_seqs": 2}\n')
    out = _run("tools/dump-dataset.py", str(cfg), "--dataset", "dev", "--type", "null")
    assert out.returncode == 0, out.stderr
    assert "Iterated 2 seqs" in out.stdout


def test_dump_dataset_bad_class():
    out = _run("tools/dump-dataset.py", '{"class": "Task12AXDatset", "num_seqs": 5}')
    assert out.returncode == 1 and "did you mean: 'Task12AXDataset'" in out.stderr
    assert "Traceback" not in out.stderr


def test_hdf_dump(tmp_path):
    path = str(tmp_path / "out.hdf")
    out = _run("tools/hdf_dump.py", '{"class": "Task12AXDataset", "num_seqs": 4}', path)
    assert out.returncode == 0, out.stderr
    ref = Task12AXDataset(num_seqs=4)
    ref.init_seq_order(epoch=1)
    ds = HDFDataset(files=[path])
    ds.init_seq_order(epoch=1)
    assert ds.num_seqs == 4 and ds.get_data_dim("classes") == 2 and ds.is_data_sparse("classes")
    for i in range(4):
        assert ds.get_tag(i) == ref.get_tag(i)
        np.testing.assert_array_equal(ds.get_data(i, "data"), ref.get_data(i, "data"))
        np.testing.assert_array_equal(ds.get_data(i, "classes"), ref.get_data(i, "classes"))


def test_hdf_dump_functional_api(tmp_path):
    # the reference's module functions: hdf_dataset_init / hdf_dump_from_dataset / hdf_close
    import importlib.util
    spec = importlib.util.spec_from_file_location("hdf_dump_tool", os.path.join(ROOT, "tools", "hdf_dump.py"))
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)

    class _Opts:
        epoch, start_seq, end_seq = 1, 1, float("inf")

    path = str(tmp_path / "x.hdf")
    target = tool.hdf_dataset_init(path)
    assert os.path.exists(path)
    source = Task12AXDataset(num_seqs=4)
    assert tool.hdf_dump_from_dataset(source, target, _Opts()) == 3
    tool.hdf_close(target)
    loaded = HDFDataset()
    loaded.add_file(path)
    loaded.init_seq_order(epoch=1)
    loaded.load_seqs(0, 3)
    source.init_seq_order(epoch=1)
    np.testing.assert_array_equal(loaded.get_data(0, "classes"), source.get_data(1, "classes"))

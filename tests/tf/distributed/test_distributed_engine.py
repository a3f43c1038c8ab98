"""The real engine (``rnn.py``) with 2 worker processes on loopback, on the 12AX demo config
(``demos/demo-tf-native-lstm.12ax.config``, smaller epochs): identical parameters on both ranks, equal to
rank 0's checkpoint, written once; with ``horovod_dataset_distribution = "shard"`` the workers' sequences
are disjoint and together are the epoch; a worker killed mid-epoch makes the other stop with a clear error.

The workers run ``tests/tf/distributed/engine_worker.py`` (rnn.py plus hooks that record the fed sequence
tags and dump the final variables of each rank).
"""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
WORKER = os.path.join(HERE, "engine_worker.py")
LAUNCHER = os.path.join(REPO, "tools", "launch-distributed.py")
CONFIG = os.path.join(REPO, "demos", "demo-tf-native-lstm.12ax.config")
NUM_TRAIN_SEQS = 41  # odd: rank 0 gets 21 sequences, rank 1 20 -> uneven shards
GUARD_S = 170  # hang guard only


def _args(tmp_path, *extra, collective_timeout=20):
    return [CONFIG, "++distributed", "1", "++num_epochs", "2", "++model", str(tmp_path / "model"),
            "++log", str(tmp_path / "log"), "++log_verbosity", "4",
            "++train", '{"class": "Task12AXDataset", "num_seqs": %i, "fixed_random_seed": 1}' % NUM_TRAIN_SEQS,
            "++dev", '{"class": "Task12AXDataset", "num_seqs": 10, "fixed_random_seed": 2}',
            "++max_seqs", "8", "++distributed_collective_timeout", str(collective_timeout),
            "++distributed_start_timeout", "60",
            *extra]


def _env(tmp_path):
    return dict(os.environ, DIST_TEST_OUT=str(tmp_path), TF_CPP_MIN_LOG_LEVEL="2")


def _read(path):
    with open(path, encoding="utf8") as f:
        return f.read()


PORT_RACE = "cannot start the TensorFlow server"  # a free port was taken by another process meanwhile


def test_two_workers_train_12ax(tmp_path):
    for _attempt in range(2):
        proc = subprocess.run([sys.executable, LAUNCHER, "-n", "2", "--", sys.executable, WORKER, *_args(tmp_path)],
                              env=_env(tmp_path), capture_output=True, text=True, timeout=GUARD_S)
        if PORT_RACE not in proc.stderr:
            break
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    # identical parameters on both ranks, equal to the checkpoint of the last epoch
    params = [dict(np.load(tmp_path / f"params.rank{r}.npz")) for r in range(2)]
    assert sorted(params[0]) == sorted(params[1])
    assert "fw0/rec/W" in params[0] and "optimize/beta1_power" in params[0]
    for name in params[0]:
        np.testing.assert_array_equal(params[0][name], params[1][name], err_msg=name)
    import tensorflow as tf

    reader = tf.train.load_checkpoint(str(tmp_path / "model.002"))
    stored = reader.get_variable_to_shape_map()
    assert {"fw0/rec/W", "fw0/rec/W_re", "fw0/rec/b", "output/W", "output/b", "global_step"} <= set(stored)
    for name in stored:
        np.testing.assert_array_equal(reader.get_tensor(name), params[1][name], err_msg=name)
    assert int(params[1]["global_step"]) > 0
    # the checkpoints are written once, by rank 0; rank 1 logs to log.rank1
    files = sorted(os.listdir(tmp_path))
    assert [f for f in files if f.startswith("model.")] == [
        "model.001.data-00000-of-00001", "model.001.index", "model.001.meta",
        "model.002.data-00000-of-00001", "model.002.index", "model.002.meta"]
    assert len([f for f in files if f.startswith("train-")]) == 1  # TensorBoard: rank 0 only
    log0, log1 = _read(tmp_path / "log"), _read(tmp_path / "log.rank1")
    assert log0.count("Save model under %s" % (tmp_path / "model.002")) == 1
    assert "Save model under" not in log1
    assert "Distributed training: worker 1 of 2" in log1
    # dev scores are over the whole dev set: the same on both ranks
    dev0 = [line for line in log0.splitlines() if line.startswith("dev: score")]
    dev1 = [line for line in log1.splitlines() if line.startswith("dev: score")]
    assert len(dev0) == 2 and dev0 == dev1
    # shard: disjoint parts, together exactly the epoch, per epoch
    seen = [json.loads(_read(tmp_path / f"seen.rank{r}.json")) for r in range(2)]
    for epoch in ("1", "2"):
        parts = [set(seen[r][epoch]) for r in range(2)]
        assert len(parts[0]) == 21 and len(parts[1]) == 20, epoch
        assert not parts[0] & parts[1]
        assert parts[0] | parts[1] == {"seq-%i" % i for i in range(NUM_TRAIN_SEQS)}


def test_killed_worker_stops_the_other(tmp_path):
    launcher = _load_launcher()
    hosts = ["127.0.0.1:%i" % p for p in launcher.free_ports(2, "127.0.0.1")]
    env = _env(tmp_path)
    env.update(DIST_TEST_DIE_AT_STEP="2", DIST_TEST_DIE_RANK="1")
    for _attempt in range(2):
        procs = [subprocess.Popen([sys.executable, WORKER, *_args(tmp_path, "++num_epochs", "1",
                                                                  collective_timeout=10)],
                                  env=launcher.worker_env(r, hosts, env), stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True) for r in range(2)]
        try:
            out1 = procs[1].communicate(timeout=GUARD_S)
            out0 = procs[0].communicate(timeout=GUARD_S)
        finally:
            for p in procs:
                if p.poll() is None:
                    p.kill()
        if PORT_RACE not in out0[1] + out1[1]:
            break
        hosts = ["127.0.0.1:%i" % p for p in launcher.free_ports(2, "127.0.0.1")]
    assert procs[1].returncode == -9, out1[1][-2000:]
    assert procs[0].returncode == 1, out0[0][-2000:] + out0[1][-3000:]
    err = out0[1]
    assert "DistributedError: distributed training: worker 0 of 2" in err, err[-3000:]
    # the survivor ends through its collective timeout (not the test's guard): the error names it
    assert "Most likely another worker died or hangs (collective timeout 10 s" in err
    assert "Restart all workers; training continues from the last checkpoint." in err
    assert not os.path.exists(tmp_path / "model.001.index")  # the abandoned epoch is not saved


def _load_launcher():
    import importlib.util

    spec = importlib.util.spec_from_file_location("launch_distributed_engine_test", LAUNCHER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))

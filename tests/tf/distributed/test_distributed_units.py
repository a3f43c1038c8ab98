"""In-process tests of the distributed package: config keys, discovery, instance keys, single-worker
identities, sharding helpers, the launcher's environment and its stop-the-rest behaviour."""

import importlib.util
import json
import os
import subprocess
import sys

import numpy as np
import pytest
import tensorflow as tf

from returnn.config import Config
from returnn.errors import ConfigValueError, DistributedError
import returnn.tf.distributed as dist
from returnn.tf.distributed import cluster, discovery, host

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
LAUNCHER = os.path.join(REPO, "tools", "launch-distributed.py")
_spec = importlib.util.spec_from_file_location("launch_distributed_units", LAUNCHER)
launcher = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(launcher)


@pytest.fixture(autouse=True)
def _fresh_state():
    cluster.reset_for_tests()
    host.reset_for_tests()
    yield
    cluster.reset_for_tests()
    host.reset_for_tests()


def test_options_defaults_and_aliases():
    assert not dist.is_enabled(Config({}))
    assert dist.is_enabled(Config({"use_horovod": True}))
    assert dist.is_enabled(Config({"distributed": True}))
    opts = dist.get_options(Config({"use_horovod": True}))
    assert (opts.reduce_type, opts.param_sync_step, opts.dataset_distribution, opts.scale_lr) == \
        ("grad", 1, "shard", False)
    opts = dist.get_options(Config({"horovod_reduce_type": "param", "horovod_param_sync_step": 5,
                                    "horovod_dataset_distribution": "random_seed_offset", "horovod_scale_lr": True}))
    assert (opts.reduce_type, opts.param_sync_step, opts.dataset_distribution, opts.scale_lr) == \
        ("param", 5, "random_seed_offset", True)


def test_options_errors():
    with pytest.raises(ConfigValueError) as exc:
        dist.get_options(Config({"horovod_reduce_type": "grads"}))
    assert "'horovod_reduce_type'" in str(exc.value) and "did you mean: 'grad'" in str(exc.value)
    with pytest.raises(ConfigValueError, match="horovod_param_sync_step"):
        dist.get_options(Config({"horovod_param_sync_step": 0}))
    with pytest.raises(ConfigValueError, match="'horovod_dataset_distribution'.*\n.*'shard'"):
        dist.get_options(Config({"horovod_dataset_distribution": "shards"}))


def test_parse_tf_config():
    text = json.dumps({"cluster": {"worker": ["a:1", "b:2", "a:3"]}, "task": {"type": "worker", "index": 2}})
    info = discovery.parse_tf_config(text, env={})
    assert (info.rank, info.size, info.local_rank, info.hosts, info.source) == (2, 3, 1, ("a:1", "b:2", "a:3"),
                                                                                "tf_config")
    text = json.dumps({"cluster": {"chief": ["c:1"], "worker": ["w:1"]}, "task": {"type": "worker", "index": 0}})
    info = discovery.parse_tf_config(text, env={"RETURNN_DIST_LOCAL_RANK": "4"})
    assert (info.rank, info.size, info.local_rank, info.hosts) == (1, 2, 4, ("c:1", "w:1"))


@pytest.mark.parametrize("text, match", [
    ("{bad", "not valid JSON"),
    (json.dumps({"cluster": {"worker": ["a:1"]}, "task": {"type": "worker", "index": 1}}), "not in the cluster"),
    (json.dumps({"cluster": {"worker": ["a:1"], "ps": ["p:1"]}, "task": {"type": "worker"}}),
     "Parameter servers are not supported"),
    (json.dumps({"cluster": {"worker": ["a"]}, "task": {"type": "worker"}}), "host:port"),
])
def test_parse_tf_config_errors(text, match):
    with pytest.raises(DistributedError, match=match):
        discovery.parse_tf_config(text, env={})


def test_discover_order():
    assert discovery.discover_workers({}) == discovery.WorkerInfo()
    tf_config = json.dumps({"cluster": {"worker": ["a:1", "a:2"]}, "task": {"type": "worker", "index": 1}})
    assert discovery.discover_workers({"TF_CONFIG": tf_config}).rank == 1
    try:
        import mpi4py  # noqa: F401
    except ImportError:  # mpirun's environment comes first and needs mpi4py
        with pytest.raises(DistributedError, match="mpirun/mpiexec with 2 processes, but mpi4py"):
            discovery.discover_workers({"OMPI_COMM_WORLD_SIZE": "2", "TF_CONFIG": tf_config})


def test_instance_keys_deterministic():
    g1, g2 = tf.Graph(), tf.Graph()
    k1 = dist.instance_key("grad/sum", [3, 2], tf.float32, graph=g1)
    assert k1 == dist.instance_key("grad/sum", [3, 2], tf.float32, graph=g2)
    assert k1 == dist.instance_key("grad/sum", [3, 2], tf.float32, graph=g1)  # same op again: same key
    others = {dist.instance_key("grad/sum", [3, 3], tf.float32, graph=g2),
              dist.instance_key("grad/sum", [3, 2], tf.float64, graph=g2),
              dist.instance_key("grad/sum2", [3, 2], tf.float32, graph=g2)}
    assert k1 not in others and len(others) == 3
    # a collision in one graph moves on to the next key
    from returnn.tf.distributed import collectives
    g3 = tf.Graph()
    collectives._keys_per_graph[g3] = {k1: "something else"}
    assert dist.instance_key("grad/sum", [3, 2], tf.float32, graph=g3) == k1 + 1


def test_single_worker_identities():
    dist.init(Config({}))
    assert (dist.rank(), dist.size(), dist.local_rank(), dist.is_active(), dist.session_target()) == (0, 1, 0, False, "")
    with tf.Graph().as_default():
        x = tf.constant([[1.0, 2.0]])
        v = tf.Variable([3.0, 4.0])
        ops = [dist.allreduce(x), dist.broadcast(x), dist.allgather(x), dist.barrier_op()]
        gv = [(tf.constant([1.0, 1.0]), v)]
        assert dist.allreduce_gradients(gv) == gv
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            out = sess.run(ops + [dist.broadcast_variables_op([v]), dist.average_variables_op([v])])
    np.testing.assert_array_equal(out[0], [[1.0, 2.0]])
    np.testing.assert_array_equal(out[2], [[1.0, 2.0]])
    assert dist.average_scores({"dev_score": 0.5}) == {"dev_score": 0.5}
    assert dist.num_workers_with_data(True) == 1 and dist.num_workers_with_data(False) == 0
    dist.barrier()
    dist.check_same_graph(["x"])
    assert dist.scale_learning_rate(0.1) == 0.1 and not dist.is_param_sync_step(1)
    assert dist.shard_seq_order([5, 3, 1]) == [5, 3, 1] and dist.random_seed_offset() == 0
    assert dist.is_root() and dist.log_filename_for_rank("log/train") == "log/train"


def test_allreduce_argument_errors():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="average=True needs op='sum' and a float tensor"):
            dist.allreduce(tf.constant([1, 2]), average=True)
        with pytest.raises(ValueError, match="unsupported dtype string"):
            dist.allreduce(tf.constant(["a"]), average=False)


def _fake_worker(rank, size, **config):
    cluster.get_state().info = discovery.WorkerInfo(rank=rank, size=size, hosts=tuple(f"h:{i}" for i in range(size)))
    cluster.get_state().options = dist.get_options(Config(dict(config, distributed=True)))
    cluster.get_state().initialized = True


def test_rank_dependent_helpers():
    _fake_worker(1, 3, horovod_scale_lr=True, horovod_reduce_type="param", horovod_param_sync_step=3)
    assert dist.shard_seq_order([9, 8, 7, 6, 5, 4, 3]) == [8, 5]
    assert dist.random_seed_offset() == 0
    assert dist.scale_learning_rate(0.5) == 1.5
    assert [dist.is_param_sync_step(n) for n in range(1, 7)] == [False, False, True, False, False, True]
    assert not dist.is_root() and dist.log_filename_for_rank("log/train") == "log/train.rank1"
    _fake_worker(2, 3, horovod_dataset_distribution="random_seed_offset")
    assert dist.shard_seq_order([1, 2, 3]) == [1, 2, 3] and dist.random_seed_offset() == 2 * 16127
    assert dist.scale_learning_rate(0.5) == 0.5 and not dist.is_param_sync_step(1)


def test_launcher_env_round_trip():
    hosts = ["127.0.0.1:1000", "127.0.0.1:1001"]
    env = launcher.worker_env(1, hosts, base_env={"OMPI_COMM_WORLD_SIZE": "4", "PATH": "/bin"})
    assert "OMPI_COMM_WORLD_SIZE" not in env and env["PATH"] == "/bin"
    info = discovery.discover_workers(env)
    assert (info.rank, info.size, info.local_rank, info.hosts) == (1, 2, 1, tuple(hosts))


def test_launcher_stops_the_rest_when_one_fails(tmp_path):
    # worker 1 fails at once; worker 0 would sleep for a minute, records that it started, and must be stopped
    code = ("import json, os, sys, time; r = json.loads(os.environ['TF_CONFIG'])['task']['index']\n"
            f"open(os.path.join({str(tmp_path)!r}, 'started%d' % r), 'w').close()\n"
            "if r == 1: time.sleep(1); sys.exit(5)\n"
            f"time.sleep(60); open(os.path.join({str(tmp_path)!r}, 'survived'), 'w').close()")
    proc = subprocess.run([sys.executable, LAUNCHER, "-n", "2", "--grace", "5", "--", sys.executable, "-c", code],
                          capture_output=True, text=True, timeout=50)
    assert proc.returncode == 5
    assert "worker 1 exited with status 5; stopping the other workers" in proc.stderr
    assert sorted(os.listdir(tmp_path)) == ["started0", "started1"]


def test_launcher_all_succeed():
    proc = subprocess.run([sys.executable, LAUNCHER, "-n", "3", "--", sys.executable, "-c", "pass"],
                          capture_output=True, text=True, timeout=50)
    assert proc.returncode == 0, proc.stderr


class _StubDataset:
    """Minimal stand-in with the dataset API the helpers use (epoch order = reversed corpus)."""

    def __init__(self, n):
        self.n, self.random_seed_offset, self.calls = n, 3, []

    def init_seq_order(self, epoch=None, seq_list=None, seq_order=None):
        self.calls.append((epoch, seq_order))
        self.order = list(seq_order) if seq_order is not None else list(range(self.n))[::-1]

    def get_current_seq_order(self):
        return list(self.order)


def test_dataset_epoch_helpers():
    ds = _StubDataset(7)
    dist.init_dataset_epoch(ds, 2)  # not distributed: untouched
    assert ds.order == [6, 5, 4, 3, 2, 1, 0] and ds.calls == [(2, None)]
    dist.apply_random_seed_offset(ds)
    assert ds.random_seed_offset == 3
    _fake_worker(1, 2)
    ds = _StubDataset(7)
    dist.init_dataset_epoch(ds, 3)
    assert ds.order == [5, 3, 1]
    _fake_worker(1, 2, horovod_dataset_distribution="random_seed_offset")
    dist.apply_random_seed_offset(ds)
    assert ds.random_seed_offset == 3 + 16127
    _fake_worker(0, 2)

    class NoOrder:
        name = "train"

        def init_seq_order(self, epoch=None):
            pass

    with pytest.raises(DistributedError, match="dataset 'train' \\(NoOrder\\) cannot be restricted"):
        dist.init_dataset_epoch(NoOrder(), 1)

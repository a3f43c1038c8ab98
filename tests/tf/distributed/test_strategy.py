"""Single-process tests of returnn.tf.distributed.strategy and .startup: the lockstep of training steps (with a
simulated peer), per-rank log names, task gating, the strategy chosen, and that the single-process strategy changes
nothing."""

import json

import numpy as np
import pytest

from returnn.config import Config
from returnn.errors import DistributedError
from returnn.tf.distributed import cluster, host, startup
from returnn.tf.distributed.strategy import (
    CollectiveStrategy,
    SingleProcessStrategy,
    TrainSync,
    get_strategy,
)
from returnn.tf.distributed.discovery import WorkerInfo
from returnn.tf.engine.runner import PassResult


@pytest.fixture(autouse=True)
def _fresh_state():
    cluster.reset_for_tests()
    yield
    cluster.reset_for_tests()


@pytest.fixture
def fake_two_workers(monkeypatch):
    """Pretends this process is rank 0 of 2; ``peer`` lists the peer's (has_data, stop) per sync call, and
    host_allreduce adds them to the own flags (what the real all-reduce over 2 workers computes)."""
    state = cluster.get_state()
    monkeypatch.setattr(state, "info", WorkerInfo(rank=0, size=2, hosts=("a:1", "b:2"), source="tf_config"))
    monkeypatch.setattr(state, "initialized", True)
    peer = []
    calls = []

    def host_allreduce(value, name, **kwargs):
        assert name == "train_step_sync"
        own = np.asarray(value)
        calls.append(own.tolist())
        return own + np.array(peer.pop(0), np.int32)

    monkeypatch.setattr(host, "host_allreduce", host_allreduce)
    return peer, calls


class _Session:
    def __init__(self):
        self.runs = []

    def run(self, op):
        self.runs.append(op)


def test_lockstep_weight_zero_steps_until_all_done(fake_two_workers):
    peer, calls = fake_two_workers
    peer += [(1, 0)] * 4 + [(0, 0)]  # the peer has 4 batches, this worker 2
    sync = TrainSync(_Session(), grad_weight="weight-placeholder")
    steps = list(sync.steps(["b0", "b1"], lambda: False))
    assert steps == [("b0", True, False), ("b1", True, False), ("b1", False, False), ("b1", False, False)]
    assert calls == [[1, 0], [1, 0], [0, 0], [0, 0], [0, 0]]
    assert [sync.feed_weight(own) for _, own, _ in steps] == [1.0, 1.0, 0.0, 0.0]


def test_lockstep_stop_on_any_worker(fake_two_workers):
    peer, _ = fake_two_workers
    peer += [(1, 0), (1, 1)]  # the peer got a signal before its 2nd step
    steps = list(TrainSync(_Session()).steps(["b0", "b1", "b2"], lambda: False))
    assert steps == [("b0", True, False), ("b1", True, True)]


def test_lockstep_empty_shard_with_grad_reduce_is_an_error(fake_two_workers):
    peer, _ = fake_two_workers
    peer += [(1, 0)]
    with pytest.raises(DistributedError, match="worker 0 of 2 got no batch at all in this epoch"):
        list(TrainSync(_Session(), grad_weight="w").steps([], lambda: False))


def test_param_sync_steps(fake_two_workers, monkeypatch):
    monkeypatch.setattr(cluster.get_state(), "options",
                        cluster.DistributedOptions(enabled=True, reduce_type="param", param_sync_step=3))
    session = _Session()
    sync = TrainSync(session, average_op="avg", global_step_offset=4)
    for step in range(6):  # global updates 5..10: sync after 6 and 9
        sync.after_step(step)
    assert session.runs == ["avg", "avg"]
    sync.end_of_pass()
    assert session.runs == ["avg"] * 3


def test_rank_log_names():
    assert startup._rank_log_names(["log/train", "stdout"], 2) == ["log/train.rank2", "stdout"]
    assert startup._rank_log_names(["log/train.rank2"], 2) == ["log/train.rank2"]
    assert startup._rank_log_names(["log/train"], 0) == ["log/train"]


def _tf_config(rank):
    return json.dumps({"cluster": {"worker": ["127.0.0.1:1", "127.0.0.1:2"]}, "task": {"type": "worker",
                                                                                       "index": rank}})


def test_rank_log_config_from_tf_config(monkeypatch):
    monkeypatch.setenv("TF_CONFIG", _tf_config(1))
    config = Config({"use_horovod": True, "log": "out/train.log"})
    startup.rank_log_config(config)
    assert config.list("log") == ["out/train.log.rank1"]
    startup.rank_log_config(config)  # idempotent
    assert config.list("log") == ["out/train.log.rank1"]
    off = Config({"log": "out/train.log"})
    startup.rank_log_config(off)
    assert off.list("log") == ["out/train.log"]


def test_other_tasks_only_on_rank0(monkeypatch):
    monkeypatch.setenv("TF_CONFIG", _tf_config(1))
    assert startup.setup_task(Config({"distributed": True}), "forward") is False
    monkeypatch.setenv("TF_CONFIG", _tf_config(0))
    assert startup.setup_task(Config({"distributed": True}), "forward") is True
    assert not cluster.is_active()
    assert startup.setup_task(Config({}), "train") is True  # not enabled: nothing happens
    assert not cluster.is_active()


class _Dataset:
    def __init__(self):
        self.calls = []

    def init_seq_order(self, epoch=None, seq_list=None, seq_order=None):
        self.calls.append(epoch)


def test_single_process_strategy_changes_nothing():
    assert not cluster.is_active()
    strategy = get_strategy()
    assert isinstance(strategy, SingleProcessStrategy)
    assert strategy.is_root and strategy.loads_checkpoints
    assert strategy.agree_int(7, "x") == 7 and strategy.agree_float(0.5, "y") == 0.5
    assert strategy.step_sync(_Session(), object(), 0) is None
    dataset = _Dataset()
    strategy.init_epoch(dataset, 3)
    assert dataset.calls == [3]
    result = PassResult(["output"])
    result.add({"cost:output": 3.0, "frames:output": 4.0, "error:output": 1.0})
    strategy.end_of_pass(result)
    assert (result.loss, result.frames, result.error) == ({"output": 3.0}, {"output": 4.0}, {"output": 1.0})
    strategy.after_save(1)
    session = _Session()
    strategy.sync_model(None, session, ["v"])
    assert session.runs == []


def test_collective_strategy_of_rank0_of_2(fake_two_workers):
    strategy = get_strategy()
    assert isinstance(strategy, CollectiveStrategy)
    assert strategy.is_root and strategy.loads_checkpoints and strategy.name == "worker 0 of 2"
    sync = strategy.step_sync(_Session(), object(), 5)
    assert isinstance(sync, TrainSync) and sync.global_step_offset == 5 and sync.grad_weight is None


def test_sum_pass_result_over_workers(fake_two_workers, monkeypatch):
    def sum_scores(values):  # the peer's sums: loss 5, frames 6, no error for this loss, 3 seqs
        peer = {"num_seqs": 3.0, "loss:output": 5.0, "frames:output": 6.0, "error:output": 0.0,
                "has_error:output": 0.0}
        assert sorted(values) == sorted(peer)
        return {k: values[k] + peer[k] for k in values}

    monkeypatch.setattr(host, "sum_scores", sum_scores)
    result = PassResult(["output"])
    result.add({"cost:output": 3.0, "frames:output": 4.0, "error:output": 1.0})
    result.num_seqs = 2
    get_strategy().end_of_pass(result)
    assert result.scores() == {"output": 0.8} and result.errors() == {"output": 0.1} and result.num_seqs == 5

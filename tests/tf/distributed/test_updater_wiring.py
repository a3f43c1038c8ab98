"""The updater's distributed wiring, built in one process (graph construction only; the multi-process runs are
in test_distributed_engine.py): without distribution the training graph has no collective op and nothing
extra; as rank 0 of 2 with ``horovod_reduce_type = "grad"`` it all-reduces the fused gradients weighted by a
placeholder, with ``"param"`` it builds a separate parameter-averaging op; ``horovod_scale_lr``. The updater gets
all of this from the strategy it is given: without one (as the reference's signature) it is the single process,
even when the process is a worker of several."""

import numpy as np
import pytest
import tensorflow as tf

from returnn.config import Config
from returnn.tf.distributed import cluster
from returnn.tf.distributed.discovery import WorkerInfo
from returnn.tf.distributed.options import get_options
from returnn.tf.distributed.strategy import CollectiveStrategy, SingleProcessStrategy, get_strategy
from returnn.tf.updater import Updater

TF = tf.compat.v1


@pytest.fixture(autouse=True)
def _fresh_state():
    cluster.reset_for_tests()
    yield
    cluster.reset_for_tests()


def _as_rank0_of_2(monkeypatch, **opts):
    state = cluster.get_state()
    monkeypatch.setattr(state, "info", WorkerInfo(rank=0, size=2, hosts=("a:1", "b:2"), source="tf_config"))
    monkeypatch.setattr(state, "options", get_options(Config(dict(distributed=True, **opts))))
    monkeypatch.setattr(state, "initialized", True)


def _build(opts=None, strategy=None):
    graph = tf.Graph()
    with graph.as_default():
        x = TF.get_variable("x", initializer=np.ones([2, 3], np.float32))
        y = TF.get_variable("y", initializer=np.ones([4], np.float32))
        loss = tf.reduce_sum(tf.square(x)) + tf.reduce_sum(y)
        updater = Updater(Config(dict(opts or {}, optimizer={"class": "adam"})), initial_learning_rate=0.5,
                          loss=loss, var_list=[x, y], strategy=strategy)
        updater.get_optim_op()
    return graph, updater


def _op_types(graph):
    return sorted({op.type for op in graph.get_operations()})


def test_not_distributed_no_extra_ops():
    graph, updater = _build(strategy=get_strategy())
    assert isinstance(updater.strategy, SingleProcessStrategy)
    assert updater.dist_grad_weight is None and updater.dist_average_op is None
    assert not [t for t in _op_types(graph) if t.startswith("Collective")]
    assert not [op for op in graph.get_operations() if "distributed" in op.name or "allreduce" in op.name]


def test_grad_reduce_type(monkeypatch):
    _as_rank0_of_2(monkeypatch, horovod_reduce_type="grad")
    graph, updater = _build(strategy=get_strategy())
    assert isinstance(updater.strategy, CollectiveStrategy)
    assert updater.dist_average_op is None
    assert updater.dist_grad_weight is not None and updater.dist_grad_weight.op.type == "PlaceholderWithDefault"
    reduces = [op for op in graph.get_operations() if op.type == "CollectiveReduceV2"]
    assert len(reduces) == 1  # one fused buffer: 6 + 4 gradient values + the weight
    assert reduces[0].inputs[0].shape.as_list() == [11]
    assert reduces[0].get_attr("merge_op") == b"Add" and reduces[0].get_attr("final_op") == b"Id"


def test_param_reduce_type(monkeypatch):
    _as_rank0_of_2(monkeypatch, horovod_reduce_type="param", horovod_param_sync_step=4)
    graph, updater = _build(strategy=get_strategy())
    assert updater.dist_grad_weight is None and updater.dist_average_op is not None
    reduces = [op for op in graph.get_operations() if op.type == "CollectiveReduceV2"]
    assert len(reduces) == 1 and reduces[0].inputs[0].shape.as_list() == [10]
    assert reduces[0].get_attr("final_op") == b"Div"  # average
    # the optimizer step itself does not depend on the collective
    optim_deps = {op.name for op in _ancestors(updater.optim_op)}
    assert reduces[0].name not in optim_deps


def test_scale_lr(monkeypatch):
    _as_rank0_of_2(monkeypatch, horovod_scale_lr=True)
    graph = tf.Graph()
    with graph.as_default():
        x = TF.get_variable("x", initializer=np.ones([2], np.float32))
        updater = Updater(Config({}), initial_learning_rate=1.0, loss=tf.reduce_sum(x), var_list=[x],
                          strategy=get_strategy())
        plain = Updater(Config({}), initial_learning_rate=1.0, loss=tf.reduce_sum(x), var_list=[x])
        with TF.Session(graph=graph) as session:  # (no optimizer op: it would need the worker's server)
            session.run([updater.learning_rate_var.initializer, plain.learning_rate_var.initializer])
            updater.set_learning_rate(0.25, session)
            plain.set_learning_rate(0.25, session)
            assert session.run(updater.learning_rate_var) == 0.5  # 0.25 * 2 workers
            assert session.run(plain.learning_rate_var) == 0.25  # no strategy given: one process


def test_updater_without_strategy_is_single_process(monkeypatch):
    _as_rank0_of_2(monkeypatch, horovod_reduce_type="grad")
    graph, updater = _build()
    assert updater.dist_grad_weight is None and updater.dist_average_op is None
    assert not [t for t in _op_types(graph) if t.startswith("Collective")]


def _ancestors(op):
    seen, todo = set(), [op]
    while todo:
        cur = todo.pop()
        if cur in seen:
            continue
        seen.add(cur)
        todo.extend(t.op for t in cur.inputs)
        todo.extend(cur.control_inputs)
    return seen

"""Collective graph ops over all workers: :func:`allreduce`, :func:`broadcast`, :func:`allgather`,
:func:`barrier`, built from TensorFlow's ``CollectiveReduceV2`` / ``CollectiveBcastSendV2`` /
``CollectiveBcastRecvV2`` / ``CollectiveGatherV2`` (``tf.raw_ops``) for ``tf.compat.v1`` graphs.

Every worker must build the same collective ops in the same order: peers are matched by ``group_key``
(one group: all workers) and ``instance_key``, which :func:`instance_key` derives deterministically from the
op's name scope, static shape and dtype (an instance key is bound to the first shape it is used with).
All ops are placed on this worker's CPU and carry ``timeout_seconds``, so a dead peer makes the step fail
with ``tf.errors.DeadlineExceededError`` / ``UnavailableError`` (see :func:`~.failures.translate_error`)
instead of hanging. With a single worker (or before/without :func:`~.cluster.init`) all ops are identities.
"""

from __future__ import annotations

import hashlib
import weakref
from typing import Dict, Optional

import tensorflow as tf

from . import cluster

GROUP_KEY = 1
_KEY_RANGE = 2 ** 30
_KEY_OFFSET = 1000  # keys below are left for hand-picked use
_REDUCE_DTYPES = (tf.float16, tf.bfloat16, tf.float32, tf.float64, tf.int32, tf.int64)
_MERGE_OPS = {"sum": "Add", "min": "Min", "max": "Max", "prod": "Mul"}

_keys_per_graph: "weakref.WeakKeyDictionary[tf.Graph, Dict[int, str]]" = weakref.WeakKeyDictionary()


def instance_key(name: str, shape, dtype, graph: Optional[tf.Graph] = None) -> int:
    """The collective instance key for an op named ``name`` (its unique name scope) with ``shape``/``dtype``.

    Derived from sha256 of ``name|shape|dtype``; a collision with a different op in the same graph moves
    to the next free key, which is again deterministic when all workers build the same graph.

    :return: int in [1000, 1000 + 2**30)
    """
    graph = graph or tf.compat.v1.get_default_graph()
    ident = f"{name}|{tf.TensorShape(shape).as_list() if tf.TensorShape(shape).rank is not None else None}|" \
            f"{tf.as_dtype(dtype).name}"
    used = _keys_per_graph.setdefault(graph, {})
    key = int.from_bytes(hashlib.sha256(ident.encode("utf8")).digest()[:8], "little") % _KEY_RANGE
    while used.get(key + _KEY_OFFSET, ident) != ident:
        key = (key + 1) % _KEY_RANGE
    used[key + _KEY_OFFSET] = ident
    return key + _KEY_OFFSET


def _timeout(timeout: Optional[float], start: bool) -> float:
    if timeout is not None:
        return float(timeout)
    opts = cluster.options()
    return opts.start_timeout if start else opts.collective_timeout


def _static_shape(tensor: tf.Tensor, what: str) -> list:
    if not tensor.shape.is_fully_defined():
        raise ValueError(f"distributed {what}: tensor {tensor.name} needs a static shape (collective instance "
                         f"keys are bound to one shape), got {tensor.shape}")
    return tensor.shape.as_list()


def allreduce(tensor, average: bool = True, *, op: str = "sum", name: str = "allreduce",
              timeout: Optional[float] = None) -> tf.Tensor:
    """Element-wise reduction of ``tensor`` over all workers; every worker gets the result.

    :param tensor: any static shape; dtype float16/bfloat16/float32/float64/int32/int64
        (bool is reduced as int32 and cast back)
    :param average: divide the sum by the number of workers (``op="sum"`` with a float dtype only)
    :param op: ``"sum"``, ``"min"``, ``"max"`` or ``"prod"``
    :param name: name scope; part of the instance key, so it must be the same on all workers
    :param timeout: seconds; default ``distributed_collective_timeout``
    :return: tensor of the same shape and dtype
    :raises ValueError: dynamic shape, unsupported dtype, or ``average`` for a non-float dtype
    """
    with tf.name_scope(name) as scope:
        tensor = tf.convert_to_tensor(tensor)
        if tensor.dtype == tf.bool:
            return tf.cast(allreduce(tf.cast(tensor, tf.int32), False, op=op, name="bool", timeout=timeout), tf.bool)
        if tensor.dtype not in _REDUCE_DTYPES:
            raise ValueError(f"distributed allreduce: unsupported dtype {tensor.dtype.name} of {tensor.name}")
        if average and (op != "sum" or not tensor.dtype.is_floating):
            raise ValueError(f"distributed allreduce: average=True needs op='sum' and a float tensor, got op={op!r} "
                             f"and {tensor.dtype.name}")
        if not cluster.is_active():
            return tf.identity(tensor)
        shape = _static_shape(tensor, "allreduce")
        with tf.device(cluster.local_device()):
            return tf.raw_ops.CollectiveReduceV2(
                input=tensor, group_size=cluster.size(), group_key=GROUP_KEY,
                instance_key=instance_key(scope, shape, tensor.dtype), ordering_token=[],
                merge_op=_MERGE_OPS[op], final_op="Div" if average else "Id",
                timeout_seconds=_timeout(timeout, start=False))


def broadcast(tensor, root_rank: int = 0, *, name: str = "broadcast", timeout: Optional[float] = None) -> tf.Tensor:
    """The value of ``tensor`` on worker ``root_rank``, on every worker.

    :param tensor: static shape (the same on all workers); dtype bool/float16/float32/float64/int32/int64
    :param root_rank: the sending worker
    :param timeout: seconds; default ``distributed_start_timeout`` (broadcasts happen at start)
    :return: tensor of the same shape and dtype
    """
    with tf.name_scope(name) as scope:
        tensor = tf.convert_to_tensor(tensor)
        if not cluster.is_active():
            return tf.identity(tensor)
        if not 0 <= root_rank < cluster.size():
            raise ValueError(f"distributed broadcast: root_rank {root_rank} not in [0, {cluster.size()})")
        shape = _static_shape(tensor, "broadcast")
        kwargs = dict(group_size=cluster.size(), group_key=GROUP_KEY,
                      instance_key=instance_key(scope, shape, tensor.dtype),
                      timeout_seconds=_timeout(timeout, start=True))
        with tf.device(cluster.local_device()):
            if cluster.rank() == root_rank:
                return tf.raw_ops.CollectiveBcastSendV2(input=tensor, **kwargs)
            with tf.control_dependencies([tensor]):  # keep the same execution order as on the root
                return tf.raw_ops.CollectiveBcastRecvV2(shape=shape, T=tensor.dtype, **kwargs)


def allgather(tensor, *, name: str = "allgather", timeout: Optional[float] = None) -> tf.Tensor:
    """Concatenation of every worker's ``tensor`` along axis 0, in rank order.

    :param tensor: static shape [n, ...] (rank >= 1, the same on all workers); dtype as :func:`allreduce`
    :param timeout: seconds; default ``distributed_start_timeout``
    :return: [size * n, ...]
    """
    with tf.name_scope(name) as scope:
        tensor = tf.convert_to_tensor(tensor)
        if not cluster.is_active():
            return tf.identity(tensor)
        shape = _static_shape(tensor, "allgather")
        with tf.device(cluster.local_device()):
            return tf.raw_ops.CollectiveGatherV2(
                input=tensor, group_size=cluster.size(), group_key=GROUP_KEY,
                instance_key=instance_key(scope, shape, tensor.dtype), ordering_token=[],
                timeout_seconds=_timeout(timeout, start=True))


def barrier(*, name: str = "barrier", timeout: Optional[float] = None) -> tf.Tensor:
    """An op that completes only when every worker runs it.

    :param timeout: seconds; default ``distributed_start_timeout``
    :return: int32 scalar, the number of workers that reached the barrier (== size)
    """
    return allreduce(tf.constant(1, tf.int32), average=False, name=name,
                     timeout=_timeout(timeout, start=True))

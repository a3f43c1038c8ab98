"""Graph-side helpers for the engine and updater: parameter broadcast at start, gradient all-reduce,
parameter averaging (``horovod_reduce_type = "param"``), learning-rate scaling, graph description.

Tensors are fused per dtype (flattened and concatenated into one buffer, as Horovod's tensor fusion) so a
step issues one collective per dtype, in a fixed order, whatever the number of variables.
"""

from __future__ import annotations

from typing import Callable, Dict, List, Optional, Sequence, Tuple

import tensorflow as tf

from . import cluster, collectives

tf1 = tf.compat.v1


def _fused(tensors: Sequence[tf.Tensor], fn: Callable[[tf.Tensor, str], tf.Tensor], name: str) -> List[tf.Tensor]:
    """Applies ``fn(flat_buffer, dtype_name)`` to one concatenated buffer per dtype and splits the result back."""
    groups: Dict[tf.DType, List[int]] = {}
    for i, t in enumerate(tensors):
        groups.setdefault(t.dtype.base_dtype, []).append(i)
    out: List[Optional[tf.Tensor]] = [None] * len(tensors)
    for dtype in sorted(groups, key=lambda d: d.name):
        idx = groups[dtype]
        shapes = [tensors[i].shape for i in idx]
        for i, shape in zip(idx, shapes):
            if not shape.is_fully_defined():
                raise ValueError(f"distributed: {name}: tensor {tensors[i].name} needs a static shape, got {shape}")
        sizes = [shape.num_elements() for shape in shapes]
        flat = tf.concat([tf.reshape(tensors[i], [-1]) for i in idx], axis=0)
        result = fn(flat, dtype.name)
        for i, part, shape in zip(idx, tf.split(result, sizes), shapes):
            out[i] = tf.reshape(part, shape)
    return out


def broadcast_variables_op(variables: Sequence[tf.Variable], root_rank: int = 0,
                           name: str = "broadcast_params") -> tf.Operation:
    """An op assigning every variable its value on worker ``root_rank`` (run once after initialization or
    after loading a checkpoint, so all workers start identical).

    :param variables: all variables whose values must agree (params, optimizer slots, global step)
    :return: a grouped assign op (``tf.no_op`` when not distributed or no variables)
    """
    return _assign_collective(variables, name,
                              lambda flat, dt: collectives.broadcast(flat, root_rank, name=f"bcast_{dt}"))


def average_variables_op(variables: Sequence[tf.Variable], name: str = "param_average") -> tf.Operation:
    """An op assigning every variable its average over all workers (``horovod_reduce_type = "param"``).

    :param variables: the trainable variables (float dtypes)
    :return: a grouped assign op (``tf.no_op`` when not distributed)
    """
    return _assign_collective(variables, name,
                              lambda flat, dt: collectives.allreduce(flat, True, name=f"avg_{dt}"))


def _assign_collective(variables: Sequence[tf.Variable], name: str, collective) -> tf.Operation:
    """Assigns every variable the result of ``collective(flat_buffer, dtype_name)`` applied to the variables'
    values fused into one buffer per dtype (in name order, the same on every worker); ``tf.no_op`` when not
    distributed or no variables."""
    variables = sorted(variables, key=lambda v: v.name)
    if not cluster.is_active() or not variables:
        return tf.no_op(name=name)
    with tf.name_scope(name):
        values = _fused([v.read_value() for v in variables], collective, name)
        return tf.group(*[v.assign(value, read_value=False) for v, value in zip(variables, values)])


def make_grad_weight_placeholder(name: str = "distributed_grad_weight") -> tf.Tensor:
    """float32 scalar placeholder, default 1.0: this worker's weight in the gradient average. Feed 0.0 for a
    step this worker runs without own data (its batch is exhausted while peers still have data)."""
    return tf1.placeholder_with_default(tf.constant(1.0, tf.float32), shape=(), name=name)


def allreduce_gradients(grads_and_vars: Sequence[Tuple[Optional[tf.Tensor], tf.Variable]], *,
                        weight: Optional[tf.Tensor] = None,
                        name: str = "grad_allreduce") -> List[Tuple[Optional[tf.Tensor], tf.Variable]]:
    """All-reduces gradients (``horovod_reduce_type = "grad"``): each worker gets the average over workers.

    :param grads_and_vars: as from ``optimizer.compute_gradients``; ``IndexedSlices`` become dense,
        ``None`` gradients stay ``None`` (identical graphs have the same ``None`` s everywhere)
    :param weight: optional float32 scalar (see :func:`make_grad_weight_placeholder`): the result is the
        weighted mean ``sum_w(w * g) / sum_w(w)`` (0 if all weights are 0); default: plain mean
    :return: new list of (averaged gradient, variable), same order; unchanged when not distributed
    """
    pairs = list(grads_and_vars)
    if not cluster.is_active():
        return pairs
    idx = [i for i, (g, _) in enumerate(pairs) if g is not None]
    if not idx:
        return pairs
    with tf.name_scope(name):
        grads = [tf.convert_to_tensor(pairs[i][0]) for i in idx]

        def reduce(flat: tf.Tensor, dt: str) -> tf.Tensor:
            if weight is None:
                return collectives.allreduce(flat, True, name=f"sum_{dt}")
            w = tf.cast(weight, flat.dtype)
            total = collectives.allreduce(tf.concat([flat * w, tf.reshape(w, [1])], 0), False, name=f"wsum_{dt}")
            return tf.math.divide_no_nan(total[:-1], total[-1])

        reduced = _fused(grads, reduce, name)
    result = list(pairs)
    for i, g in zip(idx, reduced):
        result[i] = (g, pairs[i][1])
    return result


def is_param_sync_step(num_updates: int) -> bool:
    """Whether to run :func:`average_variables_op` after the local update number ``num_updates`` (1-based):
    with ``horovod_reduce_type = "param"``, every ``horovod_param_sync_step``-th update."""
    opts = cluster.options()
    return cluster.is_active() and opts.reduce_type == "param" and num_updates % opts.param_sync_step == 0


def scale_learning_rate(learning_rate: float) -> float:
    """``learning_rate * size()`` with ``horovod_scale_lr = True`` (and distributed), else unchanged."""
    if cluster.is_active() and cluster.options().scale_lr:
        return learning_rate * cluster.size()
    return learning_rate


def describe_variables(variables: Sequence[tf.Variable]) -> List[str]:
    """One line ``name shape dtype`` per variable, sorted by name (input to :func:`~.host.check_same_graph`)."""
    return sorted(f"{v.name} {v.shape.as_list() if v.shape.rank is not None else '?'} {v.dtype.base_dtype.name}"
                  for v in variables)

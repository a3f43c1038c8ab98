"""Gradient checkpointing (TF graph mode): values computed inside a :func:`gradient_checkpoint_scope` are not kept
for the backward pass; the gradient recomputes them (e.g. a dropped-out weight matrix, which is as big as the
weights, from the weights and the stored random values).

Usage (as in the reference's API)::

    with gradient_checkpoint_scope():
        w_dropped = tf.nn.dropout(w, rate=0.1)   # recorded
    y = tf.matmul(x, w_dropped)                    # a consumer outside the scope
    ...
    prepare_gradient_checkpointing()               # before building the gradients (tf.gradients / minimize)

:func:`prepare_gradient_checkpointing` changes the gradient of each op that consumes a value of a recorded scope
(``MatMul`` above): its gradient function gets a copy of the scope's ops, recomputed after the incoming gradient
is known, in place of the forward values. Stateful ops (random number draws, RNG state reads) are not copied, the
copy uses their forward outputs, so the recomputed values are exactly the forward ones. Scopes with control flow
ops (a ``tf.cond``, e.g. on a train flag tensor) and consumers inside a loop or cond are left as they are. Ops
created inside
:func:`gradient_checkpoint_exclude_scope` (within a checkpoint scope) are not recorded. The gradients' values do
not change, only what the backward pass keeps in memory.
"""

from __future__ import annotations

import contextlib
import itertools
import weakref
from typing import Dict, Iterator, List, Sequence, Set

import tensorflow as tf
from tensorflow.python.framework import ops as tf_ops

__all__ = ["gradient_checkpoint_scope", "gradient_checkpoint_exclude_scope", "prepare_gradient_checkpointing"]

#: per graph: the recorded scopes, each a list of ops in creation order
_scopes: "weakref.WeakKeyDictionary[tf.Graph, List[List[tf.Operation]]]" = weakref.WeakKeyDictionary()
_excluded: "weakref.WeakKeyDictionary[tf.Graph, Set[str]]" = weakref.WeakKeyDictionary()
_counter = itertools.count()
_NOT_COPIED_STATEFUL = {"ReadVariableOp"}  # stateful by its op def, but reading it again gives the same value
_CONTROL_FLOW_TYPES = {"Switch", "Merge", "Enter", "Exit", "NextIteration", "LoopCond", "If", "StatelessIf", "While",
                       "StatelessWhile"}


@contextlib.contextmanager
def gradient_checkpoint_scope() -> Iterator[None]:
    """Records the ops created inside (in the default graph) as one checkpoint scope."""
    graph = tf.compat.v1.get_default_graph()
    start = len(graph.get_operations())
    try:
        yield
    finally:
        excluded = _excluded.get(graph, set())
        new_ops = [op for op in graph.get_operations()[start:] if op.name not in excluded]
        if new_ops:
            _scopes.setdefault(graph, []).append(new_ops)


@contextlib.contextmanager
def gradient_checkpoint_exclude_scope() -> Iterator[None]:
    """Ops created inside are not recorded by an enclosing :func:`gradient_checkpoint_scope` (kept as usual)."""
    graph = tf.compat.v1.get_default_graph()
    start = len(graph.get_operations())
    try:
        yield
    finally:
        _excluded.setdefault(graph, set()).update(op.name for op in graph.get_operations()[start:])


class _OpWithInputs:
    """An op as its gradient function sees it, with some inputs replaced (the recomputed values)."""

    def __init__(self, op: tf.Operation, inputs: Sequence[tf.Tensor]):
        self._op = op
        self.inputs = list(inputs)

    def __getattr__(self, item: str):
        return getattr(self._op, item)


def _recompute(scope_ops: List[tf.Operation], deps: Sequence[tf.Tensor]) -> Dict[tf.Tensor, tf.Tensor]:
    """:return: forward tensor -> its recomputed copy, for the stateless ops of ``scope_ops``"""
    graph = scope_ops[0].graph
    mapping: Dict[tf.Tensor, tf.Tensor] = {}
    with graph.as_default(), graph.name_scope(None), graph.control_dependencies(list(deps)):
        for op in scope_ops:
            if op._is_stateful and op.type not in _NOT_COPIED_STATEFUL:  # noqa: SLF001  (TF's op def flag)
                continue
            inputs = [mapping.get(x, x) for x in op.inputs]
            copy = graph.create_op(op.type, inputs, dtypes=[o.dtype for o in op.outputs], name=op.name,
                                   attrs=dict(op.node_def.attr))
            mapping.update(zip(op.outputs, copy.outputs))
    return mapping


def prepare_gradient_checkpointing() -> None:
    """Sets up the recomputation for all checkpoint scopes recorded so far in the default graph (see the module
    docstring). Call it after building the forward graph, before building the gradients; scopes are prepared once."""
    graph = tf.compat.v1.get_default_graph()
    for scope_ops in _scopes.pop(graph, []):
        if any(_in_control_flow(op) for op in scope_ops):
            continue  # ops of a tf.cond / while loop are not copied: kept as they are
        scope_names = {op.name for op in scope_ops}
        outputs = {x for op in scope_ops for x in op.outputs}
        consumers = {c for x in outputs for c in x.consumers() if c.name not in scope_names}
        for consumer in sorted(consumers, key=lambda op: op.name):
            if not _in_control_flow(consumer):
                _override_gradient(consumer, scope_ops, outputs)


def _in_control_flow(op: tf.Operation) -> bool:
    """:return: whether ``op`` is a control flow op or inside a (v1) tf.cond / while loop"""
    return op.type in _CONTROL_FLOW_TYPES or op._get_control_flow_context() is not None  # noqa: SLF001


def _override_gradient(consumer: tf.Operation, scope_ops: List[tf.Operation], outputs: Set[tf.Tensor]) -> None:
    try:
        orig_grad_fn = tf_ops.get_gradient_function(consumer)
    except LookupError:
        return  # no gradient anyway
    if orig_grad_fn is None:
        return
    grad_name = f"ReturnnGradientCheckpoint_{next(_counter)}"

    def grad_fn(op: tf.Operation, *grads: tf.Tensor):
        mapping = _recompute(scope_ops, [g for g in grads if g is not None])
        view = _OpWithInputs(op, [mapping.get(x, x) if x in outputs else x for x in op.inputs])
        return orig_grad_fn(view, *grads)

    tf.RegisterGradient(grad_name)(grad_fn)
    consumer._set_attr("_gradient_op_type", tf.compat.v1.AttrValue(s=grad_name.encode()))  # noqa: SLF001

"""Control-flow context helpers (legacy ``TFUtil`` functions) for TF's v1 while loops and conds (the backend's
control flow, see :mod:`returnn.tf`): ``has_control_flow_context``, ``has_current_control_flow_context``,
``default_control_flow_ctx``, ``same_control_flow_ctx``, ``get_root_graph``, ``cond``.

TF exposes an op's loop/cond context only through its private ``_control_flow_context`` and the graph's
``_get/_set_control_flow_context``; this module is the one place that reads them.
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable, Iterator, Optional, Union

import tensorflow as tf
from tensorflow.python.ops import control_flow_util

_v1 = tf.compat.v1


def _op_of(x: Union[tf.Tensor, tf.Operation, tf.Variable]) -> tf.Operation:
    if isinstance(x, tf.Operation):
        return x
    return x.op


def _op_ctx(op: tf.Operation) -> Any:
    """the context the op's outputs live in: a loop's ``Exit`` op is inside the loop, its output outside"""
    return control_flow_util.GetOutputContext(op)


def has_control_flow_context(x: Union[tf.Tensor, tf.Operation, tf.Variable, Any]) -> bool:
    """:param x: a graph tensor, operation or variable (anything else, e.g. a Python number: False)
    :return: whether it was created inside a v1 while loop or cond (a loop's result, from its ``Exit`` op, is
        outside)"""
    if not isinstance(x, (tf.Tensor, tf.Operation, tf.Variable)):
        return False
    return _op_ctx(_op_of(x)) is not None


def has_current_control_flow_context() -> bool:
    """:return: whether ops created now would be inside a v1 while loop or cond"""
    return _v1.get_default_graph()._get_control_flow_context() is not None  # noqa: SLF001


@contextlib.contextmanager
def _control_flow_ctx(ctx: Any) -> Iterator[None]:
    graph = _v1.get_default_graph()
    prev = graph._get_control_flow_context()  # noqa: SLF001
    graph._set_control_flow_context(ctx)  # noqa: SLF001
    try:
        yield
    finally:
        graph._set_control_flow_context(prev)  # noqa: SLF001


@contextlib.contextmanager
def default_control_flow_ctx() -> Iterator[None]:
    """Ops (and variables) created in this context are outside of any loop/cond and have no control dependencies,
    e.g. to create a variable from within a loop body."""
    with _control_flow_ctx(None), tf.control_dependencies(None):
        yield


@contextlib.contextmanager
def same_control_flow_ctx(x: Union[tf.Tensor, tf.Operation, tf.Variable, Any]) -> Iterator[None]:
    """Ops created in this context are in the same loop/cond context as ``x`` (outside of all if ``x`` was created
    outside), e.g. to compute something from an outer tensor once instead of in every loop iteration.

    :param x: graph tensor/operation/variable; anything else (a Python value): the current context is kept
    """
    if not isinstance(x, (tf.Tensor, tf.Operation, tf.Variable)):
        yield
        return
    ctx = _op_ctx(_op_of(x))
    graph = _v1.get_default_graph()
    if ctx is graph._get_control_flow_context():  # noqa: SLF001
        yield
        return
    # control_dependencies(None) also leaves the current loop/cond context: first, then enter ``x``'s
    with tf.control_dependencies(None), _control_flow_ctx(ctx):
        yield


def get_root_graph(graph: Optional[tf.Graph] = None) -> tf.Graph:
    """:param graph: a graph, or the default graph
    :return: the outermost graph: for a function graph (``tf.function`` / v2 control flow body) the graph it was
        defined in, recursively"""
    graph = graph or _v1.get_default_graph()
    while getattr(graph, "outer_graph", None) is not None:
        graph = graph.outer_graph
    return graph


def cond(pred: Any, true_fn: Callable[[], Any], false_fn: Callable[[], Any], name: Optional[str] = None) -> Any:
    """``tf.cond``, but a Python bool or a constant predicate picks the branch at graph construction.

    :param pred: bool, or a scalar bool tensor
    :param true_fn: returns the result if ``pred`` is true
    :param false_fn: returns the result otherwise
    :param name: name scope of the cond op
    :return: the branch's result (same structure from both branches)
    """
    if isinstance(pred, (bool, int)) and not isinstance(pred, tf.Tensor):
        return true_fn() if pred else false_fn()
    if isinstance(pred, tf.Tensor):
        static = tf.get_static_value(pred)
        if static is not None:
            return true_fn() if bool(static) else false_fn()
    return tf.cond(pred, true_fn, false_fn, name=name)

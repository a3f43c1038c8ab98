"""Ordering ops (legacy ``TFUtil`` functions): ``post_control_dependencies``, ``sequential_control_dependencies``,
``add_control_input``, ``copy_tensor``."""

from __future__ import annotations

import contextlib
from typing import Any, Callable, Iterator, Sequence

import tensorflow as tf


def post_control_dependencies(x: Any, updates: Sequence[Any]) -> Any:
    """:param x: a tensor or a (nested) structure of tensors
    :param updates: ops/tensors to run before ``x`` is returned
    :return: ``x`` (identities of its tensors) computed after ``updates``"""
    with tf.control_dependencies(list(updates)):
        return tf.nest.map_structure(tf.identity, x)


@contextlib.contextmanager
def sequential_control_dependencies(ls: Sequence[Callable[[], Any]]) -> Iterator[None]:
    """Creates the ops of each callable in ``ls`` with a control dependency on those of the previous one, and the
    ops in the ``with`` block after all of them.

    :param ls: callables returning an op or tensor (or a list of them)
    """
    deps: list = []
    for f in ls:
        with tf.control_dependencies(deps):
            res = f()
        deps = list(res) if isinstance(res, (list, tuple)) else [res]
    with tf.control_dependencies(deps):
        yield


def add_control_input(op: tf.Operation, control_input: tf.Operation) -> None:
    """Makes the existing ``op`` run after ``control_input``.

    :param op: an op already in the graph
    :param control_input: the op to run first
    """
    op._add_control_input(control_input)  # noqa: SLF001 (TF has no public way to change an existing op)


def copy_tensor(x: Any) -> tf.Tensor:
    """:return: a copy of ``x`` (a new tensor with its value, not an alias)"""
    from returnn.tf.util.variables import enforce_copy  # noqa: PLC0415 (one implementation)

    return enforce_copy(x)

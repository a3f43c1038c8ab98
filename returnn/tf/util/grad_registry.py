"""TensorFlow's gradient function registry (legacy ``TFUtil`` functions): ``lookup_grad_func_by_name``,
``opt_register_grad_func``."""

from __future__ import annotations

from typing import Any, Callable

import tensorflow as tf
from tensorflow.python.framework import ops as tf_ops


def lookup_grad_func_by_name(op_type: str) -> Callable[..., Any]:
    """:param op_type: op type name, e.g. ``"Identity"``, or a name given to ``tf.RegisterGradient``
    :return: the registered gradient function
    :raises LookupError: none registered under that name (as TensorFlow's registry)"""
    return tf_ops._gradient_registry.lookup(op_type)  # noqa: SLF001 (TF's registry has no public lookup)


def opt_register_grad_func(op_type: str, grad_func: Callable[..., Any], assert_is_same: bool = True) -> None:
    """Registers ``grad_func`` as gradient of ``op_type`` unless one is registered already.

    :param op_type: op type or gradient override name
    :param grad_func: ``grad_func(op, *grads) -> grads``
    :param assert_is_same: raise if a different function is registered under that name
    :raises AssertionError: another function registered (with ``assert_is_same``)
    """
    try:
        existing = lookup_grad_func_by_name(op_type)
    except LookupError:
        tf.RegisterGradient(op_type)(grad_func)
        return
    if assert_is_same and existing is not grad_func:
        raise AssertionError(f"opt_register_grad_func: {op_type!r} has another gradient function registered "
                             f"({existing!r}), not {grad_func!r}")

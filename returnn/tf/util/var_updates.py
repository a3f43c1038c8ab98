"""The ops an optimizer built to update a variable (legacy ``TFUtil`` functions): ``get_var_update_ops``,
``get_variable_value_copy_before_update_ops``, ``get_variable_grad_from_update_ops``."""

from __future__ import annotations

from typing import Any, List, Sequence, Union

import tensorflow as tf

from returnn.tf.util.errors import TFUtilArgError
from returnn.tf.util.graph_inspect import find_ops_with_tensor_input, get_op_inputs_by_name
from returnn.tf.util.variables import enforce_copy

_UPDATE_PREFIXES = ("Apply", "ResourceApply", "SparseApply", "ResourceSparseApply")
_ASSIGN_TYPES = ("Assign", "AssignAdd", "AssignSub", "AssignVariableOp", "AssignAddVariableOp",
                 "AssignSubVariableOp", "ScatterAdd", "ScatterSub", "ScatterUpdate", "ResourceScatterAdd",
                 "ResourceScatterSub", "ResourceScatterUpdate")


def _is_update_op(op: tf.Operation) -> bool:
    return op.type.startswith(_UPDATE_PREFIXES) or op.type in _ASSIGN_TYPES


def get_var_update_ops(var: tf.Variable, fetches: Any = None) -> List[tf.Operation]:
    """:param var: a trainable variable
    :param fetches: e.g. the optimizer's ``minimize`` op; only update ops it depends on (None: all, including
        the variable's initializer)
    :return: the ops that write ``var`` (``ApplyAdam``/``ResourceApplyAdam``, ``Assign*``, ``*Scatter*``, ...),
        ``var`` being their first input"""
    res = []
    for op in find_ops_with_tensor_input(var, fetches=fetches):
        if not _is_update_op(op):
            continue
        if fetches is not None and op is var.initializer:
            continue
        res.append(op)
    return res


def get_variable_value_copy_before_update_ops(var: tf.Variable, update_ops: Sequence[tf.Operation]) -> tf.Tensor:
    """:param var: the variable
    :param update_ops: its update ops (:func:`get_var_update_ops`)
    :return: a copy of the variable's value taken before ``update_ops`` run (they get a control dependency on it)
    """
    with tf.control_dependencies(None), tf.name_scope("var_value_before_update"):
        value = enforce_copy(var.read_value() if hasattr(var, "read_value") else var)
    for op in update_ops:
        op._add_control_input(value.op)  # noqa: SLF001 (TF has no public way to order an existing op after another)
    return value


def get_variable_grad_from_update_ops(var: tf.Variable, update_ops: Sequence[tf.Operation]
                                      ) -> Union[tf.Tensor, tf.IndexedSlices]:
    """:param var: the variable
    :param update_ops: its one optimizer update op (:func:`get_var_update_ops`), of the ``(Resource)Apply*`` or
        ``(Resource)SparseApply*`` kinds (their ``grad``/``delta`` input)
    :return: the gradient the optimizer applies: a tensor of the variable's shape, or ``tf.IndexedSlices`` for a
        sparse update
    :raises TFUtilArgError: not exactly one update op, or one without a gradient input"""
    if len(update_ops) != 1:
        raise TFUtilArgError("get_variable_grad_from_update_ops", f"expected one update op of {var.name}, "
                                                                  f"got {list(update_ops)!r}")
    op = update_ops[0]
    inputs = get_op_inputs_by_name(op)
    grad = inputs.get("grad", inputs.get("delta"))
    if grad is None:
        raise TFUtilArgError("get_variable_grad_from_update_ops",
                             f"update op {op.name!r} of type {op.type} has no 'grad'/'delta' input")
    if "indices" in inputs:
        return tf.IndexedSlices(values=grad, indices=inputs["indices"], dense_shape=tf.shape(var))
    return grad

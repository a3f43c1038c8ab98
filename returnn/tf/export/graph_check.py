"""Checks that the part of a graph a signature computes runs in a TensorFlow without this package: only ops of
TensorFlow itself (those in ``tf.raw_ops``), none that calls back into Python (``tf.py_func``,
``tf.numpy_function``, ``tf.py_function``), which a SavedModel cannot hold."""

from __future__ import annotations

from typing import Any, Iterable

import tensorflow as tf

from returnn.tf.export.errors import NotExportableError
from returnn.tf.export.graph_walk import layer_names, needed_ops, owner_layer

#: op types that run Python code of the process that built the graph
PYTHON_OP_TYPES = frozenset({"PyFunc", "PyFuncStateless", "EagerPyFunc"})


def core_op_types() -> frozenset:
    """:return: the op types of TensorFlow itself (the names in ``tf.raw_ops``)"""
    return frozenset(name for name in dir(tf.raw_ops) if not name.startswith("_"))


def check_exportable(network: Any, fetches: Iterable[tf.Tensor]) -> None:
    """:param network: the ``TFNetwork`` the fetches are computed from (to name the layer of a bad op)
    :param fetches: the signature's outputs
    :raises NotExportableError: an op that calls Python, or one that TensorFlow does not have (a custom op loaded
        from a library), naming the layer it belongs to
    """
    core = core_op_types()
    names = None
    for op in sorted(needed_ops(fetches), key=lambda o: o.name):
        if op.type in PYTHON_OP_TYPES:
            problem = "op type %r calls a Python function (tf.py_func / tf.numpy_function / tf.py_function)" % op.type
            hint = "a SavedModel holds no Python code: replace it by TensorFlow ops, or export a layer before it"
        elif op.type not in core:
            problem = "op type %r is no TensorFlow op (a custom op loaded from a library)" % op.type
            hint = "a process without this package cannot run it: use a layer (or unit) built from TensorFlow ops"
        else:
            continue
        if names is None:
            names = layer_names(network)
        raise NotExportableError(problem, layer=owner_layer(op.name, names), op_name=op.name, hint=hint)

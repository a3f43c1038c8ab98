"""Checks that the part of a graph a signature computes runs in a TensorFlow without this package: only ops of
TensorFlow itself (those in ``tf.raw_ops``), none that calls back into Python (``tf.py_func``,
``tf.numpy_function``, ``tf.py_function``), which a SavedModel cannot hold. Ops inside the graph's functions (a
``tf.function`` called from the graph, the branches of a v2 ``cond``/``while``) are checked too."""

from __future__ import annotations

from typing import Any, Dict, Iterable, Iterator, Optional, Tuple

import tensorflow as tf

from returnn.tf.export.errors import NotExportableError
from returnn.tf.export.graph_walk import layer_names, needed_ops, owner_layer

#: op types that run Python code of the process that built the graph
PYTHON_OP_TYPES = frozenset({"PyFunc", "PyFuncStateless", "EagerPyFunc"})


def core_op_types() -> frozenset:
    """:return: the op types of TensorFlow itself (the names in ``tf.raw_ops``)"""
    return frozenset(name for name in dir(tf.raw_ops) if not name.startswith("_"))


def _called_functions(attrs) -> Iterator[str]:
    """:return: the names of the functions an op's attrs (``AttrValue`` map) refer to"""
    for value in attrs.values():
        if value.HasField("func"):
            yield value.func.name
        elif value.HasField("list"):
            for func in value.list.func:
                yield func.name


def _function_op_types(functions: Dict[str, Any], name: str, seen: set) -> Iterator[Tuple[str, str]]:
    """:return: (op type, function name) of every node in function ``name`` and the functions it calls"""
    if name in seen or name not in functions:
        return
    seen.add(name)
    for node in functions[name].node_def:
        yield node.op, name
        for inner in _called_functions(node.attr):
            yield from _function_op_types(functions, inner, seen)


def _problem(op_type: str, core: frozenset) -> Optional[Tuple[str, str]]:
    """:return: (problem, hint) for an op type that cannot be exported, else None"""
    if op_type in PYTHON_OP_TYPES:
        return ("op type %r calls a Python function (tf.py_func / tf.numpy_function / tf.py_function)" % op_type,
                "a SavedModel holds no Python code: replace it by TensorFlow ops, or export a layer before it")
    if op_type not in core:
        return ("op type %r is no TensorFlow op (a custom op loaded from a library)" % op_type,
                "a process without this package cannot run it: use a layer (or unit) built from TensorFlow ops")
    return None


def check_exportable(network: Any, fetches: Iterable[tf.Tensor]) -> None:
    """:param network: the ``TFNetwork`` the fetches are computed from (to name the layer of a bad op)
    :param fetches: the signature's outputs
    :raises NotExportableError: an op that calls Python, or one that TensorFlow does not have (a custom op loaded
        from a library), directly or inside a function the graph calls; names the layer it belongs to
    """
    core = core_op_types()
    functions = None
    for op in sorted(needed_ops(fetches), key=lambda o: o.name):
        found = _problem(op.type, core)
        if found is None:
            called = list(_called_functions(op.node_def.attr))
            if not called:
                continue
            if functions is None:
                functions = {f.signature.name: f for f in op.graph.as_graph_def().library.function}
            seen: set = set()
            for name in called:
                for op_type, func in _function_op_types(functions, name, seen):
                    found = _problem(op_type, core)
                    if found is not None:
                        found = (found[0] + ", inside the function %r" % func, found[1])
                        break
                if found is not None:
                    break
            if found is None:
                continue
        raise NotExportableError(found[0], layer=owner_layer(op.name, layer_names(network)), op_name=op.name,
                                 hint=found[1])

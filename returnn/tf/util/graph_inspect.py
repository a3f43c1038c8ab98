"""Inspecting a TF graph (legacy ``TFUtil`` functions): ``get_op_input_names``, ``get_op_inputs_by_name``,
``get_op_attrib_keys``, ``format_graph_output``, ``print_graph_output``, ``find_ops_with_tensor_input``,
``find_ops_path_output_to_input``, ``supported_devices_for_op``, ``kernels_registered_for_op``."""

from __future__ import annotations

import sys
from typing import Any, Dict, List, Optional, Sequence, Set, TextIO, Union

import tensorflow as tf
from tensorflow.core.framework import types_pb2
from tensorflow.python.framework import kernels, op_def_registry

from returnn.tf.util.errors import TFUtilValueError

TensorOrOp = Union[tf.Tensor, tf.Operation]

# ops that read or test a resource variable's handle without using its value as such
_VAR_READ_OPS = ("ReadVariableOp",)
_VAR_CHECK_OPS = ("VarIsInitializedOp", "IsVariableInitialized")


def _op(x: Any) -> tf.Operation:
    if isinstance(x, tf.Operation):
        return x
    return x.op


def get_op_input_names(op: tf.Operation) -> List[str]:
    """:param op: graph operation
    :return: per input of ``op`` (in order) the name of its argument in the op definition, e.g. ``["x", "y"]``
        for ``MatMul``; an argument taking a list of tensors gives its name once per tensor"""
    names = []
    for arg in op.op_def.input_arg:
        if arg.number_attr:
            names += [arg.name] * op.get_attr(arg.number_attr)
        elif arg.type_list_attr:
            names += [arg.name] * len(op.get_attr(arg.type_list_attr))
        else:
            names.append(arg.name)
    return names


def get_op_inputs_by_name(op: tf.Operation) -> Dict[str, Union[tf.Tensor, List[tf.Tensor]]]:
    """:param op: graph operation
    :return: argument name -> input tensor (a list for arguments taking a list of tensors)"""
    res: Dict[str, Any] = {}
    inputs = list(op.inputs)
    pos = 0
    for arg in op.op_def.input_arg:
        if arg.number_attr or arg.type_list_attr:
            n = op.get_attr(arg.number_attr) if arg.number_attr else len(op.get_attr(arg.type_list_attr))
            res[arg.name] = inputs[pos:pos + n]
            pos += n
        else:
            res[arg.name] = inputs[pos]
            pos += 1
    return res


def get_op_attrib_keys(op: TensorOrOp) -> List[str]:
    """:param op: graph operation (or one of its output tensors)
    :return: the names of the attributes set on the op's node, e.g. ``["T"]``"""
    return list(_op(op).node_def.attr.keys())


def _shape_str(x: tf.Tensor) -> str:
    if x.shape.rank is None:
        return "<unknown>"
    return str(x.shape.as_list())


def format_graph_output(fetches: Any, max_depth: Optional[int] = None) -> str:
    """:param fetches: a tensor or operation, or a (nested) list/tuple/dict of them
    :param max_depth: inputs are shown down to depth ``max_depth + 1`` (None: all)
    :return: an indented tree: each fetch (``fetch: <op> [output index], shape [...]``) and, below it, recursively
        its inputs (``inputs[i] 'arg name': ...``); an op already shown further up in the same fetch's tree is
        marked ``(see above)``"""
    lines: List[str] = []
    shown: Set[str] = set()

    def visit(prefix: str, x: TensorOrOp, depth: int) -> None:
        op = _op(x)
        text = "  " * depth + prefix + repr(op)
        if isinstance(x, tf.Tensor):
            text += f" [{x.value_index}], shape {_shape_str(x)}"
        if op.name in shown and op.inputs:
            lines.append(text + " (see above)")
            return
        lines.append(text)
        shown.add(op.name)
        if max_depth is not None and depth > max_depth:
            return
        names = get_op_input_names(op)
        for i, inp in enumerate(op.inputs):
            name = names[i] if i < len(names) else "?"
            visit(f"inputs[{i}] {name!r}: ", inp, depth + 1)

    for fetch in tf.nest.flatten(fetches, expand_composites=True):
        if isinstance(fetch, tf.Variable):
            fetch = fetch.op
        shown.clear()
        visit("fetch: ", fetch, 0)
    return "\n".join(lines)


def print_graph_output(fetches: Any, file: Optional[TextIO] = None, max_depth: Optional[int] = None) -> None:
    """Prints :func:`format_graph_output` (to ``file``, default stdout).

    :param fetches: a tensor or operation, or a (nested) list/tuple/dict of them
    :param file: stream
    :param max_depth: see :func:`format_graph_output`
    """
    print(format_graph_output(fetches, max_depth=max_depth), file=file or sys.stdout)


def backward_walk_ops(fetches: Any) -> Set[tf.Operation]:
    """:param fetches: tensors/ops/variables (nested)
    :return: all ops they depend on (through inputs and control inputs), themselves included"""
    ops: Set[tf.Operation] = set()
    stack = [_op(x) for x in tf.nest.flatten(fetches)]
    while stack:
        op = stack.pop()
        if op in ops:
            continue
        ops.add(op)
        stack.extend(t.op for t in op.inputs)
        stack.extend(op.control_inputs)
    return ops


def _source_tensors(x: Any) -> List[tf.Tensor]:
    if isinstance(x, tf.Variable):
        handle = getattr(x, "handle", None)
        return [handle] if handle is not None else [x.value()]
    return [x]


def find_ops_with_tensor_input(tensors: Any, fetches: Any = None, graph: Optional[tf.Graph] = None
                               ) -> List[tf.Operation]:
    """:param tensors: a tensor or variable, or a list of them. For a resource variable, the ops that use its
        value (through a ``ReadVariableOp``) or its handle count, except the variable's own initialized check
    :param fetches: only ops these depend on (None: all ops)
    :param graph: accepted for compatibility (the tensors' graph is used)
    :return: the ops that take one of ``tensors`` as input, in the order they were created, each once"""
    del graph
    if not isinstance(tensors, (list, tuple)):
        tensors = [tensors]
    allowed = backward_walk_ops(fetches) if fetches is not None else None
    found: List[tf.Operation] = []
    seen: Set[tf.Operation] = set()
    pending = [t for x in tensors for t in _source_tensors(x)]
    consumers: List[tf.Operation] = []
    while pending:
        t = pending.pop(0)
        for op in t.consumers():
            if op.type in _VAR_READ_OPS and t.dtype == tf.resource:
                pending.extend(op.outputs)
            elif op.type not in _VAR_CHECK_OPS:
                consumers.append(op)
    order = {op: i for i, op in enumerate(consumers[0].graph.get_operations())} if consumers else {}
    for op in sorted(consumers, key=lambda o: order[o]):
        if op in seen or (allowed is not None and op not in allowed):
            continue
        seen.add(op)
        found.append(op)
    return found


def find_ops_path_output_to_input(tensors: Any, fetches: Any) -> Optional[List[tf.Operation]]:
    """:param tensors: tensor(s) to reach
    :param fetches: tensor(s)/op(s) to start from
    :return: the ops on one path from a fetch back to an op that takes one of ``tensors`` as input (fetch first),
        or None if ``fetches`` do not depend on ``tensors``"""
    if not isinstance(tensors, (list, tuple)):
        tensors = [tensors]
    targets = set(find_ops_with_tensor_input(tensors))
    start = [_op(x) for x in tf.nest.flatten(fetches)]
    parents: Dict[tf.Operation, Optional[tf.Operation]] = {op: None for op in start}
    queue = list(start)
    while queue:
        op = queue.pop(0)
        if op in targets:
            path = [op]
            while parents[path[-1]] is not None:
                path.append(parents[path[-1]])
            return list(reversed(path))
        for dep in [t.op for t in op.inputs] + list(op.control_inputs):
            if dep not in parents:
                parents[dep] = op
                queue.append(dep)
    return None


def _check_known_op(func: str, op_name: str) -> None:
    if op_def_registry.get(op_name) is None:
        raise TFUtilValueError(func, "op_name", expected="the type name of a registered TF op, e.g. 'MatMul'",
                               got=op_name)


def kernels_registered_for_op(op_name: str) -> List[str]:
    """:param op_name: TF op type, e.g. ``"MatMul"``
    :return: one line per registered kernel, e.g. ``"device='CPU'; T in [DT_FLOAT]"``
    :raises TFUtilValueError: unknown op"""
    _check_known_op("kernels_registered_for_op", op_name)
    res = []
    for kernel in kernels.get_registered_kernels_for_op(op_name).kernel:
        parts = [f"device='{kernel.device_type}'"]
        for c in kernel.constraint:
            types = ", ".join(types_pb2.DataType.Name(t) for t in c.allowed_values.list.type)
            parts.append(f"{c.name} in [{types}]")
        res.append("; ".join(parts))
    return res


def supported_devices_for_op(op_name: str) -> List[str]:
    """:param op_name: TF op type, e.g. ``"MatMul"``
    :return: the device types with a kernel for it in this TF build, sorted, e.g. ``["CPU", "GPU"]``
    :raises TFUtilValueError: unknown op"""
    _check_known_op("supported_devices_for_op", op_name)
    return sorted({k.device_type for k in kernels.get_registered_kernels_for_op(op_name).kernel})


def find_unsupported_devices_in_graph(graph: tf.Graph, dev_name: str, ignore: Sequence[str] = ()
                                      ) -> List[tf.Operation]:
    """:param graph: the graph
    :param dev_name: device type, e.g. ``"GPU"``
    :param ignore: op types to skip
    :return: the ops of ``graph`` whose type has no kernel for ``dev_name``"""
    res = []
    cache: Dict[str, bool] = {}
    for op in graph.get_operations():
        if op.type in ignore:
            continue
        if op.type not in cache:
            try:
                cache[op.type] = dev_name in supported_devices_for_op(op.type)
            except TFUtilValueError:
                cache[op.type] = True  # function-library ops: not in the global registry
        if not cache[op.type]:
            res.append(op)
    return res

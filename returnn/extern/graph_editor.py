"""``returnn.extern.graph_editor``: walking and rewriting TF v1 graphs, the parts of TensorFlow's former
``tf.contrib.graph_editor`` that user scripts and the ``FetchHelper`` use (our own implementation):

- :func:`get_backward_walk_ops` / :func:`get_forward_walk_ops`: the ops a tensor depends on / that depend on it
- :func:`graph_replace`: copies of the ops between some tensors and the targets, with those tensors replaced
- :func:`copy`: copies of a set of ops (inputs outside the set stay connected to the originals), with a
  :class:`TransformerInfo` mapping originals to copies

Copies are made in the same graph, in the original op's name scope (made unique). Copies of ops inside TF v1
while loops or conds keep the original's control-flow context (so new ops can be put next to them with
``returnn.tf.util.basic.same_control_flow_ctx``); a copied loop runs as its own loop when all its ops (``Enter`` to
``Exit``, with the ``NextIteration`` back edges) are copied together.
"""

from __future__ import annotations

from typing import Any, Dict, Iterable, List, Optional, Sequence, Set, Tuple, Union

import tensorflow as tf

from returnn.errors import ReturnnError

TensorOrOp = Union[tf.Tensor, tf.Operation]


class GraphEditError(ReturnnError, ValueError):
    """A graph edit that cannot be done (e.g. copying ops inside a while loop)."""


def _as_op(x: Any) -> tf.Operation:
    if isinstance(x, tf.Operation):
        return x
    if isinstance(x, tf.Variable):
        return x.op
    return x.op


def _flatten(xs: Any) -> List[Any]:
    if isinstance(xs, (tf.Tensor, tf.Operation, tf.Variable)):
        return [xs]
    return list(tf.nest.flatten(xs))


def get_backward_walk_ops(seed_ops: Any, inclusive: bool = True, stop_at_ts: Iterable[tf.Tensor] = (),
                          control_inputs: bool = False) -> List[tf.Operation]:
    """:param seed_ops: tensors or ops (nested lists allowed)
    :param inclusive: include the seed ops themselves
    :param stop_at_ts: tensors not to walk through (their ops are not added via them)
    :param control_inputs: also follow control inputs
    :return: the ops the seeds depend on, in graph creation order"""
    stop = {t.ref() for t in stop_at_ts}
    seeds = [_as_op(x) for x in _flatten(seed_ops)]
    seen: Set[tf.Operation] = set()
    stack = list(seeds)
    while stack:
        op = stack.pop()
        if op in seen:
            continue
        seen.add(op)
        stack.extend(t.op for t in op.inputs if t.ref() not in stop)
        if control_inputs:
            stack.extend(op.control_inputs)
    if not inclusive:
        seen -= set(seeds)
    return _in_graph_order(seen, seeds)


def get_forward_walk_ops(seed_ops: Any, inclusive: bool = True, stop_at_ts: Iterable[tf.Tensor] = (),
                         control_outputs: bool = False) -> List[tf.Operation]:
    """:param seed_ops: tensors or ops (nested lists allowed); for a tensor, its consumers are the start
    :param inclusive: include the seed ops themselves
    :param stop_at_ts: tensors not to walk through
    :param control_outputs: also follow ops that have a seen op as control input
    :return: the ops that depend on the seeds, in graph creation order"""
    stop = {t.ref() for t in stop_at_ts}
    items = _flatten(seed_ops)
    seeds = [_as_op(x) for x in items]
    seen: Set[tf.Operation] = set()
    stack: List[tf.Operation] = []
    for x in items:
        if isinstance(x, tf.Tensor):
            stack.extend(x.consumers())
            if inclusive:
                stack.append(x.op)
        else:
            stack.append(_as_op(x))
    graph = seeds[0].graph if seeds else None
    while stack:
        op = stack.pop()
        if op in seen:
            continue
        seen.add(op)
        for t in op.outputs:
            if t.ref() not in stop:
                stack.extend(t.consumers())
        if control_outputs and graph is not None:
            stack.extend(o for o in graph.get_operations() if op in o.control_inputs)
    if not inclusive:
        seen -= set(seeds)
    return _in_graph_order(seen, seeds)


def _in_graph_order(ops: Set[tf.Operation], seeds: List[tf.Operation]) -> List[tf.Operation]:
    if not ops:
        return []
    graph = next(iter(ops)).graph
    return [op for op in graph.get_operations() if op in ops]


class TransformerInfo:
    """Original → copy mapping of :func:`copy` / :func:`graph_replace`."""

    def __init__(self):
        self._ops: Dict[tf.Operation, tf.Operation] = {}

    def add(self, original: tf.Operation, copied: tf.Operation) -> None:
        """Records that ``copied`` is the copy of ``original``."""
        self._ops[original] = copied

    def transformed(self, original: Any) -> Any:
        """:param original: an op or tensor (or a nested list of them) of the source
        :return: its copy (the same structure); an op/tensor that was not copied gives None"""
        if isinstance(original, (list, tuple)):
            return type(original)(self.transformed(x) for x in original)
        if isinstance(original, tf.Operation):
            return self._ops.get(original)
        op = self._ops.get(original.op)
        return op.outputs[original.value_index] if op is not None else None

    def _get_transformed_map(self, top: Any) -> Dict[tf.Operation, tf.Operation]:
        """:param top: an op or tensor (accepted for compatibility)
        :return: the original → copy op mapping"""
        del top
        return dict(self._ops)

    def original(self, copied: Any) -> Any:
        """:param copied: a copied op or tensor
        :return: the op/tensor it is the copy of, or None"""
        reverse = {v: k for k, v in self._ops.items()}
        if isinstance(copied, tf.Operation):
            return reverse.get(copied)
        op = reverse.get(copied.op)
        return op.outputs[copied.value_index] if op is not None else None


def _in_control_flow(t: tf.Tensor) -> bool:
    return t.op._get_control_flow_context() is not None  # noqa: SLF001 (v1 control flow keeps it only here)


def _stand_in(graph: tf.Graph, dtype: tf.DType) -> tf.Tensor:
    """a placeholder outside of any loop, to create an op whose real inputs are inside one (TF checks the inputs'
    loop context on creation against the current one); the real input replaces it right after"""
    with graph.name_scope("graph_editor_stand_in/"), graph.control_dependencies(None):
        return tf.compat.v1.placeholder(dtype, name=dtype.name)


def _copy_op(op: tf.Operation, inputs: List[tf.Tensor], control_inputs: List[tf.Operation],
             op_type: Optional[str] = None, name: Optional[str] = None) -> tf.Operation:
    graph = op.graph
    scope, _, base = op.name.rpartition("/")
    base = name or base
    op_def = op.op_def
    if op_type is not None and op_type != op.type:
        from tensorflow.python.framework import op_def_registry  # noqa: PLC0415

        op_def = op_def_registry.get(op_type)
        if op_def is None:
            raise GraphEditError(f"graph_editor.copy_op: unknown op type {op_type!r}")
    create_inputs = [_stand_in(graph, t.dtype) if _in_control_flow(t) and not t.dtype._is_ref_dtype else t
                     for t in inputs]
    with graph.name_scope(scope + "/" if scope else ""), graph.control_dependencies(None):
        with tf.control_dependencies([c for c in control_inputs if not _in_control_flow(c.outputs[0])]
                                     if all(c.outputs for c in control_inputs) else []):
            new_op = graph.create_op(op_type or op.type, create_inputs, [t.dtype for t in op.outputs], name=base,
                                     attrs={k: op.node_def.attr[k] for k in op.node_def.attr}, op_def=op_def)
    for i, (real, used) in enumerate(zip(inputs, create_inputs)):
        if real is not used:
            new_op._update_input(i, real)  # noqa: SLF001 (connects the real input, see _stand_in)
    for c in control_inputs:
        if c not in new_op.control_inputs:
            new_op._add_control_input(c)  # noqa: SLF001
    new_op._set_device(op.device)  # noqa: SLF001 (TF's way to place a copied op as the original)
    ctx = op._get_control_flow_context()  # noqa: SLF001 (v1 control flow keeps the context only here)
    if ctx is not None:
        new_op._set_control_flow_context(ctx)  # noqa: SLF001
    for old_t, new_t in zip(op.outputs, new_op.outputs):
        new_t.set_shape(old_t.shape)
    return new_op


def copy_op(op: tf.Operation, *, graph: Optional[tf.Graph] = None, op_type: Optional[str] = None,
            inputs: Optional[Sequence[tf.Tensor]] = None, name: Optional[str] = None) -> tf.Operation:
    """:param op: the op to copy
    :param graph: must be the op's graph (None: the same)
    :param op_type: another op type with the same inputs/outputs/attrs (e.g. ``"LogSoftmax"`` for ``"Softmax"``)
    :param inputs: other inputs (default: the op's)
    :param name: name of the copy (default: the op's, made unique), in the op's name scope
    :return: the new op (same attrs, device, control inputs and loop context)
    :raises GraphEditError: another graph"""
    if graph is not None and graph is not op.graph:
        raise GraphEditError("graph_editor.copy_op: only copies within the same graph are supported")
    return _copy_op(op, list(op.inputs) if inputs is None else list(inputs), list(op.control_inputs),
                    op_type=op_type, name=name)


class _null:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *args: Any) -> None:
        return None


def _copy_ops(ops: List[tf.Operation], replacement: Dict[Any, tf.Tensor], info: TransformerInfo) -> None:
    """copies ``ops`` (in graph order) with inputs replaced/remapped; an input from an op of ``ops`` created later
    (a loop's ``NextIteration`` into its ``Merge``) is connected once that op is copied"""
    op_set = set(ops)
    pending: List[Tuple[tf.Operation, int, tf.Tensor]] = []
    for op in ops:
        inputs = []
        for i, t in enumerate(op.inputs):
            if t.ref() in replacement:
                inputs.append(replacement[t.ref()])
            elif t.op in op_set and info.transformed(t.op) is not None:
                inputs.append(info.transformed(t))
            else:
                if t.op in op_set:
                    pending.append((op, i, t))
                inputs.append(t)
        control = [info.transformed(c) if c in op_set and info.transformed(c) is not None else c
                   for c in op.control_inputs]
        info.add(op, _copy_op(op, inputs, control))
    for op, i, t in pending:
        info.transformed(op)._update_input(i, info.transformed(t))  # noqa: SLF001 (the back edge of a copied loop)


def copy(sgv: Any, dst_graph: Optional[tf.Graph] = None, dst_scope: str = "", src_scope: str = "",
         reuse_dst_scope: bool = False) -> Tuple[List[tf.Operation], TransformerInfo]:
    """:param sgv: the ops (or tensors: their ops) to copy
    :param dst_graph: must be the ops' graph (None: the same)
    :param dst_scope: accepted for compatibility (copies are in the originals' scopes)
    :param src_scope: accepted for compatibility
    :param reuse_dst_scope: accepted for compatibility
    :return: (the copied ops, their :class:`TransformerInfo`)
    :raises GraphEditError: another graph"""
    del dst_scope, src_scope, reuse_dst_scope
    ops = [_as_op(x) for x in _flatten(sgv)]
    if not ops:
        return [], TransformerInfo()
    if dst_graph is not None and dst_graph is not ops[0].graph:
        raise GraphEditError("graph_editor.copy: only copies within the same graph are supported")
    info = TransformerInfo()
    _copy_ops(_in_graph_order(set(ops), ops), {}, info)
    return [info.transformed(op) for op in ops], info


def graph_replace(target_ts: Any, replacement_ts: Dict[tf.Tensor, tf.Tensor], dst_scope: str = "",
                  src_scope: str = "", reuse_dst_scope: bool = False) -> Any:
    """:param target_ts: a tensor or a (nested) list of tensors
    :param replacement_ts: original tensor → tensor to use instead
    :param dst_scope: accepted for compatibility
    :param src_scope: accepted for compatibility
    :param reuse_dst_scope: accepted for compatibility
    :return: ``target_ts`` computed from the replacements: the ops between the replaced tensors and the targets
        are copied (the originals stay); a target that does not depend on any replaced tensor is returned as is"""
    del dst_scope, src_scope, reuse_dst_scope
    replacement = {k.ref(): v for k, v in replacement_ts.items()}
    targets = _flatten(target_ts)
    backward = set(get_backward_walk_ops(targets, inclusive=True))
    forward = set(get_forward_walk_ops(list(replacement_ts.keys()), inclusive=False))
    to_copy = _in_graph_order(backward & forward, [])
    info = TransformerInfo()
    _copy_ops(to_copy, replacement, info)

    def mapped(t: Any) -> Any:
        if isinstance(t, tf.Tensor) and t.ref() in replacement:
            return replacement[t.ref()]
        new = info.transformed(t)
        return t if new is None else new

    return tf.nest.map_structure(mapped, target_ts)

"""What part of a TF graph a set of fetched tensors needs, and which layer of a network an op belongs to."""

from __future__ import annotations

from typing import Any, Iterable, List, Optional, Sequence

import tensorflow as tf


def needed_ops(fetches: Iterable[tf.Tensor]) -> List[tf.Operation]:
    """:return: every op that computing ``fetches`` runs (data and control inputs, transitively; the loop ops of a
        ``tf.while_loop`` included), in no particular order"""
    seen = {}
    stack = [t.op for t in fetches]
    while stack:
        op = stack.pop()
        if op.name in seen:
            continue
        seen[op.name] = op
        stack.extend(t.op for t in op.inputs)
        stack.extend(op.control_inputs)
    return list(seen.values())


def owner_layer(op_name: str, layer_names: Sequence[str]) -> Optional[str]:
    """:return: the layer (of ``layer_names``) whose name scope ``op_name`` lies in: the longest name ``n`` with
        ``op_name == n`` or ``op_name`` starting with ``n + "/"``; None when no layer owns it"""
    best = None
    for name in layer_names:
        if (op_name == name or op_name.startswith(name + "/")) and (best is None or len(name) > len(best)):
            best = name
    return best


def layer_names(network: Any) -> List[str]:
    """:return: the names of the layers of ``network`` (a ``TFNetwork``), including those of its sub-networks as
        ``"outer/inner"`` (the name scopes their ops are created in)"""
    names = []
    for name, layer in network.layers.items():
        names.append(name)
        sub = getattr(layer, "subnetwork", None)
        if sub is not None and getattr(sub, "layers", None) is not None and sub is not network:
            names += ["%s/%s" % (name, inner) for inner in layer_names(sub)]
    return names

"""The order in which a network builds its layers, and what a layer dict's ``from`` names: helpers of
:class:`returnn.tf.network.tfnetwork.TFNetwork`'s construction."""

from __future__ import annotations

from typing import Any, Dict, List

from returnn.tf.layers.core.layer_base import LayerBase

# as the reference: a deprecation warning (once per text) below behavior_version 1, an error from 1 on
MISSING_FROM = 'Missing "from" in layer definition: {name}'


def input_dims(opts: Dict[str, Any]) -> List[Any]:
    """:return: the dims of all layers among the (transformed) layer options ``opts`` (sources, base, weights...)"""
    dims: List[Any] = []
    todo = list(opts.values())
    while todo:
        v = todo.pop()
        if isinstance(v, LayerBase):
            dims.extend(v.output.dims)
        elif isinstance(v, (list, tuple)):
            todo.extend(v)
        elif isinstance(v, dict):
            todo.extend(v.values())
    return dims


def from_names(layer_desc: Any) -> List[str]:
    """:return: the layer names in the ``"from"`` of a layer dict (strings, or the first item of a tuple such as
    ``("x", time_dim)``)"""
    value = layer_desc.get("from") if isinstance(layer_desc, dict) else None
    items = [value] if isinstance(value, str) else list(value) if isinstance(value, (list, tuple)) else []
    names = []
    for item in items:
        if isinstance(item, (list, tuple)) and item and isinstance(item[0], str):
            item = item[0]
        if isinstance(item, str):
            names.append(item)
    return names


def dependencies_first(net_dict: Dict[str, Any], name: str, built: Dict[str, Any]) -> List[str]:
    """:return: the layers of ``net_dict`` that ``name`` needs through ``"from"`` (transitively) and that are not in
    ``built``, each after the layers it needs (depth first, in ``"from"`` order, as the recursive construction
    visits them); found with an explicit stack, so a chain of any length needs no deep recursion. A cycle is left
    to the construction to report."""
    order: List[str] = []
    seen = {name}
    stack = [(name, iter(from_names(net_dict[name])))]
    while stack:
        current, deps = stack[-1]
        for dep in deps:
            if dep not in seen and dep not in built and dep in net_dict and not dep.startswith("#"):
                seen.add(dep)
                stack.append((dep, iter(from_names(net_dict[dep]))))
                break
        else:
            stack.pop()
            if current != name:
                order.append(current)
    return order


# layer classes that need no "from" (the reference's, observed with the latest behavior_version: its other
# layers raise _MISSING_FROM, "length" included). Besides layers without any input, those that name their inputs
# in other options (edit_distance's a/b, a loss layer's logits/targets, switch's condition/true_from/false_from,
# ...) are exempt; the check does not depend on whether the layer dict is nested in another layer's option.
NO_FROM_NEEDED = {"source", "constant", "variable", "subnetwork", "range", "train_flag",
                   "global_train_step", "switch", "rand_int", "random", "random_state_init",
                   "edit_distance", "sparse_softmax_cross_entropy_with_logits", "ctc_loss", "search_sorted",
                   "variable_read", "variable_assign", "gradient", "generic_attention", "rec_last_output",
                   "masked_computation"}

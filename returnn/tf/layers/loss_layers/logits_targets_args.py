"""The ``logits`` and ``targets`` arguments of the loss-as-a-layer classes (``sparse_softmax_cross_entropy_with_logits``,
``ctc_loss``): each a layer name in the config, resolved to its layer before construction."""

from __future__ import annotations

from typing import Any, Callable, Dict

from returnn.errors import LayerArgError


def resolve_logits_and_targets(d: Dict[str, Any], get_layer: Callable[[str], Any], layer_class: str) -> None:
    """Replaces ``d["logits"]`` and ``d["targets"]`` (layer names) by their layers, in place.

    :raises LayerArgError: one of them missing or not a string, naming the layer and the argument
    """
    for key in ("logits", "targets"):
        if not isinstance(d.get(key), str):
            raise LayerArgError(layer=d["name"], layer_class=layer_class, arg=key,
                                problem="missing or invalid", got=d.get(key), expected="a layer name")
        d[key] = get_layer(d[key])

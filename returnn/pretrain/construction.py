"""The construction algorithms of ``pretrain``: from a final network dict, the list of networks to train in turn.

Each function returns the networks in training order, the last one being (a copy of) the final network; the
schedule (:class:`returnn.pretrain.Pretrain`) then repeats each one ``repetitions`` times. The rules were observed
from the reference (``Pretrain(...).get_network_json_for_epoch``) on small and on published networks; see
``tests/test_pretrain_construction.py`` for the cases.

``"from_output"`` (the default) shrinks the network from the output side: one step replaces the ``from`` of each
output layer (``output_layers``, default ``("output",)``) by the union of its sources' sources, sorted by name, and
removes those sources. It stops before a step that would reach an input layer (``input_layers``, default
``("data",)``) or that has nothing to remove. Layers that do not lead to an output layer through ``from`` stay in
every network (also when they read a removed layer, as in the reference). A layer without ``from`` reads
``"data"``.

``"from_input"`` grows the network from ``"data"`` (the reference ignores ``input_layers`` here): network ``k``
holds the layers reached from ``"data"`` in ``k`` steps along ``from`` (each step's new layers sorted by name),
then the output layers (those in ``output_layers`` and every ``"softmax"`` layer, sorted by name); every ``from``
entry that names a layer not in network ``k`` is replaced by the existing layers it reads (recursively). It stops
when a step adds no layer or when no ``from`` needed a replacement (the final network comes next then).

Both then drop networks that only add non-trainable layers (``"trainable": False``; output layers are not
counted) to the previous one; where that is the final network, the previous one is dropped instead.

``"no_network_modifications"``: only the final network. A function ``(idx, net_dict) -> net_dict or None`` (called
with keywords, each time with a fresh deep copy of the final network, for ``idx = 0, 1, ...`` until it returns
``None``): its networks, then the final one.
"""

from __future__ import annotations

from copy import deepcopy
from typing import Any, Callable, Dict, List, Optional, Sequence, Set

from returnn.pretrain.errors import PretrainError

NetDict = Dict[str, Any]

#: a construction function that has not returned None after this many calls is an error (the reference loops)
MAX_CONSTRUCTION_CALLS = 1000


def layer_sources(net: NetDict, name: str, *, algo: str) -> List[str]:
    """The ``from`` list of layer ``name`` (``["data"]`` when not set).

    :raises PretrainError: ``name`` is not a layer dict, or ``from`` is not a list/tuple (the reference iterates
        a string's characters and fails)
    """
    layer = net.get(name)
    if not isinstance(layer, dict):
        raise PretrainError("pretrain construction_algo %r: %r is not a layer dict in the network (got %r)"
                            % (algo, name, layer))
    sources = layer.get("from", ["data"])
    if not isinstance(sources, (list, tuple)):
        raise PretrainError("pretrain construction_algo %r: layer %r: 'from' must be a list of layer names to "
                            "grow the network, got %r (the reference fails on this as well; write [%r] or use a "
                            "construction function)" % (algo, name, sources, sources))
    return list(sources)


def _layer_class(net: NetDict, name: str, algo: str) -> Any:
    layer = net[name]
    if not isinstance(layer, dict) or "class" not in layer:
        raise PretrainError("pretrain construction_algo %r: entry %r of the network is not a layer dict with "
                            "'class' (the reference fails on '#' entries and class-less layers here; use a "
                            "construction function to set '#config' & co.)" % (algo, name))
    return layer["class"]


def is_output_layer(net: NetDict, name: str, output_layers: Sequence[str], algo: str) -> bool:
    """Output layers of the algorithms: named in ``output_layers``, or of class ``"softmax"``."""
    return _layer_class(net, name, algo) == "softmax" or name in output_layers


# ------------------------------------------------------------------------------------------------ from_output

def construct_from_output(net: NetDict, *, input_layers: Sequence[str], output_layers: Sequence[str]) -> List[NetDict]:
    """See module doc.

    :raises PretrainError: an output layer is missing, or a step reaches a layer that is not in the network (e.g.
        a layer read at two depths, as in residual connections; the reference fails there too)
    """
    algo = "from_output"
    nets = [deepcopy(net)]
    current = deepcopy(net)
    while True:
        shrunk = _shrink_step(current, input_layers=input_layers, output_layers=output_layers, step=len(nets),
                              final=net)
        if shrunk is None:
            break
        current = shrunk
        nets.insert(0, deepcopy(current))
    return remove_non_trainable_added_only(nets, output_layers=output_layers, algo=algo)


def _shrink_step(net: NetDict, *, input_layers: Sequence[str], output_layers: Sequence[str], step: int,
                 final: NetDict) -> Optional[NetDict]:
    algo = "from_output"
    net = deepcopy(net)
    for out_name in output_layers:
        if out_name not in net:
            raise PretrainError("pretrain construction_algo %r: output layer %r is not in the network (layers: %s);"
                                " set pretrain 'output_layers'" % (algo, out_name, ", ".join(sorted(map(str, net)))))
        sources = layer_sources(net, out_name, algo=algo)
        if not sources or any(src in input_layers for src in sources):
            return None
        new_sources: Set[str] = set()
        for src in sources:
            if src not in net and src in final:
                raise PretrainError(
                    "pretrain construction_algo %r: removing layers before output layer %r (step %i) reaches %r, "
                    "which is not in the network anymore (it is read at two depths, e.g. by a residual or skip "
                    "connection); the reference fails here as well. Use construction_algo 'from_input' or a "
                    "construction function" % (algo, out_name, step, src))
            if src not in net:
                raise PretrainError(
                    "pretrain construction_algo %r: removing layers before output layer %r (step %i) reaches %r, "
                    "which is neither a layer nor one of input_layers %r; the reference fails here as well. Set "
                    "pretrain 'input_layers' or use a construction function" % (
                        algo, out_name, step, src, tuple(input_layers)))
            new_sources.update(layer_sources(net, src, algo=algo))
        if any(src in input_layers for src in new_sources):
            return None
        for src in sources:
            net.pop(src, None)
        net[out_name]["from"] = sorted(new_sources)
    return net


# ------------------------------------------------------------------------------------------------ from_input

def construct_from_input(net: NetDict, *, output_layers: Sequence[str]) -> List[NetDict]:
    """See module doc.

    :raises PretrainError: a ``from`` entry names neither ``"data"`` nor a layer of the network
    """
    algo = "from_input"
    outputs = sorted(name for name in net if is_output_layer(net, name, output_layers, algo))
    nets: List[NetDict] = []
    found: List[str] = []
    frontier: Set[str] = {"data"}
    for _ in range(len(net) + 1):
        new = sorted(name for name in net if name not in outputs and name not in found
                     and any(src in frontier for src in layer_sources(net, name, algo=algo)))
        if not new:
            break
        found += new
        frontier = set(new)
        grown = {name: deepcopy(net[name]) for name in found + outputs}
        rewired = False
        for name in grown:
            sources = layer_sources(net, name, algo=algo)
            existing = _existing_inputs(net, sources, grown, algo=algo)
            if existing != sources:
                grown[name]["from"] = existing
                rewired = True
        if not rewired:  # a part of the final network as it is: the final network comes next
            break
        nets.append(grown)
    nets.append(deepcopy(net))
    return remove_non_trainable_added_only(nets, output_layers=output_layers, algo=algo)


def _existing_inputs(net: NetDict, sources: Sequence[str], grown: NetDict, *, algo: str,
                     _out: Optional[List[str]] = None) -> List[str]:
    out: List[str] = [] if _out is None else _out
    for src in sources:
        if src == "data" or src in grown:
            if src not in out:
                out.append(src)
            continue
        if src not in net:
            raise PretrainError("pretrain construction_algo %r: 'from' names %r, which is neither 'data' nor a layer "
                                "of the network (the reference fails here as well; use a construction function)"
                                % (algo, src))
        _existing_inputs(net, layer_sources(net, src, algo=algo), grown, algo=algo, _out=out)
    return out


# ------------------------------------------------------------------------------------------------ both

def remove_non_trainable_added_only(nets: List[NetDict], *, output_layers: Sequence[str], algo: str) -> List[NetDict]:
    """Drops each network whose new layers (compared with the previous kept one; output layers not counted) are
    all ``"trainable": False``; when that is the last (final) network, the previous one is dropped instead."""
    kept: List[NetDict] = []
    previous: Set[str] = set()
    for i, net in enumerate(nets):
        added = [name for name in net if name not in previous and not is_output_layer(net, name, output_layers, algo)]
        if all(not net[name].get("trainable", True) for name in added):
            if i < len(nets) - 1:
                continue
            if kept:
                kept.pop()
        kept.append(net)
        previous = set(net)
    return kept


# ------------------------------------------------------------------------------------------------ custom

def construct_custom(func: Callable[..., Optional[NetDict]], net: NetDict, *,
                     repetitions_of: Callable[[int, NetDict], int],
                     output_layers: Sequence[str]) -> List[NetDict]:
    """Calls ``func(idx=idx, net_dict=deepcopy(net))`` for ``idx = 0, 1, ...`` until it returns None.

    :param repetitions_of: ``(idx, returned net) -> its number of epochs`` (to name epochs in messages)
    :raises PretrainError: the function raised (chained), returned something else than a dict or None, returned
        a network without one of ``output_layers`` that the final network has, or never returned None
    """
    name = getattr(func, "__qualname__", repr(func))
    nets: List[NetDict] = []
    first_epoch = 1
    for idx in range(MAX_CONSTRUCTION_CALLS):
        where = "pretrain construction function %s (idx=%i, the network of pretrain epoch %i)" % (
            name, idx, first_epoch)
        try:
            result = func(idx=idx, net_dict=deepcopy(net))
        except Exception as exc:
            raise PretrainError("%s raised %s: %s" % (where, type(exc).__name__, exc)) from exc
        if result is None:
            break
        if not isinstance(result, dict):
            raise PretrainError("%s: expected a network dict or None (end of the pretrain networks), got %s"
                                % (where, type(result).__name__))
        missing = [out for out in output_layers if out in net and out not in result]
        if missing:
            raise PretrainError("%s: the returned network has no layer %s (layers: %s)"
                                % (where, " / ".join(repr(m) for m in missing), ", ".join(map(str, result))))
        nets.append(result)
        count = repetitions_of(idx, result)
        first_epoch += count if isinstance(count, int) and count > 0 else 0
    else:
        raise PretrainError("pretrain construction function %s: did not return None after %i calls (it returns None "
                            "when idx is past the last pretrain network)" % (name, MAX_CONSTRUCTION_CALLS))
    nets.append(deepcopy(net))
    return nets

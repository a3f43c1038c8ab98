"""``subnetwork`` layers inside a rec unit, flattened into the unit (as the reference, observed: its rec cell lists
the inner layers as ``"<sub>/<inner>"``, each in the loop or moved out of it on its own, with its own ``prev:``).

A unit layer ``{"class": "subnetwork", "from": F, "subnetwork": {...}}`` named ``S`` becomes:

- one unit layer ``"S/X"`` per inner layer ``X``; names inside are rewritten into names of the unit: ``"X"`` (an
  inner layer) -> ``"S/X"``, ``"prev:X"`` -> ``"prev:S/X"``, ``"base:Y"`` -> ``Y`` as the enclosing level names it
  (``"base:prev:Y"`` -> ``"prev:Y"``, ``"base:data:source"`` -> ``"data:source"``, ``"base:base:Y"`` -> ``"base:Y"``:
  a layer outside the rec layer), ``"data"`` (the subnetwork's input) -> ``F`` when it is one layer (else a unit
  layer ``"S/data"``: a ``copy`` of ``F``, with ``S``'s ``dropout``; ``concat_sources: False``: ``"data:<i>"`` ->
  the ``i``-th source of ``F``); an inner layer without ``from`` reads ``"data"``;
- the unit layer ``"S"`` itself: a ``copy`` of ``"S/output"`` with ``S``'s arguments about its output
  (``initial_output``, ``out_shape``, ``n_out``, ``is_output_layer``, losses, ...).

Nested subnetworks are flattened the same way (``"S/T/X"``). Names are rewritten in the layer arguments that name
layers (``from``, ``mask``, ``masked_from``, ``reuse_params``, ``extra_deps``, ...; not ``initial_output``: a
layer outside the rec layer, ``"base:X"``, as in the unit). The params of ``"S/X"`` are in the scope ``<rec>/rec/S/X/`` (as the reference's).
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Optional

# layer arguments whose strings may name layers (rewritten when flattening a subnetwork)
_LAYER_REF_ARGS = ("from", "mask", "masked_from", "reuse_params", "extra_deps", "size_base", "position", "start",
                   "size", "weights", "base", "keys", "values", "reuse_layer", "condition", "true_from", "false_from",
                   "indices", "logits", "targets", "a", "b", "explicit_state", "initial_state", "shape_deps",
                   "base_ctx", "state", "seq_len_source", "window_start", "window_size", "chunking_layer", "factor",
                   "scale", "repetitions", "sizes", "key_shift", "declare_same_sizes_as", "control_dependencies",
                   "filter", "bias", "custom_inv_norm_factor", "error_signal_layer", "align_layer",
                   "explicit_search_source", "explicit_search_sources")
# arguments of the subnetwork layer kept on its "S" layer (a copy of "S/output")
_KEPT_ON_OUTER = ("is_output_layer", "n_out", "out_dim", "out_shape", "loss", "loss_scale", "loss_opts", "target",
                  "loss_only_on_non_search", "initial_output", "need_last", "only_on_eval", "only_on_search",
                  "register_as_extern_data", "collocate_with", "extra_deps")
_INPUT_ARGS = ("dropout", "dropout_noise_shape", "dropout_on_forward")
_NO_DEFAULT_FROM = ("source", "constant", "variable", "subnetwork", "range", "train_flag", "global_train_step",
                    "rand_int", "random", "random_state_init", "rec_last_output")


def is_flattenable(desc: Any) -> bool:
    """:return: whether a unit layer dict is a ``subnetwork`` layer this module flattens (with a ``subnetwork``
    dict that has an ``output`` layer)"""
    return (isinstance(desc, dict) and desc.get("class") == "subnetwork" and isinstance(desc.get("subnetwork"), dict)
            and "output" in desc["subnetwork"]
            # (not yet: a random layer with an explicit state variable, which the subnetwork layer runs per step)
            and not any(isinstance(inner, dict) and inner.get("class") == "random" and inner.get("explicit_state")
                        for inner in desc["subnetwork"].values()))


def flatten_unit(unit: Dict[str, Any]) -> Dict[str, Any]:
    """:return: ``unit`` with every ``subnetwork`` layer flattened (see the module docstring); ``unit`` itself if it
    has none. The flattened ``"S"`` layer dicts carry ``"_flattened_load_on_init"`` where ``S`` had
    ``load_on_init`` (read by :func:`pop_load_on_init`)."""
    if not isinstance(unit, dict) or not any(is_flattenable(desc) for desc in unit.values()):
        return unit
    result: Dict[str, Any] = {}
    for name, desc in unit.items():
        if is_flattenable(desc):
            _flatten_into(result, name, desc, outer=lambda ref: ref)
        else:
            result[name] = desc
    return result


def pop_load_on_init(unit: Dict[str, Any]) -> Dict[str, Any]:
    """:return: ``"S"`` -> the ``load_on_init`` of each flattened subnetwork layer ``S`` (removed from its dict)"""
    found = {}
    for name, desc in list(unit.items()):
        if isinstance(desc, dict) and "_flattened_load_on_init" in desc:
            desc = dict(desc)
            found[name] = desc.pop("_flattened_load_on_init")
            unit[name] = desc
    return found


def _flatten_into(result: Dict[str, Any], name: str, desc: Dict[str, Any], outer: Callable[[str], str]) -> None:
    """Adds ``name`` (a copy of ``name/output``) and its inner layers ``name/X`` to ``result``.

    :param outer: rewrites a name as the level around the subnetwork names it into a name of the unit
    """
    inner_dict: Dict[str, Any] = desc["subnetwork"]
    prefix = name + "/"
    sources = desc.get("from", "data")
    sources = [sources] if isinstance(sources, str) else list(sources)
    sources = [outer(src) for src in sources if src != "none"]
    data_name: Optional[str] = None  # the unit name of the subnetwork's "data"
    if desc.get("concat_sources", True) is not False:
        if len(sources) == 1 and not any(desc.get(key) for key in _INPUT_ARGS):
            data_name = sources[0]
        elif sources:
            data_name = prefix + "data"

    def rewrite(ref: str) -> str:
        if ref.startswith("base:"):
            return outer(ref[len("base:"):])
        if ref.startswith("prev:"):
            return "prev:" + rewrite(ref[len("prev:"):])
        if ref == "data" and data_name is not None:
            return data_name
        if ref.startswith("data:") and ref[len("data:"):].isdigit() and desc.get("concat_sources", True) is False:
            index = int(ref[len("data:"):])
            if index < len(sources):
                return sources[index]
        if ref in inner_dict or ref.split("/", 1)[0] in inner_dict:
            return prefix + ref
        if ref == ":i" or ref.startswith("data:"):
            return outer(ref)
        return ref  # no layer name (e.g. "zeros" of an initial_state), or not found where it is used

    outer_desc = {key: value for key, value in desc.items() if key in _KEPT_ON_OUTER}
    outer_desc.update({"class": "copy", "from": prefix + "output"})
    if desc.get("load_on_init") is not None:
        outer_desc["_flattened_load_on_init"] = desc["load_on_init"]
    result[name] = outer_desc
    if data_name == prefix + "data":
        result[data_name] = {"class": "copy", "from": sources,
                             **{key: desc[key] for key in _INPUT_ARGS if key in desc}}
    for inner, inner_desc in inner_dict.items():
        if not isinstance(inner_desc, dict) or inner.startswith("#"):
            continue
        if is_flattenable(inner_desc):
            _flatten_into(result, prefix + inner, inner_desc, outer=rewrite)  # its "from" rewritten there
            continue
        new_desc = _rewritten(inner_desc, rewrite)
        if "from" not in inner_desc and inner_desc.get("class") not in _NO_DEFAULT_FROM:
            new_desc["from"] = rewrite("data") if data_name is not None else []
        result[prefix + inner] = new_desc


def _rewritten(desc: Dict[str, Any], rewrite: Callable[[str], str]) -> Dict[str, Any]:
    """:return: ``desc`` with the layer names in its layer arguments rewritten; a ``subnetwork`` layer that stays
    one (not flattenable) gets the ``base:`` names of its inner layers rewritten too (they name the level that was
    flattened)"""
    out = dict(desc)
    for key in _LAYER_REF_ARGS:
        if key in out:
            out[key] = _rewrite_value(out[key], rewrite, key)
    if out.get("class") == "subnetwork" and isinstance(out.get("subnetwork"), dict):
        out["subnetwork"] = _rebased_subnet(out["subnetwork"], rewrite)
    return out


def _rebased_subnet(subnet: Dict[str, Any], enclosing: Callable[[str], str]) -> Dict[str, Any]:
    """:return: the layer dicts of a kept subnetwork whose enclosing level was flattened: ``"base:X"`` becomes
    ``"base:" + enclosing(X)`` (``X`` as the flattened level names it in the unit); its own names stay"""

    def rewrite(ref: str) -> str:
        if ref.startswith("base:"):
            return "base:" + enclosing(ref[len("base:"):])
        return ref

    return {name: (_rewritten(layer, rewrite) if isinstance(layer, dict) and not name.startswith("#") else layer)
            for name, layer in subnet.items()}


def _rewrite_value(value: Any, rewrite: Callable[[str], str], key: str) -> Any:
    if isinstance(value, str):
        if value == "none":
            return value
        return rewrite(value)
    if isinstance(value, list):
        return [_rewrite_value(v, rewrite, key) for v in value]
    if isinstance(value, tuple):
        return tuple(_rewrite_value(v, rewrite, key) for v in value)
    if isinstance(value, dict):
        return {k: (_rewrite_value(v, rewrite, k) if k in _LAYER_REF_ARGS or k == "map" or key == "map" else v)
                for k, v in value.items()}
    return value


def inner_param_names(rec_params: Dict[str, Any], sub_name: str) -> Dict[str, Any]:
    """:return: of a rec layer's params (``"<unit layer>/<param>"``), those of flattened subnetwork ``sub_name``'s
    inner layers, named relative to it (``"lstm0/rec/W"``)"""
    prefix = sub_name + "/"
    return {key[len(prefix):]: var for key, var in rec_params.items() if key.startswith(prefix)}


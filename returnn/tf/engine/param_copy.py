"""Carrying parameter values into a rebuilt network (pretrain growth, ``get_network`` changes), as the reference.

When the network of an epoch differs from the current one, the engine builds a new graph and, per copy mode
(``#copy_param_mode`` of the new network dict, else the ``pretrain`` option ``copy_param_mode``):

- None / ``"ifpossible"``: a param whose name and shape are in the old network gets the old value; one with
  another shape keeps its new initial value, logging ``Will not set param <var> because its shape [9, 12] !=
  (9, 11).``
- ``"subset"``: as above, and a param whose shape differs gets the overlapping part: along each axis, each part
  (see below) of the old value goes into the leading part of the same part of the new value (growing: the rest
  keeps its initial value; shrinking: the leading part of the old one is kept), logging ``Param <var>: transform
  old values of shape parts [[9], [4]] into new shape parts [[9], [6]].`` (or ``... of shape (4,) into new shape
  (6,).`` when the param has no parts).
- ``"reset"``: nothing is copied.

Parts of an axis (observed from the reference's log): ``linear``/``softmax`` ``W``: the input axis per source
layer (``[[2, 3], [n_out]]`` for two sources; a ``copy``/``dropout`` source contributes its own sources' parts, so
``copy`` of a forward and a backward LSTM gives two parts), LSTM units of ``rec`` (params ``W``, ``W_re``, ``b``): ``W``
``[[n_in], [n, n, n, n]]``, ``W_re`` ``[[n], [n, n, n, n]]``, ``b`` ``[[n, n, n, n]]`` (gates); ``self_attention``
``QKV``: ``[[n_in], [key, key, value]]``; the same for the layers inside a ``rec`` unit dict; every other param
(biases of ``linear``, ``conv``, norms, ``rnn_cell`` ...): no parts. Lines are logged (v3) for the layers sorted by
name, each layer's params in creation order, then once more for the layers inside ``rec`` units (as the
reference's log repeats them). Params are all layer params (also non-trainable ones like batch-norm statistics);
the global step is carried over; optimizer slots start anew (the optimizer is rebuilt, as in the reference).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np
import tensorflow as tf

from returnn.log import log

tf1 = tf.compat.v1

SplitInfo = Optional[List[List[int]]]
_LSTM_PARAM_ORDER = {"W": 0, "b": 1, "W_re": 2}


def _var_name(var) -> str:
    return var.name[:-2] if var.name.endswith(":0") else var.name


def _dim(layer) -> Optional[int]:
    try:
        return layer.output.dim
    except Exception:  # noqa: BLE001
        return None


#: layers whose output features are their sources' features side by side (parts carried through, as observed)
CONCAT_LAYERS = ("copy", "dropout")


def _feature_parts(layer) -> List[Optional[int]]:
    """The parts of a layer's feature axis: its sources' parts for ``copy``/``dropout``, else ``[dim]``."""
    dim = _dim(layer)
    if getattr(layer, "layer_class", None) in CONCAT_LAYERS and getattr(layer, "sources", None):
        parts = [p for src in layer.sources for p in _feature_parts(src)]
        if all(isinstance(p, int) for p in parts) and sum(parts) == dim:
            return parts
    return [dim]


def _linear_parts(source_dims: Sequence[Optional[int]], shape: Sequence[int]) -> SplitInfo:
    if len(shape) != 2:
        return None
    dims = list(source_dims)
    if not dims or any(not isinstance(d, int) for d in dims) or sum(dims) != shape[0]:
        dims = [shape[0]]
    return [list(dims), [shape[1]]]


def _lstm_parts(param: str, shape: Sequence[int]) -> SplitInfo:
    if not shape or shape[-1] % 4:
        return None
    n = shape[-1] // 4
    if param == "b" and len(shape) == 1:
        return [[n] * 4]
    if param in ("W", "W_re") and len(shape) == 2:
        return [[shape[0]], [n] * 4]
    return None


def _qkv_parts(value_dim: Optional[int], shape: Sequence[int]) -> SplitInfo:
    if len(shape) != 2 or not isinstance(value_dim, int) or (shape[1] - value_dim) % 2 or shape[1] <= value_dim:
        return None
    key_dim = (shape[1] - value_dim) // 2
    return [[shape[0]], [key_dim, key_dim, value_dim]]


def _layer_parts(layer_class: str, param: str, shape: Sequence[int], source_dims: Sequence[Optional[int]],
                 out_dim: Optional[int], lstm: bool = False) -> SplitInfo:
    if layer_class in ("linear", "softmax") and param == "W":
        return _linear_parts(source_dims, shape)
    if layer_class == "rec" and lstm:
        return _lstm_parts(param.split("/")[-1], shape)
    if layer_class == "self_attention" and param == "QKV":
        return _qkv_parts(out_dim, shape)
    return None


def _sub_source_parts(network, rec_layer, cell, source: str, _depth: int = 0) -> List[Optional[int]]:
    """:func:`_feature_parts` of a source named inside a ``rec`` unit dict."""
    if source.startswith("prev:"):
        source = source[len("prev:"):]
    if source.startswith("base:"):
        return _feature_parts(network.get_layer(source[len("base:"):]))
    if source in ("data", "data:source"):
        dims = [_dim(s) for s in getattr(rec_layer, "sources", [])]
        return [sum(dims) if dims and all(isinstance(d, int) for d in dims) else None]
    if source.startswith("data:"):
        return [_dim(network.get_layer(source))]
    template = cell.layers.get(source)
    if template is None:
        return [None]
    desc = cell.unit.get(source) or {}
    if getattr(template, "layer_class", None) in CONCAT_LAYERS and _depth < 10:
        parts = [p for src in _sources_of(desc) for p in _sub_source_parts(network, rec_layer, cell, src, _depth + 1)]
        if all(isinstance(p, int) for p in parts) and sum(parts) == _dim(template):
            return parts
    return [_dim(template)]


def _sources_of(desc) -> List[str]:
    sources = desc.get("from", ["data:source"])
    return [sources] if isinstance(sources, str) else list(sources)


def param_entries(network) -> List[Tuple[Any, SplitInfo, bool]]:
    """``(variable, split info, log only)`` for every layer param, in the reference's log order (see module doc);
    ``log only`` marks the repeated entries of layers inside ``rec`` units."""
    entries: List[Tuple[Any, SplitInfo, bool]] = []
    repeated: List[Tuple[Any, SplitInfo, bool]] = []
    seen = set()
    for name, layer in sorted(network.layers.items()):
        params = list(layer.params.items())
        lstm = layer.layer_class == "rec" and {"W", "W_re", "b"} <= set(layer.params)
        if lstm:
            params.sort(key=lambda kv: _LSTM_PARAM_ORDER.get(kv[0], 3))
        cell = getattr(layer, "cell", None)
        sub_entries: Dict[str, List[Tuple[Any, SplitInfo, bool]]] = {}
        for key, var in params:
            if id(var) in seen:
                continue
            seen.add(id(var))
            shape = var.shape.as_list()
            try:
                if cell is not None and hasattr(cell, "unit") and key.split("/")[0] in cell.unit and "/" in key:
                    sub_name, param = key.split("/", 1)  # the keys of a unit's params: "<sub layer>/<param>"
                    desc = cell.unit.get(sub_name) or {}
                    template = cell.layers.get(sub_name)
                    sub_keys = {k.split("/")[-1] for k in layer.params if k.startswith("%s/" % sub_name)}
                    parts = [p for src in _sources_of(desc) for p in _sub_source_parts(network, layer, cell, src)]
                    info = _layer_parts(getattr(template, "layer_class", ""), param, shape, parts, _dim(template),
                                        lstm={"W", "W_re", "b"} <= sub_keys)
                    sub_entries.setdefault(sub_name, []).append((var, info, True))
                else:
                    parts = [p for src in getattr(layer, "sources", []) for p in _feature_parts(src)]
                    info = _layer_parts(layer.layer_class, key, shape, parts, _dim(layer), lstm=lstm)
            except Exception:  # noqa: BLE001 (a layer this inference does not know: no parts)
                info = None
            entries.append((var, info, False))
        for sub_name in sorted(sub_entries):
            repeated += sub_entries[sub_name]
    return entries + repeated


class ParamSnapshot:
    """The values (and split info) of a network's params, taken before its graph is dropped.

    :param network: the current network
    :param session: its session
    """

    def __init__(self, network, session):
        entries = [(var, info) for var, info, log_only in param_entries(network) if not log_only]
        values = session.run([var for var, _ in entries]) if entries else []
        self.values: Dict[str, np.ndarray] = {_var_name(var): value for (var, _), value in zip(entries, values)}
        self.split_info: Dict[str, SplitInfo] = {_var_name(var): info for var, info in entries}


def subset_copy(old: np.ndarray, new: np.ndarray, old_parts: SplitInfo, new_parts: SplitInfo) -> np.ndarray:
    """``new`` with, per axis and part, the overlapping leading block of each old part (see module doc)."""
    if old_parts is None or new_parts is None or len(old_parts) != len(new_parts) or any(
            len(a) != len(b) for a, b in zip(old_parts, new_parts)):
        old_parts, new_parts = [[d] for d in old.shape], [[d] for d in new.shape]
    out = np.array(new, copy=True)
    old_index, new_index = [], []
    for old_axis, new_axis in zip(old_parts, new_parts):
        old_idx, new_idx, old_off, new_off = [], [], 0, 0
        for o, n in zip(old_axis, new_axis):
            m = min(o, n)
            old_idx += range(old_off, old_off + m)
            new_idx += range(new_off, new_off + m)
            old_off, new_off = old_off + o, new_off + n
        old_index.append(np.array(old_idx, dtype=np.int64))
        new_index.append(np.array(new_idx, dtype=np.int64))
    out[np.ix_(*new_index)] = old[np.ix_(*old_index)]
    return out


def copy_params(snapshot: ParamSnapshot, network, session, mode: Optional[str]) -> int:
    """Sets the params of the (new, initialized) ``network`` from ``snapshot`` per ``mode``; logs as the module
    doc says. Returns the number of params set."""
    if mode == "reset":
        return 0
    entries = param_entries(network)
    new_values = session.run([var for var, _, log_only in entries if not log_only]) if entries else []
    new_iter = iter(new_values)
    assignments: List[Tuple[Any, np.ndarray]] = []
    logged: Dict[str, str] = {}
    for var, info, log_only in entries:
        name = _var_name(var)
        if log_only:
            if name in logged:
                print(logged[name], file=log.v3)
            continue
        current = next(new_iter)
        if name not in snapshot.values:
            continue
        old = snapshot.values[name]
        if old.shape == current.shape:
            assignments.append((var, old))
            continue
        if mode != "subset" or old.ndim != current.ndim:
            line = "Will not set param %s because its shape %s != %s." % (var, var.shape.as_list(), old.shape)
        else:
            old_info = snapshot.split_info.get(name)
            if old_info is not None and info is not None:
                line = "Param %s: transform old values of shape parts %s into new shape parts %s." % (
                    var, old_info, info)
            else:
                line = "Param %s: transform old values of shape %s into new shape %s." % (var, old.shape,
                                                                                         current.shape)
                old_info = info = None
            assignments.append((var, subset_copy(old, current, old_info, info)))
        logged[name] = line
        print(line, file=log.v3)
    assign_values(session, assignments)
    return len(assignments)


def assign_values(session, assignments: List[Tuple[Any, np.ndarray]]) -> None:
    """Assigns the values in one ``session.run`` (placeholders + assign ops in the variables' graph)."""
    if not assignments:
        return
    graph = assignments[0][0].graph
    feeds, ops = {}, []
    with graph.as_default(), tf1.name_scope("param_copy"):
        for var, value in assignments:
            ph = tf1.placeholder(var.dtype.base_dtype, shape=var.shape, name="value")
            ops.append(var.assign(ph, read_value=False) if hasattr(var, "handle") else tf1.assign(var, ph))
            feeds[ph] = value
    session.run(ops, feed_dict=feeds)

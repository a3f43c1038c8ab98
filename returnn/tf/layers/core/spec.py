"""Validation of a layer dict before anything is built (class known, argument names known)."""

from __future__ import annotations

import inspect
import numbers
from typing import Any, FrozenSet, Mapping, Set, Type

from returnn.errors import LayerArgError, UnknownNameError
from returnn.tensor import NotSpecified
from returnn.tf.layers.core.common_args import COMMON_LAYER_ARGS, INTERNAL_LAYER_KWARGS
from returnn.tf.layers.core.registry import LAYERS, is_user_layer_class
from returnn.util.suggest import close_matches

_declared_cache: dict = {}


def declared_args(layer_class: Type[Any]) -> FrozenSet[str]:
    """:return: the layer's own argument names: keyword params of ``__init__`` and ``get_out_data_from_opts``
    along the MRO, plus ``extra_config_keys``; without the internal and common keys"""
    if layer_class in _declared_cache:
        return _declared_cache[layer_class]
    names: Set[str] = set(getattr(layer_class, "extra_config_keys", ()))
    for klass in layer_class.__mro__:
        for attr in ("__init__", "get_out_data_from_opts", "transform_config_dict"):
            fn = klass.__dict__.get(attr)
            if fn is None:
                continue
            fn = fn.__func__ if isinstance(fn, (classmethod, staticmethod)) else fn
            try:
                params = inspect.signature(fn).parameters.values()
            except (TypeError, ValueError):
                continue
            for p in params:
                if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.name not in ("self", "cls", "d", "get_layer") \
                        and not p.name.startswith("_"):
                    names.add(p.name)
    result = frozenset(names - INTERNAL_LAYER_KWARGS - COMMON_LAYER_ARGS - {"class"})
    _declared_cache[layer_class] = result
    return result


def validate_layer_dict(name: str, layer_dict: Mapping[str, Any]) -> Type[Any]:
    """Checks ``class`` and the argument names of one layer dict.

    Argument names of layer classes defined outside this package (a config's ``LayerBase`` subclasses) are not
    checked here: such a class may consume args via ``**kwargs``; ``LayerBase.__init__`` rejects those left over.

    :return: the layer class
    :raises LayerArgError: missing ``class`` / unknown argument (names the layer, the arg, accepted args and the
        closest match)
    :raises UnknownNameError: unknown ``class`` (closest names and hints)
    """
    if not isinstance(layer_dict, Mapping):
        raise LayerArgError(layer=name, layer_class="?", arg="class", problem="layer dict is not a dict:",
                            got=layer_dict)
    if "class" not in layer_dict:
        raise LayerArgError(layer=name, layer_class="?", arg="class", problem="missing required argument",
                            hint='every layer dict needs "class", e.g. {"class": "linear", "from": "data", "n_out": 512}')
    try:
        layer_class = LAYERS.get(layer_dict["class"], context=f"in layer {name!r}")
    except UnknownNameError:
        raise
    _check_n_out(name, layer_class, layer_dict)
    if is_user_layer_class(layer_class):
        # a config's own layer class may take args through **kwargs (kwargs.pop(...)); as in the reference, an
        # arg nobody takes is reported by LayerBase.__init__ (unknown argument)
        return layer_class
    own = declared_args(layer_class)
    for key in layer_dict:
        if key == "class" or key in COMMON_LAYER_ARGS or key in own:
            continue
        accepted = sorted(own)
        raise LayerArgError(
            layer=name, layer_class=layer_class.layer_class, arg=key, problem="unknown argument",
            suggestions=close_matches(key, [*own, *COMMON_LAYER_ARGS]),
            expected=f"an argument of {layer_class.layer_class!r}: {', '.join(accepted) or '(none)'}"
                     " (or a common layer arg: from, n_out, loss, target, dropout, L2, ...)")
    return layer_class


def _check_n_out(name: str, layer_class: Type[Any], layer_dict: Mapping[str, Any]) -> None:
    """``n_out``, when given, is an int >= 0 or None (the reference fails later on others: TensorFlow's
    ``ValueError: Dimension -3 must be >= 0`` when the weights are created).

    :raises LayerArgError: naming the layer, ``n_out`` and the value found
    """
    n_out = layer_dict.get("n_out")
    if n_out is None or n_out is NotSpecified:
        return
    if not isinstance(n_out, numbers.Integral) or isinstance(n_out, bool) or n_out < 0:
        raise LayerArgError(layer=name, layer_class=getattr(layer_class, "layer_class", None) or layer_class.__name__,
                            arg="n_out", problem="invalid value for",
                            expected="an int >= 0 (the size of the output's feature axis), or leave it out to take "
                                     "it from the loss target",
                            got=n_out)

"""Validation of a layer dict before anything is built (class known, argument names known)."""

from __future__ import annotations

import inspect
from typing import Any, FrozenSet, Mapping, Set, Type

from returnn.errors import LayerArgError, UnknownNameError
from returnn.tensor import NotSpecified
from returnn.tf.layers.core.common_args import (COMMON_LAYER_ARGS, INTERNAL_LAYER_KWARGS, LAYER_ARGS_BY_NAME,
                                                NO_EFFECT, UNSUPPORTED, is_default_value)
from returnn.tf.layers.core.registry import LAYERS, is_user_layer_class
from returnn.util.suggest import close_matches

_declared_cache: dict = {}
_warned_no_effect: Set[str] = set()


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
    check_common_arg_values(name, layer_class, layer_dict)
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



def check_common_arg_values(name: str, layer_class: Type[Any], layer_dict: Mapping[str, Any]) -> None:
    """Checks the values of the common arguments in ``layer_dict`` against :data:`LAYER_ARGS` (see
    :mod:`returnn.tf.layers.core.common_args`).

    :raises LayerArgError: a value the argument does not accept (e.g. ``n_out = -3``: the reference fails later, in
        TensorFlow, with ``Dimension -3 must be >= 0``), or an unsupported argument given with a value
    """
    from returnn.log import log

    class_name = getattr(layer_class, "layer_class", None) or layer_class.__name__
    for key, value in layer_dict.items():
        arg = LAYER_ARGS_BY_NAME.get(key)
        if arg is None:
            continue
        if arg.check is not None and value is not None and value is not NotSpecified and not arg.check(value):
            raise LayerArgError(layer=name, layer_class=class_name, arg=key, problem="invalid value for",
                                expected=arg.expected, got=value)
        if arg.status == UNSUPPORTED and not is_default_value(value):
            raise LayerArgError(layer=name, layer_class=class_name, arg=key,
                                problem="is not supported (yet) in this implementation:", got=value, hint=arg.meaning)
        if arg.status == NO_EFFECT and not is_default_value(value) and key not in _warned_no_effect:
            _warned_no_effect.add(key)  # one line per argument and process
            log.print_warning(f"layer argument {key!r} is accepted but has no effect in this implementation: "
                              f"{arg.meaning} (given e.g. in layer {name!r})")

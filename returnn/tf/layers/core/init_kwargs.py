"""What the network passes to a layer class's ``__init__``: the common arguments as one parsed value.

The network parses the common arguments of a layer dict once (after ``transform_config_dict``) into a
:class:`returnn.tf.layers.core.common_args.CommonLayerArgs` and gives a built-in layer class ``common_args=`` that
value, its own arguments, and the common arguments its own ``__init__`` names as parameters (``trainable`` of
``variable``, ``out_dim`` of ``concat``, ...). A layer class of a config gets every argument one by one, as the
reference passes them (it may read ``kwargs["n_out"]``, or drop an argument before ``super().__init__``), and
``LayerBase.__init__`` parses them there.
"""

from __future__ import annotations

import inspect
from typing import Any, Dict, FrozenSet, Mapping, Type

from returnn.tf.layers.core.common_args import CommonLayerArgs
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import is_user_layer_class

_declared_common_cache: Dict[type, FrozenSet[str]] = {}


def common_args_named_by(layer_class: Type[LayerBase]) -> FrozenSet[str]:
    """:return: the common argument names (as layer kwargs) that the ``__init__`` of ``layer_class`` or of a base
    class below :class:`LayerBase` names as a parameter"""
    if layer_class not in _declared_common_cache:
        names = set()
        for klass in layer_class.__mro__:
            if klass is LayerBase or not issubclass(klass, LayerBase):
                continue
            init = klass.__dict__.get("__init__")
            if init is not None:
                names.update(inspect.signature(init).parameters)
        _declared_common_cache[layer_class] = frozenset(names & CommonLayerArgs.kwarg_names())
    return _declared_common_cache[layer_class]


def layer_init_kwargs(layer_class: Type[LayerBase], kwargs: Mapping[str, Any]) -> Dict[str, Any]:
    """:return: the keyword arguments of ``layer_class(output=..., **result)`` for the transformed layer kwargs
    ``kwargs`` (``name``, ``network``, ``sources``, the common and the layer's own arguments): see the module doc"""
    if is_user_layer_class(layer_class):
        return dict(kwargs)
    common_names = CommonLayerArgs.kwarg_names()
    named = common_args_named_by(layer_class)
    result = {key: value for key, value in kwargs.items() if key not in common_names or key in named}
    result["common_args"] = CommonLayerArgs.from_layer_kwargs(kwargs)
    return result

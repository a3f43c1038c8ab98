"""The layer arg ``reuse_params``: which variables a layer uses instead of creating its own.

Forms of a layer dict's ``reuse_params`` (as the reference accepts them, behaviour observed from it):

- ``"l1"`` (or ``{"reuse_layer": "l1"}``): every param ``<name>`` of the layer is ``l1``'s param of that name
  (the variable ``<scope of l1>/<name>``; created there if ``l1`` has none of that name);
- ``{"map": {"W": spec, "b": spec, ...}}``: one spec per param name; a spec is ``None`` (the layer's own new
  param), ``{"reuse_layer": "l1"}`` (``l1``'s param of that name), ``{"layer_output": "w"}`` (the output of layer
  ``w`` is used as the param, e.g. of a ``variable`` layer), ``{"custom": func}`` (``func`` returns the param,
  see below), or a nested dict of these keys. A param name not in the map is an error, unless
  ``"auto_create_missing": True`` (then it is created as the layer's own);
- ``{"custom": func}``: ``func`` gives every param.

``func`` is called with keyword arguments ``base_layer`` (the layer whose param it is), ``reuse_layer`` (the
spec's ``reuse_layer`` or None), ``full_name`` (``"<scope of the layer>/<name>"``), ``name`` (the param name
within the layer, ``"W"``), ``getter`` (TF's variable getter, called with a full name), and the arguments of
``tf.compat.v1.get_variable`` (``shape``, ``dtype``, ``initializer``, ``trainable``, ``reuse``, ...); it returns a
variable or a tensor (e.g. ``tf.transpose(reuse_layer.params["W"])``).

Only variables in the layer's own scope count as its params (``layer.params``); those of other layers and tensors
do not. The layer named in ``reuse_layer`` may depend on the reusing layer (a construction loop, e.g. a layer in a
rec unit reusing the params of a layer after the rec layer): then it is resolved lazily, by its scope.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Optional

import tensorflow as tf

from returnn.errors import LayerArgError, NetworkConstructionDependencyLoopException

_SPEC_KEYS = ("reuse_layer", "map", "custom", "auto_create_missing", "layer_output", "shape")


class LazyLayer:
    """A layer named in ``reuse_params`` that is still under construction (it depends on the reusing layer).

    Its scope is known from its name and layer dict, so its variables can be created and shared before it exists;
    :meth:`get_layer` returns it once constructed.

    :param name: the layer name in ``network``
    :param network: the network the layer belongs to
    :param get_layer: the name resolver to construct it with (as in ``transform_config_dict``)
    :param net_dict: the layer dicts ``network`` constructs it from (default: its ``layers_desc``)
    """

    def __init__(self, name: str, network: Any, get_layer: Callable[[str], Any], net_dict: Optional[Dict] = None):
        self.name = name
        self.network = network
        self.get_layer_func = get_layer
        self.net_dict = net_dict

    def __repr__(self) -> str:
        return f"<LazyLayer {self.name!r} in {self.network}>"

    def get_absolute_name_scope_prefix(self) -> str:
        """:return: the scope prefix of the named layer (``"layer2/"``), from its layer dict's ``name_scope``"""
        desc = self.network.layers_desc.get(self.name)
        name_scope = desc.get("name_scope") if isinstance(desc, dict) else None
        scope = self.network.get_layer_scope_name(self.name, name_scope)
        return scope + "/" if scope else ""

    def get_layer(self) -> Any:
        """:return: the constructed layer
        :raises NetworkConstructionDependencyLoopException: it is still under construction"""
        return self.get_layer_func(self.name)

    def get_layer_for_params(self) -> Any:
        """:return: the layer if it can be constructed now, else a stand-in of it with its params (built from the
            output templates of the layers under construction; see :mod:`returnn.tf.network.stand_in`)"""
        try:
            return self.get_layer()
        except NetworkConstructionDependencyLoopException:
            return self.network.construct_params_stand_in(self.name, self.net_dict, self.get_layer_func)


class ReuseParams:
    """A parsed ``reuse_params`` spec (see the module doc).

    :param reuse_layer: the layer whose params are used (a layer, a :class:`LazyLayer`, or None)
    :param map: param name -> :class:`ReuseParams` (None: the layer's own param)
    :param custom: function giving the param (see the module doc)
    :param auto_create_missing: with ``map``: params not in the map are the layer's own (else an error)
    :param layer_output: a layer whose output is the param
    :param shape: accepted for the reference's spec (the shape the layer asks for is used)
    """

    def __init__(self, reuse_layer: Any = None, map: Optional[Dict[str, ReuseParams]] = None,  # noqa: A002
                 custom: Optional[Callable[..., Any]] = None, auto_create_missing: bool = False,
                 layer_output: Any = None, shape: Any = None):
        self._reuse_layer = reuse_layer
        self.param_map = map
        self.custom_func = custom
        self.auto_create_missing = auto_create_missing
        self.layer_output = layer_output
        self.shape = shape

    def __repr__(self) -> str:
        return f"<ReuseParams reuse_layer {self.reuse_layer!r}, map {self.param_map!r}>"

    @property
    def reuse_layer(self) -> Any:
        """The layer whose params are used (a lazily resolved one once it is constructed), or None"""
        if isinstance(self._reuse_layer, LazyLayer):
            try:
                self._reuse_layer = self._reuse_layer.get_layer()
            except NetworkConstructionDependencyLoopException:  # still under construction: the lazy one (its scope)
                return self._reuse_layer
        return self._reuse_layer

    # ---- from the layer dict
    @classmethod
    def from_config_dict(cls, opts: Any, network: Any, get_layer: Callable[[str], Any],
                         layer_name: str = "?", layer_class: str = "?") -> Optional[ReuseParams]:
        """:return: the spec of a layer dict's ``reuse_params`` (None for None), layer names resolved
        :raises LayerArgError: an unknown form or key"""
        def error(problem: str, got: Any) -> LayerArgError:
            return LayerArgError(layer=layer_name, layer_class=layer_class, arg="reuse_params", problem=problem,
                                 got=got, expected='a layer name, or a dict with keys from ' + ", ".join(_SPEC_KEYS)
                                 + ' (e.g. {"map": {"W": {"reuse_layer": "l1"}, "b": None}})')

        def resolve(name: Any) -> Any:
            if not isinstance(name, str):
                return name  # a layer already
            return _resolve_layer(name, network, get_layer)

        def parse(value: Any) -> Optional[ReuseParams]:
            if value is None:
                return None
            if isinstance(value, ReuseParams):
                return value
            if isinstance(value, str) or hasattr(value, "output"):
                return cls(reuse_layer=resolve(value))
            if not isinstance(value, dict):
                raise error("is not supported in this form:", value)
            unknown = sorted(set(value) - set(_SPEC_KEYS))
            if unknown:
                raise error(f"unknown key {unknown[0]!r} in", value)
            param_map = value.get("map")
            if param_map is not None:
                if not isinstance(param_map, dict):
                    raise error("'map' must be a dict param name -> spec, in", value)
                param_map = {key: parse(spec) or cls() for key, spec in param_map.items()}
            layer_output = value.get("layer_output")
            if isinstance(layer_output, str):
                layer_output = get_layer(layer_output)
            return cls(reuse_layer=resolve(value.get("reuse_layer")), map=param_map, custom=value.get("custom"),
                       auto_create_missing=bool(value.get("auto_create_missing", False)),
                       layer_output=layer_output, shape=value.get("shape"))

        return parse(opts)

    # ---- variable creation
    def get_variable(self, base_layer: Any, getter: Callable[..., Any], full_name: str, **kwargs: Any) -> Any:
        """The variable getter of a layer with this spec (installed on the layer's variable scope).

        :param base_layer: the layer asking for a param
        :param getter: TF's getter (takes the full name)
        :param full_name: ``"<layer scope>/<param name>"``
        :param kwargs: the other arguments of ``get_variable``
        :return: the variable (or tensor) to use as the param
        :raises LayerArgError: a param name the ``map`` does not have (without ``auto_create_missing``)
        """
        own_prefix = base_layer.get_absolute_name_scope_prefix()
        name = full_name[len(own_prefix):] if own_prefix and full_name.startswith(own_prefix) else full_name
        if self.custom_func is not None:
            reuse_layer = self.reuse_layer
            if isinstance(reuse_layer, LazyLayer):  # the function reads its params: a stand-in with them
                reuse_layer = reuse_layer.get_layer_for_params()
            return self.custom_func(base_layer=base_layer, reuse_layer=reuse_layer, full_name=full_name,
                                    name=name, getter=getter, **kwargs)
        if self.param_map is not None:
            if name not in self.param_map:
                if self.auto_create_missing:
                    return getter(full_name, **kwargs)
                raise LayerArgError(layer=base_layer.name, layer_class=base_layer.layer_class, arg="reuse_params",
                                    problem=f"the layer has a param {name!r} that the 'map' does not name:",
                                    got=sorted(self.param_map),
                                    hint=f'add "{name}": None (a new param) to the map, or set '
                                         '"auto_create_missing": True')
            return self.param_map[name].get_variable(base_layer, getter, full_name, **kwargs)
        if self.layer_output is not None:
            value = self.layer_output.output.placeholder
            shape = kwargs.get("shape")
            if shape is not None and not value.shape.is_compatible_with(tf.TensorShape(shape)):
                raise LayerArgError(layer=base_layer.name, layer_class=base_layer.layer_class, arg="reuse_params",
                                    problem=f"the output of layer {self.layer_output.name!r} does not fit param "
                                            f"{name!r}:", got=value.shape.as_list(), expected=list(shape))
            return value
        reuse_layer = self.reuse_layer
        if reuse_layer is not None:
            kwargs["reuse"] = tf.compat.v1.AUTO_REUSE
            return getter(reuse_layer.get_absolute_name_scope_prefix() + name, **kwargs)
        return getter(full_name, **kwargs)


def _resolve_layer(name: str, network: Any, get_layer: Callable[[str], Any]) -> Any:
    """:return: the layer ``name`` (as ``get_layer`` resolves it), or a :class:`LazyLayer` when it is under
    construction (it depends on the layer asking)"""
    # "base:x": the layer itself in the enclosing network (not a rec loop's tiled copy of its output)
    while name.startswith("base:") and network.parent_net is not None:
        network, name = network.parent_net, name[len("base:"):]
        get_layer = network.get_layer
    try:
        layer = get_layer(name)
    except NetworkConstructionDependencyLoopException as exc:
        return LazyLayer(name, network, get_layer, net_dict=exc.net_dict if exc.network is network else None)
    if not hasattr(layer, "output"):  # e.g. a rec unit's first template pass, which leaves out what it cannot build
        return LazyLayer(name, network, get_layer)
    return layer

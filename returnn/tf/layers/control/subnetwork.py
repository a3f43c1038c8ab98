"""``{"class": "subnetwork", "subnetwork": {...}, "from": [...]}``: a nested network dict.

Inside, ``"data"`` is the subnetwork's input (its sources, concatenated on the feature axis, with ``dropout``;
with ``concat_sources=False``, ``"data:0"``, ``"data:1"``, ... are the sources one by one, as the reference),
``"data:KEY"`` is extern data, ``"base:NAME"`` a layer of the enclosing network. The output is the inner
``"output"`` layer. Inner layers are also visible in the enclosing network as ``"<sub>/<inner>"`` (as the
reference lists them); their params are named ``<sub>/<inner>/<param>`` and appear in this layer's params as
``<inner>/<param>``; inner losses are collected as ``"<sub>/<inner>"``.

Inside the unit of a rec layer (as the reference): the rec layer first asks for templates only (no TF ops): the
inner layers' templates are built (``"data"`` is the input frame, ``"base:X"``/``"data:X"`` are resolved in the
unit). In the loop, the inner layers that carry a state from step to step (``rnn_cell``, ...) get it through this
layer's state, keys ``"<inner>/<key>"`` (e.g. ``"lstm0/c"``), so an LSTM language model in a subnetwork runs step
by step.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import Tensor
from returnn.tf.layers.core.internal import InternalLayer
from returnn.tf.layers.core.load_on_init import check_load_on_init, load_params_from_checkpoint
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.scope_names import scope_prefix_of
from returnn.tf.layers.core.sources import concat_sources, concat_sources_template
from returnn.tf.layers.core.spec import validate_layer_dict


class SubnetworkInputLayer(LayerBase):
    """The ``"data"`` layer inside a subnetwork: the concatenated sources of the subnetwork layer."""

    layer_class = "subnetwork_input"


def _has_rec_state(layer_class: Any, layer_desc: Dict[str, Any]) -> bool:
    """:return: whether a layer of this class carries a state from step to step in a rec loop (a ``rec`` layer only
    with a string unit)"""
    if not getattr(layer_class, "has_rec_state", False):
        return False
    return not (getattr(layer_class, "layer_class", None) == "rec" and not isinstance(layer_desc.get("unit", "lstm"), str))


def output_layer_names(subnet_dict: Dict[str, Any]) -> List[str]:
    """:return: the inner layers a subnetwork builds: ``output`` and those with a loss or ``is_output_layer``"""
    names = ["output"]
    for name, desc in sorted(subnet_dict.items()):
        if name != "output" and not name.startswith("#") and isinstance(desc, dict) \
                and (desc.get("loss") or desc.get("is_output_layer")):
            names.append(name)
    return names


class SubnetTemplate:
    """The templates of a subnetwork's layers (inside a rec unit, before the loop): ``templates`` inner name ->
    (layer class, transformed kwargs, output template), ``output`` the subnetwork's output template."""

    def __init__(self, name: str, subnet_dict: Dict[str, Any], network: Any, get_layer: Callable[[str], Any],
                 data: Optional[Tensor], name_scope: Optional[str] = None):
        from returnn.tf.network.tfnetwork import TFNetwork  # the network constructs layers: built on use

        self.name = name
        self.templates: Dict[str, Any] = {}
        net = TFNetwork(parent_net=network, absolute_name_prefix=network.get_absolute_name_prefix() + name + "/",
                        name=name, is_inside_rec_layer=network.is_inside_rec_layer(),
                        absolute_name_scope_prefix=scope_prefix_of(network.get_layer_scope_name(name, name_scope)))
        data_layer = InternalLayer(name="data", network=net, output=data) if data is not None else None
        stand_ins: Dict[str, LayerBase] = {}

        def resolve(src: str) -> Any:
            if src == "data" and data_layer is not None:
                return data_layer
            if src in subnet_dict:
                return construct(src)
            if "/" in src and src.split("/", 1)[0] in subnet_dict:
                return sub_layer_template(*src.split("/", 1))
            if src.startswith("base:"):
                return get_layer(src[len("base:"):])
            if src.startswith("data:"):
                return get_layer(src)
            raise LayerArgError(layer=f"{name}", layer_class="subnetwork", arg="subnetwork",
                                problem=f"layer {src!r} is not in the subnetwork", got=sorted(subnet_dict))

        def construct(inner: str) -> LayerBase:
            if inner in stand_ins:
                return stand_ins[inner]
            desc = subnet_dict[inner]
            layer_class = validate_layer_dict(f"{name}/{inner}", desc)
            d = {key: net.extern_data.map_user_dim(value) for key, value in desc.items()}  # config dims: the net's
            d.pop("class")
            d["name"] = inner
            d["network"] = net
            if issubclass(layer_class, SubnetworkLayer):
                d["_templates_only"] = True  # a nested subnetwork: its templates too, no layers built
            layer_class.transform_config_dict(d, network=net, get_layer=resolve)
            output = layer_class.get_out_data_from_opts(**d)
            self.templates[inner] = (layer_class, d, output)
            stand_ins[inner] = InternalLayer(name=inner, network=net, output=output)
            if hasattr(d.get("unit"), "layers"):  # a rec layer's unit templates (read by ``rec_last_output``)
                stand_ins[inner].cell = d["unit"]
            return stand_ins[inner]

        def sub_layer_template(parent: str, sub: str) -> LayerBase:
            full = f"{parent}/{sub}"
            if full not in stand_ins:
                construct(parent)
                layer_class, parent_kwargs, _ = self.templates[parent]
                output = layer_class.get_sub_layer_out_data_from_opts(sub, parent_kwargs)
                if output is None:
                    raise LayerArgError(layer=f"{name}", layer_class="subnetwork", arg="subnetwork",
                                        problem=f"layer {parent!r} ({layer_class.layer_class}) has no sub layer {sub!r}",
                                        got=sorted(subnet_dict))
                stand_ins[full] = InternalLayer(name=full, network=net, output=output)
            return stand_ins[full]

        net.set_layer_resolver(resolve)  # layers below asking this net (``base:X`` from a rec unit): the templates
        for inner in output_layer_names(subnet_dict):
            construct(inner)
        self.output = self.templates["output"][2]

    def stateful(self) -> List[str]:
        """:return: inner layers with a state in a rec loop"""
        return sorted(n for n, (cls, d, _) in self.templates.items() if _has_rec_state(cls, d))

    def initial_state(self, batch_size: tf.Tensor, param_scope: Optional[str]) -> Dict[str, tf.Tensor]:
        """:return: ``"<inner>/<key>"`` -> the state of the inner stateful layers at step 0"""
        result = {}
        for inner in self.stateful():
            cls, d, output = self.templates[inner]
            kwargs = {k: v for k, v in d.items() if k not in ("sources", "network", "name", "n_out")}
            init = cls.get_rec_initial_state(batch_size, name=inner, n_out=output.dim,
                                             param_scope=f"{param_scope}/{inner}" if param_scope else None, **kwargs)
            for key, value in init.items():
                result[f"{inner}/{key}"] = value
        return result


@register_layer
class SubnetworkLayer(LayerBase):
    """Runs a nested network dict; output = its ``"output"`` layer. In a rec loop, its state holds the states of
    the inner stateful layers (see module doc)."""

    layer_class = "subnetwork"
    recurrent = True  # depends on other frames (as the reference's class)
    has_rec_state = True  # in a rec loop: the inner layers' states ({} when none has one)

    def __init__(self, subnetwork: Dict[str, Any], concat_sources: bool = True, load_on_init: Any = None,
                 _subnet: Any = None, rec_previous_state: Optional[Dict[str, tf.Tensor]] = None, **kwargs: Any):
        """
        :param subnetwork: the nested network dict (layer name -> layer dict), with an ``"output"`` layer
        :param concat_sources: inside, ``"data"`` is the sources concatenated (default True); False: ``"data:0"``,
            ``"data:1"``, ... one by one
        :param load_on_init: checkpoint to load this layer's params from when it is built: a filename or ``{"filename":
            ...}``
        :param rec_previous_state: set by the rec loop, not in a config: this layer's state from the previous step
        """
        super().__init__(**kwargs)
        self.subnetwork = _subnet
        self.load_on_init = check_load_on_init(self.name, load_on_init)
        self.output.placeholder = _subnet.layers["output"].output.placeholder
        out_layer = _subnet.layers["output"]
        self.output_before_activation = out_layer.output_before_activation
        # as the reference (observed): the params in the subnetwork's scope, by their name there ("l/W"; with a
        # name_scope of an inner layer the name in that scope); those of inner layers with an absolute name_scope
        # elsewhere are not this layer's (the network lists them through the inner layer)
        scope_prefix = _subnet.get_absolute_name_scope_prefix()
        for layer_name, layer in _subnet.layers.items():
            own_scope = getattr(layer, "name_scope", None) is None  # the layer's scope is named after it
            for param_name, param in layer.params.items():
                full_name = param.name[:-2] if param.name.endswith(":0") else param.name
                if own_scope and full_name == layer.get_absolute_name_scope_prefix() + param_name:
                    self.params[f"{layer_name}/{param_name}"] = param
                elif full_name.startswith(scope_prefix):
                    self.params[full_name[len(scope_prefix):]] = param
        self.rec_state: Dict[str, tf.Tensor] = {}
        if rec_previous_state is not None:
            for layer_name, layer in sorted(_subnet.layers.items()):
                for key, value in (getattr(layer, "rec_state", None) or {}).items():
                    if f"{layer_name}/{key}" in rec_previous_state:
                        self.rec_state[f"{layer_name}/{key}"] = value

    def load_params_on_init(self, session: Any) -> None:
        """With ``load_on_init``: sets this layer's params (``<inner>/<param>``, e.g. ``l1/W``) from that checkpoint
        (see :func:`load_params_from_checkpoint`). :meth:`TFNetwork.initialize_params` calls it after the
        initializers."""
        if self.load_on_init is not None:
            load_params_from_checkpoint(self.name, self.load_on_init, self.params, session)

    def get_sub_layer(self, layer_name: str) -> Optional[LayerBase]:
        """:return: inner layer ``layer_name``; one the output does not need is built on this first request (as the
            reference: ``"sub/x"`` of an unused ``x``), its params added to this layer's; None if not described"""
        subnet = self.subnetwork
        if not hasattr(subnet, "layers"):  # templates only (inside a rec unit)
            return None
        if layer_name not in subnet.layers:
            base = layer_name.split("/", 1)[0]
            if base not in subnet.layers_desc or base.startswith("#"):
                return None
            layer = subnet.get_layer(layer_name)
            for inner_name, inner in list(subnet.layers.items()):
                self.network.layers.setdefault(f"{self.name}/{inner_name}", inner)
                for param_name, param in inner.params.items():
                    self.params.setdefault(f"{inner_name}/{param_name}", param)
            return layer
        return subnet.layers[layer_name]

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        """Builds the subnetwork (``d["_subnet"]``: a TFNetwork), or only its templates (a :class:`SubnetTemplate`)
        when the rec layer around it asks for templates, or a ``cond`` layer for its branch's template (it sets
        ``d["_templates_only"]``).

        :raises LayerArgError: no ``subnetwork`` dict with an ``output`` layer
        """
        super().transform_config_dict(d, network=network, get_layer=get_layer)
        from returnn.tf.network.tfnetwork import TFNetwork, absolute_variable_scope
        name = d["name"]
        subnet_dict = d.get("subnetwork")
        if not isinstance(subnet_dict, dict) or "output" not in subnet_dict:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="subnetwork",
                                problem="needs a dict with an 'output' layer:",
                                got=sorted(subnet_dict) if isinstance(subnet_dict, dict) else subnet_dict)
        sources = d.get("sources") or []
        if d.pop("_templates_only", False) or _is_template_construction(network, sources):
            data = concat_sources_template(sources, name=f"{name}/data", layer_class=cls.layer_class) \
                if sources else None
            d["_subnet"] = SubnetTemplate(name, subnet_dict, network, get_layer, data, name_scope=d.get("name_scope"))
            return
        prefix = network.get_absolute_name_prefix() + name + "/"
        scope_prefix = scope_prefix_of(network.get_layer_scope_name(name, d.get("name_scope")))  # its layers' scope
        subnet = TFNetwork(config=network.config, extern_data=network.extern_data, parent_net=network,
                           absolute_name_prefix=prefix, name=name, train_flag=network.train_flag,
                           rnd_seed=int(network.random.randint(2 ** 31)), absolute_name_scope_prefix=scope_prefix)
        if sources and d.get("concat_sources", True) is False:  # each source on its own: "data:0", "data:1", ...
            for i, src in enumerate(sources):
                out = src.output.copy(name=f"{name}/data:{i}")
                subnet.layers[f"data:{i}"] = SubnetworkInputLayer(name=f"data:{i}", network=subnet, output=out,
                                                                  sources=[src])
        elif sources:
            tmpl = concat_sources_template(sources, name=f"{name}/data", layer_class=cls.layer_class)
            with absolute_variable_scope(scope_prefix + "data"):
                tmpl.placeholder = concat_sources(sources, tmpl)
            subnet.layers["data"] = SubnetworkInputLayer(name="data", network=subnet, output=tmpl, sources=sources)
        state = d.get("rec_previous_state")
        if state is not None:  # one step of a rec loop: the inner stateful layers continue from their states
            subnet_dict = dict(subnet_dict)
            for inner, desc in list(subnet_dict.items()):
                prefix_key = inner + "/"
                if isinstance(desc, dict) and any(key.startswith(prefix_key) for key in state):
                    subnet_dict[inner] = {**desc, "rec_previous_state": {
                        key[len(prefix_key):]: value for key, value in state.items() if key.startswith(prefix_key)}}
        subnet.construct_from_dict(subnet_dict)
        subnet.construct_layer(subnet_dict, "output")
        for inner_name, layer in subnet.layers.items():
            if not sources or not (inner_name == "data" or isinstance(layer, SubnetworkInputLayer)):
                network.layers.setdefault(f"{name}/{inner_name}", layer)
        d["_subnet"] = subnet

    @classmethod
    def get_out_data_from_opts(cls, name: str, _subnet: Any = None, **kwargs: Any) -> Tensor:
        if isinstance(_subnet, SubnetTemplate):
            return _subnet.output.copy_template(name=f"{name}_output")
        return _subnet.layers["output"].output.copy_template(name=f"{name}_output")

    @classmethod
    def get_rec_initial_state(cls, batch_size: tf.Tensor, *, name: str, _subnet: Any = None,
                              param_scope: Optional[str] = None, **_kwargs: Any) -> Dict[str, tf.Tensor]:
        """:return: ``"<inner>/<key>"`` -> state at step 0 of the inner stateful layers (from the templates)"""
        if not isinstance(_subnet, SubnetTemplate):
            return {}
        return _subnet.initial_state(batch_size, param_scope)


def _is_template_construction(network: Any, sources: List[Any]) -> bool:
    """:return: whether the rec layer around asks for templates only: its sources have no raw tensors, or the
    network is a rec unit's template network (inside a rec layer, but not one step of its loop)"""
    if any(getattr(src.output, "placeholder", None) is None for src in sources):
        return True
    return bool(network.is_inside_rec_layer() and not network.have_rec_step_info())

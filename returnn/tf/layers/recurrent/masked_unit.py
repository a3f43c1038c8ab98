"""The ``unit`` of a ``masked_computation`` layer: a layer dict, or ``{"class": "subnetwork", "subnetwork": {...}}``.

A single layer dict becomes a layer with the *same name* as the ``masked_computation`` layer, in the same network
scope, so its params are the masked_computation layer's own (``<mc>/W``, ``<mc>/rec/lstm_cell/kernel``), as the
reference names them. A subnetwork unit's layers are ``<mc>/<inner>`` (params ``<mc>/<inner>/W``). Inside the unit,
``"data"`` is the masked input (the current frame in a loop, the selected frames otherwise); for a single layer,
other names are resolved where the masked_computation layer is (``"base:X"``, ``"prev:X"``, ...); inside a
subnetwork unit, ``"base:X"`` is layer ``X`` next to the masked_computation layer. Where the unit runs over the
selected frames (outside a loop, or moved out of it), such an outer layer on the mask's time axis is read on the
selected frames too (packed as the input), e.g. a transducer's masked label LSTM reading the encoder frame ``am``
of the loop: in the loop it sees ``am``'s frame at each selected step, so out of it the selected ``am`` frames.

In a rec loop, layers of the unit that carry a state (``rnn_cell``, ``rec`` with a string unit, nested
``masked_computation``) get it from the masked_computation layer's state: keys ``"<inner>/<key>"``.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import Tensor
from returnn.tf.layers.core.internal import InternalLayer
from returnn.tf.layers.core.scope_names import scope_prefix_of
from returnn.tf.layers.core.spec import validate_layer_dict
from returnn.tf.layers.recurrent.subnet.move_out import with_time_in_out_shape
from returnn.tf.layers.recurrent.subnet.template import TemplateLayer
from returnn.tf.ops.rnn.mask_pack import pack_masked


def layer_has_rec_state(layer_class: Any, kwargs: Dict[str, Any]) -> bool:
    """:return: whether a layer of this class with these (transformed) kwargs carries a state in a rec loop"""
    if not getattr(layer_class, "has_rec_state", False):
        return False
    return not (getattr(layer_class, "layer_class", None) == "rec" and not isinstance(kwargs.get("unit", "lstm"), str))


class MaskedUnit:
    """See the module docstring.

    :param mc_name: the masked_computation layer's name
    :param unit: the ``unit`` dict
    :param network: the masked_computation layer's network
    :param get_layer: resolves names in the masked_computation layer's network (from its transform_config_dict)
    :param name_scope: the masked_computation layer's ``name_scope``: that of a subnetwork unit's layers (``""``: the
        scope of the masked_computation layer's network, as the reference, observed)
    """

    def __init__(self, mc_name: str, unit: Any, network: Any, get_layer: Callable[[str], Any],
                 name_scope: Optional[str] = None):
        if not isinstance(unit, dict) or not isinstance(unit.get("class"), str):
            raise LayerArgError(layer=mc_name, layer_class="masked_computation", arg="unit", problem="invalid value",
                                got=unit, expected='a layer dict such as {"class": "linear", "n_out": 10}')
        self.mc_name = mc_name
        self.name_scope = name_scope  # the masked_computation layer's: the scope of a subnetwork unit's layers
        self.network = network
        self.get_layer = get_layer
        self.is_subnetwork = unit["class"] == "subnetwork"
        self.unit_dict: Dict[str, Any] = unit
        if self.is_subnetwork:
            sub_from = unit.get("from", "data")
            if sub_from not in ("data", ["data"], ("data",)) or not isinstance(unit.get("subnetwork"), dict) \
                    or "output" not in unit["subnetwork"]:
                raise LayerArgError(layer=mc_name, layer_class="masked_computation", arg="unit",
                                    problem="a subnetwork unit needs \"from\": \"data\" and a 'subnetwork' dict with "
                                            "an 'output' layer:", got=unit)
            self.net_dict: Dict[str, Dict[str, Any]] = unit["subnetwork"]
            self.prefix = network.get_absolute_name_prefix() + mc_name + "/"
            self.output_name = "output"
        else:
            self.net_dict = {mc_name: unit}
            self.prefix = network.get_absolute_name_prefix()
            self.output_name = mc_name
        self.templates: Dict[str, TemplateLayer] = {}
        self._construct_template: Optional[Callable[[str], TemplateLayer]] = None
        self.packed_dim: Any = None  # the new time dim of the selected frames (set with the output template)
        # while building on packed frames: the time dim the mask selects from, and (real construction) the
        # selected frames bool [B, T]; outer layers on that time dim are packed alike
        self._mask_time_dim: Any = None
        self._selected: Optional[tf.Tensor] = None
        self._packed_outer: Dict[str, Any] = {}

    def _new_net(self, one_step: bool) -> Any:
        from returnn.tf.network import TFNetwork
        scope = {}
        if self.is_subnetwork and self.name_scope is not None:  # e.g. "": the unit's layers in the network's scope
            scope["absolute_name_scope_prefix"] = scope_prefix_of(
                self.network.get_layer_scope_name(self.mc_name, self.name_scope))
        net = TFNetwork(parent_net=self.network, absolute_name_prefix=self.prefix,
                        name=f"{self.mc_name}(masked)", is_inside_rec_layer=one_step, **scope)
        net._debug_print_template = lambda *_args, **_kwargs: None  # the masked_computation layer prints its own
        if (not one_step and self._mask_time_dim is not None and self.packed_dim is not None
                and self.network.get_inside_rec_time_dim(inside_loop=False) == self._mask_time_dim):
            # moved out of a rec loop: the selected frames are the steps the unit runs in the loop (e.g. a cumsum
            # starts at its initial_output, as in the loop)
            net.rec_loop_dim = self.packed_dim
        return net

    def held_names(self) -> List[str]:
        """:return: the layers of a subnetwork unit besides its output (templates must be built), whose values
        the masked_computation layer holds where the mask is false (its sub layers ``"<mc>/<inner>"``)"""
        if not self.is_subnetwork:
            return []
        return sorted(name for name in self.templates if name != self.output_name)

    def initial_output(self, name: Optional[str] = None) -> Any:
        """:return: the ``initial_output`` of layer ``name`` of the unit (default: the unit itself, as the
        reference, observed: the value held before the first selected frame of a loop)"""
        if name is None or not self.is_subnetwork:
            return self.unit_dict.get("initial_output")
        return self.net_dict[name].get("initial_output")

    def _outer(self, name: str) -> Any:
        if self.is_subnetwork:
            if not name.startswith("base:"):
                raise LayerArgError(layer=self.mc_name, layer_class="masked_computation", arg="unit",
                                    problem=f"layer {name!r} is not in the subnetwork unit", got=sorted(self.net_dict))
            name = name[len("base:"):]
        layer = self.get_layer(name)
        out = layer.output
        if self._mask_time_dim is None or out.time_dim_axis is None or out.get_time_dim_tag() != self._mask_time_dim:
            return layer
        if name not in self._packed_outer:  # on the mask's time axis: its selected frames
            bm = out.copy_as_batch_major()
            packed = bm.copy_template_replace_dim(bm.time_dim_axis, self.packed_dim)
            if self._selected is None:  # templates
                self._packed_outer[name] = TemplateLayer(f"{name}:masked", self.network, packed)
            else:
                packed.placeholder = pack_masked(bm.placeholder, self._selected)[0]
                self._packed_outer[name] = InternalLayer(name=f"{name}:masked", network=self.network, output=packed)
        return self._packed_outer[name]

    # ---- templates (no TF ops)
    def build_templates(self, data: Tensor, one_step: bool, mask_time_dim: Any = None) -> Tensor:
        """:param data: template of the unit's input (a frame, or the selected frames with their new time dim)
        :param mask_time_dim: the time dim the mask selects from, when ``data`` are the packed selected frames
            (:attr:`packed_dim`): outer layers on it are read on the selected frames
        :return: template of the unit's output"""
        self.templates = {}
        self._mask_time_dim, self._selected, self._packed_outer = mask_time_dim, None, {}
        net = self._new_net(one_step)
        data_layer = TemplateLayer("data", net, data)

        def construct(name: str) -> Any:
            if name in self.templates:
                return self.templates[name]
            desc = self.net_dict[name]
            layer_class = validate_layer_dict(f"{self.mc_name}/{name}", desc)
            d = dict(desc)
            d.pop("class")
            d["name"] = name
            d["network"] = net
            layer_class.transform_config_dict(d, network=net, get_layer=get_layer)
            tmpl = TemplateLayer(name, net, layer_class.get_out_data_from_opts(**d), layer_class, desc, d)
            self.templates[name] = tmpl
            return tmpl

        def get_layer(name: str) -> Any:
            if name == "data":
                return data_layer
            if name in self.net_dict:
                return construct(name)
            return self._outer(name)

        self._construct_template = construct
        out = construct(self.output_name).output
        for name in self._output_layers():
            construct(name)
        return out

    def sub_template(self, name: str) -> Tensor:
        """:return: the template of layer ``name`` of a subnetwork unit, built on the input of the last
        :meth:`build_templates` (which must have run)"""
        return self._construct_template(name).output

    def _output_layers(self) -> List[str]:
        """:return: the layers of a subnetwork unit built besides its output: with ``is_output_layer`` or a loss"""
        if not self.is_subnetwork:
            return []
        return [name for name, desc in self.net_dict.items() if name != self.output_name and isinstance(desc, dict)
                and (desc.get("is_output_layer") or desc.get("loss"))]

    def stateful(self) -> List[str]:
        """:return: names of the unit's layers with a loop state (templates must be built)"""
        return [n for n, t in self.templates.items() if layer_has_rec_state(t.cls, t.kwargs)]

    def initial_state(self, batch_size: tf.Tensor) -> Dict[str, tf.Tensor]:
        """:return: ``"<inner>/<key>"`` -> the initial state of the unit's stateful layers, ``[B, ...]``"""
        result = {}
        for name in self.stateful():
            tmpl = self.templates[name]
            kwargs = {k: v for k, v in tmpl.kwargs.items() if k not in ("sources", "network", "name", "n_out")}
            init = tmpl.cls.get_rec_initial_state(batch_size, name=name, n_out=tmpl.output.dim, **kwargs)
            for key, value in init.items():
                result[f"{name}/{key}"] = value
        return result

    # ---- real construction
    def build(self, data: Tensor, one_step: bool, state: Optional[Dict[str, tf.Tensor]] = None,
              mask_time_dim: Any = None, selected: Optional[tf.Tensor] = None, extra: Sequence[str] = ()) -> Any:
        """Constructs the unit's layers on ``data`` (with raw tensor).

        :param state: in a loop: ``"<inner>/<key>"`` -> previous state (see :meth:`initial_state`)
        :param mask_time_dim: as for :meth:`build_templates`, with ``selected`` (bool ``[B, T]``) the frames
        :param extra: layers of a subnetwork unit to build besides the output and the output layers
        :return: the unit's output layer; :attr:`layers` holds all its layers
        """
        self._mask_time_dim, self._selected, self._packed_outer = mask_time_dim, selected, {}
        net = self._new_net(one_step)
        net.layers["data"] = InternalLayer(name="data", network=net, output=data)
        stateful = set(self.stateful()) if one_step else set()
        net_dict = {}
        for name, desc in self.net_dict.items():
            # moved out of a rec loop, the unit runs over the selected frames: an out_shape (per step) also has their
            # dim, as a layer moved out of a loop (as the reference, observed: a subnetwork unit's rec layer with
            # out_shape {B, F})
            desc = dict(with_time_in_out_shape(desc, net.rec_loop_dim))
            if name in stateful:
                desc["rec_previous_state"] = {key[len(name) + 1:]: value for key, value in (state or {}).items()
                                              if key.startswith(name + "/")}
            net_dict[name] = desc

        def get_layer(name: str) -> Any:
            if name in net.layers:
                return net.layers[name]
            if name in net_dict:
                return net.construct_layer(net_dict, name, get_layer=get_layer)
            return self._outer(name)

        self._build_get_layer = get_layer
        out = get_layer(self.output_name)
        for name in self._output_layers() + list(extra):
            get_layer(name)
        self.layers = {n: layer for n, layer in net.layers.items() if n != "data"}
        self.sub_layer = out
        if self.is_subnetwork:  # the unit as one layer (the reference's attribute): a subnetwork layer around them
            from returnn.tf.layers.control.subnetwork import SubnetworkLayer
            self.sub_layer = SubnetworkLayer(name=self.mc_name, network=self.network, output=out.output.copy(),
                                             sources=[net.layers["data"]], subnetwork=self.net_dict, _subnet=net)
        self.new_state = {}
        for name in stateful:
            for key, value in self.layers[name].rec_state.items():
                self.new_state[f"{name}/{key}"] = value
        return out

    def build_more(self, name: str) -> Any:
        """:return: layer ``name`` of the unit, built now (after :meth:`build`) in the same network"""
        layer = self._build_get_layer(name)
        self.layers[name] = layer
        return layer

    def params(self) -> Dict[str, tf.Variable]:
        """:return: the params of the built unit, named relative to the masked_computation layer"""
        result = {}
        for name, layer in self.layers.items():
            for key, param in layer.params.items():
                result[f"{name}/{key}" if self.is_subnetwork else key] = param
        return result

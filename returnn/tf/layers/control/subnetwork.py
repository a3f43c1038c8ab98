"""``{"class": "subnetwork", "subnetwork": {...}, "from": [...]}``: a nested network dict.

Inside, ``"data"`` is the subnetwork's input (its sources, concatenated on the feature axis, with ``dropout``),
``"data:KEY"`` is extern data, ``"base:NAME"`` a layer of the enclosing network. The output is the inner
``"output"`` layer. Inner layers are also visible in the enclosing network as ``"<sub>/<inner>"`` (as the
reference lists them); their params are named ``<sub>/<inner>/<param>`` and appear in this layer's params as
``<inner>/<param>``; inner losses are collected as ``"<sub>/<inner>"``.
"""

from __future__ import annotations

from typing import Any, Dict

from returnn.errors import LayerArgError
from returnn.tensor import Tensor
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources, concat_sources_template


class SubnetworkInputLayer(LayerBase):
    """The ``"data"`` layer inside a subnetwork: the concatenated sources of the subnetwork layer."""

    layer_class = "subnetwork_input"


@register_layer
class SubnetworkLayer(LayerBase):
    """Runs a nested network dict; output = its ``"output"`` layer."""

    layer_class = "subnetwork"

    def __init__(self, subnetwork: Dict[str, Any], concat_sources: bool = True, load_on_init: Any = None,
                 _subnet: Any = None, **kwargs: Any):
        super().__init__(**kwargs)
        self.subnetwork = _subnet
        self.output.placeholder = _subnet.layers["output"].output.placeholder
        out_layer = _subnet.layers["output"]
        self.output_before_activation = out_layer.output_before_activation
        for layer_name, layer in _subnet.layers.items():
            for param_name, param in layer.params.items():
                self.params[f"{layer_name}/{param_name}"] = param

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        super().transform_config_dict(d, network=network, get_layer=get_layer)
        from returnn.tf.network.tfnetwork import TFNetwork, absolute_variable_scope
        name = d["name"]
        subnet_dict = d.get("subnetwork")
        if not isinstance(subnet_dict, dict) or "output" not in subnet_dict:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="subnetwork",
                                problem="needs a dict with an 'output' layer:",
                                got=sorted(subnet_dict) if isinstance(subnet_dict, dict) else subnet_dict)
        prefix = network.get_absolute_name_prefix() + name + "/"
        subnet = TFNetwork(config=network.config, extern_data=network.extern_data, parent_net=network,
                           absolute_name_prefix=prefix, name=name, train_flag=network.train_flag,
                           rnd_seed=int(network.random.randint(2 ** 31)))
        sources = d.get("sources") or []
        if sources:
            tmpl = concat_sources_template(sources, name=f"{name}/data", layer_class=cls.layer_class)
            with absolute_variable_scope(prefix + "data"):
                tmpl.placeholder = concat_sources(sources, tmpl)
            subnet.layers["data"] = SubnetworkInputLayer(name="data", network=subnet, output=tmpl, sources=sources)
        subnet.construct_from_dict(subnet_dict)
        subnet.construct_layer(subnet_dict, "output")
        for inner_name, layer in subnet.layers.items():
            if inner_name != "data" or not sources:
                network.layers.setdefault(f"{name}/{inner_name}", layer)
        d["_subnet"] = subnet

    @classmethod
    def get_out_data_from_opts(cls, name: str, _subnet: Any = None, **kwargs: Any) -> Tensor:
        return _subnet.layers["output"].output.copy_template(name=f"{name}_output")

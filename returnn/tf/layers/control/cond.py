"""``{"class": "cond", "condition": "c", "true_layer": {...}, "false_layer": {...}}``: one of two layers, chosen at
run time by a scalar bool (the reference's CondLayer; observed from it).

``true_layer`` and ``false_layer`` are layer dicts (``from`` etc. resolved in this layer's network). Both are built
as layers with *this layer's name*, each in a network of its own (``"<name>(true_layer)"``,
``"<name>(false_layer)"``) that resolves names as this layer's network does, so their params are this layer's
(``<name>/W``, a subnetwork's ``<name>/<inner>/W``) and the two branches share the params they have in common (as
the reference). Each branch is built inside its ``tf.cond`` branch, so only the chosen one runs; the built layers
are :attr:`CondLayer.true_layer` and :attr:`CondLayer.false_layer`. The output template is the true branch's (its
template is computed before, without building it: a subnetwork's inner layers give templates only); the false
branch must give the same shape.

Sub layers: ``"<name>/<inner>"`` for an inner layer that both branches (subnetworks) build anyway (their
``output``, layers with ``is_output_layer`` or a loss) is the chosen branch's ``<inner>``.

Dynamic dims of the output computed from other dims (``2 * time``) get their lengths outside of the branches, so
they are valid after the cond.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional

import tensorflow as tf

from returnn.errors import LayerArgError, LayerShapeError
from returnn.tensor import Tensor
from returnn.tf.layers.control.subnetwork import output_layer_names
from returnn.tf.layers.core.internal import InternalLayer
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.spec import validate_layer_dict


class _Branch:
    """One branch: a layer dict built as a layer named like the cond layer, in a network of its own whose names
    resolve as in the cond layer's network."""

    def __init__(self, cond_name: str, arg: str, desc: Any, network: Any, get_layer: Callable[[str], Any]):
        if not isinstance(desc, dict) or not isinstance(desc.get("class"), str):
            raise LayerArgError(layer=cond_name, layer_class="cond", arg=arg, problem="invalid value", got=desc,
                                expected='a layer dict such as {"class": "linear", "n_out": 10, "from": "data"}')
        self.name, self.arg, self.desc, self.network, self.get_layer = cond_name, arg, desc, network, get_layer
        self.layer: Optional[LayerBase] = None

    def _net(self) -> Any:
        from returnn.tf.network import TFNetwork
        net = TFNetwork(parent_net=self.network, absolute_name_prefix=self.network.get_absolute_name_prefix(),
                        name=f"{self.name}({self.arg})", is_inside_rec_layer=self.network.is_inside_rec_layer())
        net.set_layer_resolver(self.get_layer)  # "base:x", "data", other layers: as in the cond layer's network
        net._debug_print_template = lambda *_args, **_kwargs: None  # the cond layer prints its own
        # the branch is in the cond layer's network: names (also "base:x" of a subnetwork branch) resolve there
        net.set_layer_resolver(self.get_layer)
        return net

    def template(self) -> Tensor:
        """:return: the branch's output template, without building its layer (a subnetwork gives its inner layers'
        templates only)"""
        layer_class = validate_layer_dict(f"{self.name}/{self.arg}", self.desc)
        net = self._net()
        d = {key: net.extern_data.map_user_dim(value) for key, value in self.desc.items()}
        d.pop("class")
        d["name"] = self.name
        d["network"] = net
        if layer_class.layer_class == "subnetwork":
            d["_templates_only"] = True
        layer_class.transform_config_dict(d, network=net, get_layer=self.get_layer)
        return layer_class.get_out_data_from_opts(**d)

    def sub_layer_names(self) -> List[str]:
        """:return: for a subnetwork: the inner layers it builds anyway, except ``output``; else none"""
        subnet = self.desc.get("subnetwork") if self.desc.get("class") == "subnetwork" else None
        if not isinstance(subnet, dict):
            return []
        return [name for name in output_layer_names(subnet) if name != "output"]

    def build(self, reuse_from: Optional[LayerBase] = None) -> LayerBase:
        net = self._net()
        desc = dict(self.desc)
        if reuse_from is not None:  # the same variable scope; shared params reused, others created
            desc["reuse_params"] = reuse_from
        self.layer = net.construct_layer({self.name: desc}, self.name, get_layer=self.get_layer)
        return self.layer


def _compatible(layer: LayerBase, template: Tensor, cond_name: str, what: str) -> tf.Tensor:
    """:return: the raw output of ``layer`` in the layout of ``template``
    :raises LayerShapeError: other dims"""
    out = layer.output
    if out.batch_ndim != template.batch_ndim or sorted(
            str(d.dimension) for d in out.dims) != sorted(str(d.dimension) for d in template.dims):
        raise LayerShapeError(layer=cond_name, layer_class="cond",
                              problem=f"the {what} has another shape than the true_layer",
                              expected=template.get_dims_repr(), got=out.get_dims_repr())
    if out.dims != template.dims:
        out = out.copy_compatible_to(template)
    return out.placeholder


def _lengths_outside(template: Tensor) -> None:
    """Computes (once) the lengths of the template's dynamic dims that are derived from other dims here, outside
    of the branches, so that the tensors stay valid after the cond"""
    for dim in template.dims:
        if dim.dimension is None and not dim.is_batch_dim():
            _ = dim.dyn_size


@register_layer
class CondLayer(LayerBase):
    """See the module docstring.

    :param condition: layer name (or layer dict, built first), a scalar bool (no batch axis)
    :param true_layer: layer dict computed when the condition is true
    :param false_layer: layer dict computed otherwise
    :raises LayerArgError: a condition that is not a scalar bool; branches that are not layer dicts
    :raises LayerShapeError: branches with different output shapes
    """

    layer_class = "cond"
    recurrent = True  # depends on other frames (as the reference's class)

    def __init__(self, condition: Any, true_layer: Any, false_layer: Any, _branches: Any = None, **kwargs: Any):
        super().__init__(**kwargs)
        true_branch, false_branch = _branches
        template = self.output
        false_names = set(false_branch.sub_layer_names())
        extra_names = [name for name in true_branch.sub_layer_names() if name in false_names]
        extra_templates: Dict[str, Tensor] = {}
        _lengths_outside(template)

        def true_fn() -> List[tf.Tensor]:
            layer = true_branch.build()
            results = [_compatible(layer, template, self.name, "true_layer")]
            for name in extra_names:
                sub = layer.get_sub_layer(name)
                extra_templates[name] = sub.output.copy_template(name=f"{self.name}/{name}_output")
                results.append(sub.output.placeholder)
            return results

        def false_fn() -> List[tf.Tensor]:
            layer = false_branch.build(reuse_from=true_branch.layer)
            results = [_compatible(layer, template, self.name, "false_layer")]
            for name in extra_names:
                results.append(_compatible(layer.get_sub_layer(name), extra_templates[name], self.name,
                                           f"false_layer's {name!r}"))
            return results

        cond_raw = tf.cast(condition.output.placeholder, tf.bool)
        raws = tf.cond(cond_raw, true_fn, false_fn)
        raws = list(raws) if isinstance(raws, (list, tuple)) else [raws]
        raws[0].set_shape(template.batch_shape)
        self.output.placeholder = raws[0]
        self.condition_layer: LayerBase = condition
        self.true_layer: LayerBase = true_branch.layer
        self.false_layer: LayerBase = false_branch.layer
        self._sub_layers: Dict[str, InternalLayer] = {}
        for name, raw in zip(extra_names, raws[1:]):
            out = extra_templates[name]
            raw.set_shape(out.batch_shape)
            out.placeholder = raw
            self._sub_layers[name] = InternalLayer(name=f"{self.name}/{name}", network=self.network, output=out,
                                                   sources=[self])
        for branch in (true_branch, false_branch):
            self.params.update(branch.layer.params)

    def get_sub_layer(self, layer_name: str) -> Optional[LayerBase]:
        """:return: ``"<inner>"``: the chosen branch's inner layer (see module doc), or None"""
        return self._sub_layers.get(layer_name)

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        """Resolves ``condition``; prepares the branches (``_branches``)."""
        d.setdefault("from", [])
        super().transform_config_dict(d, network=network, get_layer=get_layer)
        name = d["name"]
        condition = d.get("condition")
        if isinstance(condition, dict):  # a layer dict: built before the branches (as the reference)
            d["condition"] = _Branch(name, "condition", condition, network, get_layer).build()
        elif isinstance(condition, str):
            d["condition"] = get_layer(condition)
        else:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="condition",
                                problem="missing required argument (a layer name or layer dict)", got=condition)
        d["_branches"] = (_Branch(name, "true_layer", d.get("true_layer"), network, get_layer),
                          _Branch(name, "false_layer", d.get("false_layer"), network, get_layer))

    @classmethod
    def get_out_data_from_opts(cls, name: str, condition: Any = None, _branches: Any = None,
                               **kwargs: Any) -> Tensor:
        """:return: the true branch's template
        :raises LayerArgError: a condition that is not a scalar bool"""
        cond = condition.output
        if cond.batch_ndim != 0 or cond.dtype != "bool":
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="condition",
                                problem="must be a scalar bool layer:",
                                got=f"{condition.name!r} {cond.get_dims_repr()} {cond.dtype}",
                                hint='e.g. a "reduce" over all axes followed by a "compare"')
        return _branches[0].template().copy_template(name=f"{name}_output")

"""``{"class": "cond", "condition": "c", "true_layer": {...}, "false_layer": {...}}``: one of two layers, chosen at
run time by a scalar bool (the reference's CondLayer; observed from it).

``true_layer`` and ``false_layer`` are layer dicts (``from`` etc. resolved in this layer's network). Both are built
as layers with *this layer's name*, so their params are this layer's and the two branches share the params they
have in common (as the reference: two ``linear`` branches use the same ``<name>/W``). Each branch is computed
inside its ``tf.cond`` branch, so only the chosen one runs; the output template is the true branch's (the false
branch must give the same shape).
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Optional

import tensorflow as tf

from returnn.errors import LayerArgError, LayerShapeError
from returnn.tensor import Tensor
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.spec import validate_layer_dict


class _Branch:
    """One branch: a layer dict built as a layer named like the cond layer, in the same network scope."""

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
        net._debug_print_template = lambda *_args, **_kwargs: None  # the cond layer prints its own
        # the branch is in the cond layer's network: names (also "base:x" of a subnetwork branch) resolve there
        net.set_layer_resolver(self.get_layer)
        return net

    def template(self) -> Tensor:
        layer_class = validate_layer_dict(f"{self.name}/{self.arg}", self.desc)
        d = dict(self.desc)
        d.pop("class")
        d["name"] = self.name
        d["network"] = self._net()
        layer_class.transform_config_dict(d, network=d["network"], get_layer=self.get_layer)
        return layer_class.get_out_data_from_opts(**d)

    def build(self, reuse_from: Optional[LayerBase] = None) -> LayerBase:
        net = self._net()
        desc = dict(self.desc)
        if reuse_from is not None:  # the same variable scope; shared params reused, others created
            desc["reuse_params"] = reuse_from
        self.layer = net.construct_layer({self.name: desc}, self.name, get_layer=self.get_layer)
        return self.layer


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

        def branch_fn(branch: _Branch, reuse_from: Any) -> Callable[[], tf.Tensor]:
            def fn() -> tf.Tensor:
                out = branch.build(reuse_from() if reuse_from else None).output
                if out.batch_ndim != template.batch_ndim or sorted(
                        str(d.dimension) for d in out.dims) != sorted(str(d.dimension) for d in template.dims):
                    raise LayerShapeError(layer=self.name, layer_class=self.layer_class,
                                          problem=f"the {branch.arg} has another shape than the true_layer",
                                          expected=template.get_dims_repr(), got=out.get_dims_repr())
                if out.dims != template.dims:
                    out = out.copy_compatible_to(template)
                return out.placeholder
            return fn

        cond_raw = tf.cast(condition.output.placeholder, tf.bool)
        raw = tf.cond(cond_raw, branch_fn(true_branch, None), branch_fn(false_branch, lambda: true_branch.layer))
        raw.set_shape(template.batch_shape)
        self.output.placeholder = raw
        for branch in (true_branch, false_branch):
            self.params.update(branch.layer.params)

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

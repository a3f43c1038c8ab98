"""``{"class": "switch", "condition": <layer|bool>, "true_from": <layer|value>, "false_from": <layer|value>}``:
elementwise ``tf.where``; shape: broadcast of the inputs. A Python bool condition selects one branch: only that one is
built (a layer: its output; a constant: a scalar), as the reference (observed)."""

from __future__ import annotations

from typing import Any, Dict, List

import tensorflow as tf

from returnn.errors import LayerArgError
from returnn.tensor import Tensor
from returnn.tf.layers.core.broadcast import align_raw, common_template
from returnn.tf.layers.core.layer_base import LayerBase
from returnn.tf.layers.core.registry import register_layer


def _is_layer(x: Any) -> bool:
    """:return: whether ``x`` is a layer, or its stand-in while a ``rec`` unit's templates are built"""
    return isinstance(x, LayerBase) or isinstance(getattr(x, "output", None), Tensor)


@register_layer
class SwitchLayer(LayerBase):
    """``where(condition, true_from, false_from)``."""

    layer_class = "switch"

    def __init__(self, condition: Any, true_from: Any, false_from: Any, **kwargs: Any):
        """
        :param condition: a bool layer, or a Python bool that picks one branch (in the layer dict also a function,
            see :meth:`transform_config_dict`)
        :param true_from: layer or constant where the condition is true
        :param false_from: layer or constant where the condition is false
        """
        super().__init__(**kwargs)
        # the layers it reads: with a Python bool condition only the chosen branch (as the reference, observed)
        self._branch_layers = [condition, true_from, false_from] if not isinstance(condition, bool) else [
            true_from if condition else false_from]
        out = self.output

        def raw(x: Any) -> tf.Tensor:
            if _is_layer(x):
                return tf.cast(align_raw(x.output, out, name=self.name), out.dtype)
            return tf.constant(x, dtype=out.dtype)

        if isinstance(condition, bool):
            chosen = true_from if condition else false_from
            self.output.placeholder = raw(chosen)  # a constant: a scalar (as the reference, observed)
            return
        cond = align_raw(condition.output, out, name=self.name)
        t, f = raw(true_from), raw(false_from)
        shape = tf.broadcast_dynamic_shape(tf.broadcast_dynamic_shape(tf.shape(cond), tf.shape(t)), tf.shape(f))
        self.output.placeholder = tf.where(tf.broadcast_to(cond, shape), tf.broadcast_to(t, shape),
                                           tf.broadcast_to(f, shape))

    def get_dep_layers(self) -> List[LayerBase]:
        """:return: the sources and the layers among ``condition``, ``true_from``, ``false_from``"""
        return super().get_dep_layers() + [x for x in self._branch_layers if _is_layer(x)]

    @classmethod
    def transform_config_dict(cls, d: Dict[str, Any], network: Any, get_layer: Any) -> None:
        """Resolves the layer names; a callable ``condition`` is called, as the reference (observed), with the layer
        dict's entries and ``network``, ``get_layer`` as keyword arguments, and gives the condition (a bool or a
        layer name).

        :raises LayerArgError: a callable condition returning something else
        """
        d.setdefault("from", [])
        if callable(d.get("condition")):
            value = d["condition"](**{**d, "network": network, "get_layer": get_layer})
            if not isinstance(value, (bool, str)):
                raise LayerArgError(layer=d.get("name") or d.get("_name"), layer_class=cls.layer_class,
                                    arg="condition", problem="the function returned an invalid value", got=value,
                                    expected="a bool or a layer name")
            d["condition"] = value
        super().transform_config_dict(d, network=network, get_layer=get_layer)
        keys = ("condition", "true_from", "false_from")
        if isinstance(d.get("condition"), bool):
            # as the reference (observed): only the chosen branch is built (and is a dependency); the other one
            # stays a name and is not used
            keys = ("true_from",) if d["condition"] else ("false_from",)
        for key in keys:
            if isinstance(d.get(key), str):
                d[key] = get_layer(d[key])

    @classmethod
    def get_out_data_from_opts(cls, name: str, network: Any = None, condition: Any = None, true_from: Any = None,
                               false_from: Any = None, **kwargs: Any) -> Tensor:
        if condition is None or true_from is None or false_from is None:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="condition",
                                problem="needs condition, true_from and false_from")
        if isinstance(condition, bool):
            chosen = true_from if condition else false_from
            if _is_layer(chosen):
                return chosen.output.copy_template(name=f"{name}_output")
            # a constant: a scalar, as the reference (observed: ``[]`` float32 for ``0.5``)
            value = tf.constant(chosen)
            return Tensor(name=f"{name}_output", shape=(), batch_dim_axis=None, time_dim_axis=None,
                          dtype="float32" if value.dtype.is_floating else value.dtype.name)
        layers = [x for x in (true_from, false_from) if _is_layer(x)]
        if not isinstance(condition, bool):
            if not _is_layer(condition):
                raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="condition", problem="invalid value",
                                    got=condition, expected="a layer name or a bool")
        if not layers:
            if isinstance(condition, bool):
                raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="true_from",
                                    problem="needs at least one layer among condition/true_from/false_from")
            out = condition.output.copy_template(name=f"{name}_output")
            out.dtype = "float32"
            return out
        templates = [x.output for x in layers]
        if not isinstance(condition, bool):
            templates.append(condition.output)
        out = common_template(templates, name=name, layer_class=cls.layer_class)
        out.dtype = layers[0].output.dtype
        out.sparse_dim = layers[0].output.sparse_dim
        return out


"""``{"class": "activation", "activation": "relu"}``: elementwise activation of the (concatenated) input."""

from __future__ import annotations

from typing import Any, Callable, Dict, Optional

import tensorflow as tf

from returnn.errors import LayerArgError, LayerShapeError, UnknownNameError
from returnn.tensor import Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template
from returnn.tf.ops.activations import amp_pointwise, check_activation_name, get_activation_function
from returnn.tf.ops.output_with_activation import OutputWithActivation


@register_layer
class ActivationLayer(ConcatInputLayer):
    """Shape unchanged; see :mod:`returnn.tf.ops.activations` for names (``"2*sigmoid"``, ``"relu+tanh"``)."""

    layer_class = "activation"

    def __init__(self, activation: str, opts: Optional[Dict[str, Any]] = None, **kwargs: Any):
        """:param activation: a name, or names joined by ``+`` (applied in order), each optionally ``<factor>*``
        :param opts: keyword arguments of the activation function (one name only), as the reference, e.g.
            ``{"activation": "safe_log", "opts": {"eps": 1e-10}}``
        """
        super().__init__(**kwargs)
        inp = self.input_data
        axis = inp.feature_dim_axis
        last = inp.batch_ndim - 1
        x = inp.placeholder
        if axis is not None and axis != last:  # activations like softmax work on the last axis
            x = inp.copy_move_axis(axis, -1).placeholder
        fn = get_activation_function(activation)
        if opts:
            fn = _with_opts(fn, opts, name=self.name, layer_class=self.layer_class)
        elif amp_pointwise(activation, self.network.amp.dtype) and x is inp.placeholder:
            amp = self.network.amp  # tf_amp: on a product's result, in the compute dtype (cast after it)
            plain = fn
            fn = lambda t: amp.pointwise(plain, t)  # noqa: E731
        act = OutputWithActivation(x, fn)
        if axis is not None and axis != last:
            perm = list(range(last))
            perm.insert(axis, last)
            act.x, act.y = tf.transpose(act.x, perm), tf.transpose(act.y, perm)
        self.output_before_activation = act
        self.output.placeholder = tf.identity(act.y)

    @classmethod
    def get_out_data_from_opts(cls, name: str, activation: str, sources: Any = (), opts: Any = None,
                               **kwargs: Any) -> Tensor:
        """:raises LayerArgError: unknown activation; ``opts`` not a dict, or with a composed activation"""
        try:
            check_activation_name(activation)
        except (UnknownNameError, ValueError) as exc:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="activation", problem="invalid value",
                                got=activation, hint=str(exc).split("\n")[0]) from None
        if opts is not None and not isinstance(opts, dict):
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="opts", problem="invalid value",
                                got=opts, expected="a dict of keyword arguments of the activation function")
        if opts and ("+" in activation or "*" in activation):
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="opts",
                                problem="needs a single activation name (not a composition):", got=activation)
        out = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        if out.sparse:
            raise LayerShapeError(layer=name, layer_class=cls.layer_class, problem="needs a dense input, got sparse",
                                  got=repr(out), hint="embed the sparse input with a linear layer first")
        return out


def _with_opts(fn: Callable[..., tf.Tensor], opts: Dict[str, Any], *, name: str, layer_class: str) -> Callable:
    """:return: ``x -> fn(x, **opts)``; the options are checked once here
    :raises LayerArgError: ``fn`` does not take one of the options"""
    import inspect

    try:
        inspect.signature(fn).bind(None, **opts)
    except TypeError as exc:
        raise LayerArgError(layer=name, layer_class=layer_class, arg="opts", problem="not accepted by the activation "
                            f"function: {exc}", got=opts) from None
    except ValueError:  # no signature (a builtin): TensorFlow reports a wrong option when called
        pass
    return lambda x: fn(x, **opts)

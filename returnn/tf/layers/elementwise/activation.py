"""``{"class": "activation", "activation": "relu"}``: elementwise activation of the (concatenated) input."""

from __future__ import annotations

from typing import Any

import tensorflow as tf

from returnn.errors import LayerArgError, LayerShapeError, UnknownNameError
from returnn.tensor import Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.layer_base import OutputWithActivation
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template
from returnn.tf.ops.activations import check_activation_name, get_activation_function


@register_layer
class ActivationLayer(ConcatInputLayer):
    """Shape unchanged; see :mod:`returnn.tf.ops.activations` for names (``"2*sigmoid"``, ``"relu+tanh"``)."""

    layer_class = "activation"

    def __init__(self, activation: str, **kwargs: Any):
        super().__init__(**kwargs)
        inp = self.input_data
        axis = inp.feature_dim_axis
        last = inp.batch_ndim - 1
        x = inp.placeholder
        if axis is not None and axis != last:  # activations like softmax work on the last axis
            x = inp.copy_move_axis(axis, -1).placeholder
        act = OutputWithActivation(x, get_activation_function(activation))
        if axis is not None and axis != last:
            perm = list(range(last))
            perm.insert(axis, last)
            act.x, act.y = tf.transpose(act.x, perm), tf.transpose(act.y, perm)
        self.output_before_activation = act
        self.output.placeholder = tf.identity(act.y)

    @classmethod
    def get_out_data_from_opts(cls, name: str, activation: str, sources: Any = (), **kwargs: Any) -> Tensor:
        try:
            check_activation_name(activation)
        except (UnknownNameError, ValueError) as exc:
            raise LayerArgError(layer=name, layer_class=cls.layer_class, arg="activation", problem="invalid value",
                                got=activation, hint=str(exc).split("\n")[0]) from None
        out = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        if out.sparse:
            raise LayerShapeError(layer=name, layer_class=cls.layer_class, problem="needs a dense input, got sparse",
                                  got=repr(out), hint="embed the sparse input with a linear layer first")
        return out

"""``{"class": "gating", "activation": "identity", "gate_activation": "sigmoid"}``: GLU-style gating.

Shape: ``{B, T, 2n} -> {B, T, n}``: the (concatenated) input's feature axis is split into halves ``a`` (first) and
``g`` (second); the output is ``activation(a) * gate_activation(g)``. The output feature dim is
``in_feature // 2`` (``'feature:data//2'``, as the reference); a given ``out_dim`` is declared the same. No params.

Errors: an odd or unknown feature dim, a sparse input (:class:`LayerShapeError`).
"""

from __future__ import annotations

from typing import Any, Optional

import tensorflow as tf

from returnn.errors import LayerShapeError
from returnn.tensor import Dim, Tensor
from returnn.tf.layers.core.concat_input import ConcatInputLayer
from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.core.sources import concat_sources_template
from returnn.tf.layers.shape._derived_dims import dim_floordiv
from returnn.tf.ops.activations import amp_pointwise, check_activation_name, get_activation_function


@register_layer
class GatingLayer(ConcatInputLayer):
    """``activation(first half) * gate_activation(second half)`` over the feature axis."""

    layer_class = "gating"

    def __init__(self, activation: Optional[str], gate_activation: str = "sigmoid", out_dim: Optional[Dim] = None,
                 **kwargs: Any):
        """
        :param activation: activation of the first half (None: identity)
        :param gate_activation: activation of the second half, the gate (default ``sigmoid``)
        """
        super().__init__(out_dim=out_dim, **kwargs)
        inp = self.input_data
        act = get_activation_function(activation) or tf.identity
        gate_act = get_activation_function(gate_activation) or tf.identity

        def glu(x: tf.Tensor) -> tf.Tensor:
            a, g = tf.split(x, 2, axis=inp.feature_dim_axis)
            return act(a) * gate_act(g)

        dtype = self.network.amp.dtype
        if amp_pointwise(activation, dtype) and amp_pointwise(gate_activation, dtype):
            # tf_amp: on a product's result, in the compute dtype (cast after it)
            self.output.placeholder = self.network.amp.pointwise(glu, inp.placeholder)
        else:
            self.output.placeholder = glu(inp.placeholder)

    @classmethod
    def get_out_data_from_opts(cls, name: str, sources: Any = (), activation: Optional[str] = None,
                               gate_activation: str = "sigmoid", out_dim: Optional[Dim] = None,
                               **kwargs: Any) -> Tensor:
        """:raises UnknownNameError: unknown activation
        :raises LayerShapeError: odd/unknown feature dim"""
        check_activation_name(activation)
        check_activation_name(gate_activation)
        inp = concat_sources_template(sources, name=name, layer_class=cls.layer_class)
        if inp.sparse or inp.feature_dim_axis is None or inp.dim is None or inp.dim % 2 != 0:
            raise LayerShapeError(layer=name, layer_class=cls.layer_class,
                                  problem="needs a dense input with an even static feature dim", got=repr(inp))
        new_dim = dim_floordiv(inp.feature_dim, 2)
        if out_dim is not None:
            if out_dim.dimension != new_dim.dimension:
                raise LayerShapeError(layer=name, layer_class=cls.layer_class,
                                      problem=f"out_dim {out_dim!r} is not half the input feature dim",
                                      expected=repr(new_dim), got=repr(out_dim))
            out_dim.declare_same_as(new_dim)
        return inp.copy_template_replace_dim(inp.feature_dim_axis, new_dim)

"""``{"class": "softmax", ...}``: a ``linear`` layer with ``activation="softmax"`` by default.

Shape: ``{..., F_in} -> {..., n_out}``; with ``loss`` + ``target``, ``n_out`` defaults to the target's classes
(plus 1 blank for ``ctc``). Params ``W`` ``[n_in, n_out]``, ``b`` ``[n_out]``.
"""

from __future__ import annotations

from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.linear.linear import LinearLayer


@register_layer
class SoftmaxLayer(LinearLayer):
    """Linear + softmax over the feature axis; losses use the pre-softmax logits."""

    layer_class = "softmax"
    default_activation = "softmax"

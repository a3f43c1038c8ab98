"""``{"class": "dropout", "dropout": 0.1}``: a copy layer whose purpose is its input dropout (training only,
unless ``dropout_on_forward``; ``dropout_noise_shape`` to share the mask over axes)."""

from __future__ import annotations

from returnn.tf.layers.core.registry import register_layer
from returnn.tf.layers.elementwise.copy import CopyLayer


@register_layer
class DropoutLayer(CopyLayer):
    """Shape unchanged."""

    layer_class = "dropout"

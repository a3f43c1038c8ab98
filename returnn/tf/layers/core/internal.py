"""``InternalLayer``: a layer whose output is set from outside (reference compat; used by helpers)."""

from __future__ import annotations

from typing import Any

from returnn.tf.layers.core.layer_base import LayerBase


class InternalLayer(LayerBase):
    """A layer with a given output (``output`` with raw tensor); no registration, no params."""

    layer_class = "internal"

    def __init__(self, **kwargs: Any):
        super().__init__(**kwargs)

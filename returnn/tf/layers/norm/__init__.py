"""Normalization layers."""

from returnn.tf.layers.norm import batch_norm as _batch_norm  # noqa: F401
from returnn.tf.layers.norm import layer_norm as _layer_norm  # noqa: F401
from returnn.tf.layers.norm import math_norm as _math_norm  # noqa: F401
from returnn.tf.layers.norm import norm as _norm  # noqa: F401

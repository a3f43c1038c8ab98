"""Layers that own a TF variable as their output (``variable``)."""

from returnn.tf.layers.variables import variable as _variable  # noqa: F401

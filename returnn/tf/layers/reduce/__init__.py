"""Reductions over axes."""

from returnn.tf.layers.reduce import reduce as _reduce  # noqa: F401

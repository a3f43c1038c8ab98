"""Elementwise layers: copy, activation, combine, eval, compare, cast, dropout, switch."""

from returnn.tf.layers.elementwise import activation as _activation  # noqa: F401
from returnn.tf.layers.elementwise import copy as _copy  # noqa: F401

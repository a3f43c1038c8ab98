"""Affine layers: linear, softmax."""

from returnn.tf.layers.linear import linear as _linear  # noqa: F401
from returnn.tf.layers.linear import softmax as _softmax  # noqa: F401
from returnn.tf.layers.linear import weighted_sum as _weighted_sum  # noqa: F401

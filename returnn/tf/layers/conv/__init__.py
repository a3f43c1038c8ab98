"""Convolution and pooling layers."""

from returnn.tf.layers.conv import conv as _conv  # noqa: F401
from returnn.tf.layers.conv import pool as _pool  # noqa: F401
from returnn.tf.layers.conv import transposed_conv as _transposed_conv  # noqa: F401

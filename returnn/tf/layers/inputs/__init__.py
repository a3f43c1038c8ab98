"""Layers that produce data without a computation on sources: source, constant, length."""

from returnn.tf.layers.inputs import constant as _constant  # noqa: F401
from returnn.tf.layers.inputs import length as _length  # noqa: F401
from returnn.tf.layers.inputs import source as _source  # noqa: F401

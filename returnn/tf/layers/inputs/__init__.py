"""Layers that produce data without a computation on sources: source, constant, length, ..."""

from returnn.tf.layers.inputs import source as _source  # noqa: F401

"""Public module of the reference (``returnn.tf.layers.rec``): re-exports of the recurrent layers."""

from returnn.tf.layers.recurrent.rec_layer import RecLayer as RecLayer  # noqa: F401

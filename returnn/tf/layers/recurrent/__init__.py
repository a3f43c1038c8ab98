"""Recurrent layers: ``rec`` with a string unit (recurrent subnetworks come later)."""

from returnn.tf.layers.recurrent.rec_layer import RecLayer as RecLayer  # noqa: F401

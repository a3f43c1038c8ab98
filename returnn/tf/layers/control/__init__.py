"""Control layers: subnetwork."""

from returnn.tf.layers.control import subnetwork as _subnetwork  # noqa: F401

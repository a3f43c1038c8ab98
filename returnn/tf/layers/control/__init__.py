"""Control layers: subnetwork."""

from returnn.tf.layers.control import subnetwork as _subnetwork  # noqa: F401
from returnn.tf.layers.control import cond as _cond  # noqa: F401

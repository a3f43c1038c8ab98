"""Utility layers: print, hdf_dump, identity, scaled_grad (one file per layer)."""

from returnn.tf.layers.utility import hdf_dump as _hdf_dump  # noqa: F401
from returnn.tf.layers.utility import identity as _identity  # noqa: F401
from returnn.tf.layers.utility import kenlm as _kenlm  # noqa: F401
from returnn.tf.layers.utility import print as _print  # noqa: F401
from returnn.tf.layers.utility import scaled_grad as _scaled_grad  # noqa: F401

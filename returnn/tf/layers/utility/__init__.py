"""Utility layers: print, hdf_dump, identity, scaled_grad, synthetic_gradient, tikhonov_regularization (one file
per layer)."""

from returnn.tf.layers.utility import hdf_dump as _hdf_dump  # noqa: F401
from returnn.tf.layers.utility import identity as _identity  # noqa: F401
from returnn.tf.layers.utility import kenlm as _kenlm  # noqa: F401
from returnn.tf.layers.utility import print as _print  # noqa: F401
from returnn.tf.layers.utility import scaled_grad as _scaled_grad  # noqa: F401
from returnn.tf.layers.utility import synthetic_gradient as _synthetic_gradient  # noqa: F401
from returnn.tf.layers.utility import tikhonov_regularization as _tikhonov_regularization  # noqa: F401

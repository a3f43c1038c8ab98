"""Reductions over axes."""

from returnn.tf.layers.reduce import accumulate_mean as _accumulate_mean  # noqa: F401
from returnn.tf.layers.reduce import cumsum as _cumsum  # noqa: F401
from returnn.tf.layers.reduce import reduce as _reduce  # noqa: F401
from returnn.tf.layers.reduce import reduce_out as _reduce_out  # noqa: F401

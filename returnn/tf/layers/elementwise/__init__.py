"""Elementwise layers: copy, activation, combine, eval, compare, cast, dropout, switch."""

from returnn.tf.layers.elementwise import activation as _activation  # noqa: F401
from returnn.tf.layers.elementwise import cast as _cast  # noqa: F401
from returnn.tf.layers.elementwise import combine as _combine  # noqa: F401
from returnn.tf.layers.elementwise import compare as _compare  # noqa: F401
from returnn.tf.layers.elementwise import copy as _copy  # noqa: F401
from returnn.tf.layers.elementwise import dropout as _dropout  # noqa: F401
from returnn.tf.layers.elementwise import elemwise_prod as _elemwise_prod  # noqa: F401
from returnn.tf.layers.elementwise import eval as _eval  # noqa: F401
from returnn.tf.layers.elementwise import gating as _gating  # noqa: F401
from returnn.tf.layers.elementwise import switch as _switch  # noqa: F401

"""``returnn.tf.compat``: the TensorFlow API namespaces configs import (``from returnn.tf.compat import v1 as tf``).

- ``v1``: ``tf.compat.v1`` (graph-mode API: ``placeholder``, ``variable_scope``, ``get_variable``, ...)
- ``v2``: ``tf.compat.v2``
- ``tf``: the ``tensorflow`` module itself
- :func:`executing_eagerly`: whether TensorFlow runs eagerly in the current context (False while a network
  is built: graph mode)
"""

from returnn.tf import _tf as tf

v1 = tf.compat.v1
v2 = tf.compat.v2


def executing_eagerly() -> bool:
    """:return: ``tf.executing_eagerly()``"""
    return tf.executing_eagerly()

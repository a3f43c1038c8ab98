"""Custom parameter updates: a variable that carries a :class:`CustomUpdate` is not trained by the optimizer; each
training step runs the custom update's op instead (:class:`returnn.tf.updater.Updater`)."""

from __future__ import annotations

from typing import Any, Optional

import tensorflow as tf

#: the attribute of a variable holding its :class:`CustomUpdate` (as the reference names it)
CUSTOM_UPDATE_ATTR = "returnn_custom_update"


class CustomUpdate:
    """Base of a custom update rule. Subclasses implement :meth:`update_var`.

    Usage: ``MyUpdate().set_on_var(var)``; the updater then calls ``update_var(var)`` once when it builds the
    training op and runs the returned op in each training step (the learning rate and the gradient of ``var`` are
    not used).
    """

    def set_on_var(self, var: tf.Variable) -> None:
        """Attaches this update to ``var`` (replacing any update attached before)."""
        setattr(var, CUSTOM_UPDATE_ATTR, self)

    def update_var(self, var: tf.Variable) -> Any:
        """:return: the op (or tensor) that updates ``var`` in one training step

        :raises NotImplementedError: in this base class
        """
        raise NotImplementedError(f"{type(self).__name__}.update_var")


class CustomUpdateExpAverage(CustomUpdate):
    """Exponential moving average: each step ``var <- var + alpha * (average - var)``.

    :param average: tensor of the var's shape and dtype, the value of the current step
    :param alpha: float in [0, 1], the weight of the new value
    """

    def __init__(self, average: Any, alpha: float):
        self.average = average
        self.alpha = alpha

    def update_var(self, var: tf.Variable) -> Any:
        """:return: the op adding ``alpha * (average - var)`` to ``var`` (its value is the new value)"""
        average = tf.convert_to_tensor(self.average, dtype=var.dtype.base_dtype)
        return tf.compat.v1.assign_add(var, self.alpha * (average - var.read_value()))


def get_custom_update(var: Any) -> Optional[CustomUpdate]:
    """:return: the :class:`CustomUpdate` attached to ``var``, or None"""
    return getattr(var, CUSTOM_UPDATE_ATTR, None)

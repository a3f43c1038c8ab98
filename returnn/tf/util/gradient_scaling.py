"""Changing only the gradient of a tensor (legacy ``TFUtil`` functions): ``flip_gradient``, ``scaled_gradient``."""

from __future__ import annotations

from typing import Any, Optional

import tensorflow as tf

from returnn.tf.util.errors import TFUtilArgError


def scaled_gradient(x: Any, scale: Any = 1.0, shift: Any = 0.0, scale_shift_by_sum_over_axis: Optional[int] = None,
                    clip_max_axis: Optional[int] = None) -> tf.Tensor:
    """:param x: float tensor
    :param scale: the gradient flowing back through the result is multiplied by this
    :param shift: ... and then this is added
    :param scale_shift_by_sum_over_axis: multiply ``shift`` by the sum of ``|gradient|`` over this axis
    :param clip_max_axis: not supported here (raises)
    :return: ``x`` (forward the identity), gradient ``grad * scale + shift``
    :raises TFUtilArgError: ``clip_max_axis`` given"""
    if clip_max_axis is not None:
        raise TFUtilArgError("scaled_gradient", f"clip_max_axis={clip_max_axis!r} is not supported")

    @tf.custom_gradient
    def _scaled(v: tf.Tensor) -> Any:
        def grad(dy: tf.Tensor) -> tf.Tensor:
            sh = tf.cast(shift, dy.dtype)
            if scale_shift_by_sum_over_axis is not None:
                sh = sh * tf.reduce_sum(tf.abs(dy), axis=scale_shift_by_sum_over_axis, keepdims=True)
            return dy * tf.cast(scale, dy.dtype) + sh
        return tf.identity(v), grad

    with tf.name_scope("scaled_gradient"):
        return _scaled(tf.convert_to_tensor(x))


def flip_gradient(x: Any, scale: Any = 1.0) -> tf.Tensor:
    """Gradient reversal (domain-adversarial training).

    :param x: float tensor
    :param scale: the gradient is multiplied by ``-scale``
    :return: ``x`` (forward the identity)"""
    with tf.name_scope("flip_gradient"):
        return scaled_gradient(x, scale=-scale)

"""A layer output with its pre-activation value (``OutputWithActivation``; public as
``returnn.tf.util.basic.OutputWithActivation`` and ``returnn.tf.layers.base.OutputWithActivation``)."""

from __future__ import annotations

from typing import Any, Sequence

import tensorflow as tf


class OutputWithActivation:
    """Pre-activation output ``x`` and activation function, so losses can use logits (``ce``, ``ctc``).

    :param x: the value before the activation (any shape)
    :param act_func: the activation (``x`` → ``y``), or None (``y`` is ``x``)
    """

    def __init__(self, x: tf.Tensor, act_func: Any = None):
        self.x = x
        self.act_func = act_func
        self.y = act_func(x) if act_func is not None else x

    def is_softmax_act_func(self) -> bool:
        """:return: whether the activation is ``tf.nn.softmax`` (then ``x`` are the logits)"""
        return self.act_func is tf.nn.softmax

    def copy_transposed(self, perm: Sequence[int]) -> OutputWithActivation:
        """:return: the same with ``x`` and ``y`` transposed by ``perm`` (the activation is not applied again)"""
        new = OutputWithActivation(tf.transpose(self.x, perm))
        new.act_func = self.act_func
        new.y = tf.transpose(self.y, perm)
        return new

    def get_logits(self) -> tf.Tensor:
        """:return: ``x`` for a softmax activation, else ``log(max(y, 1e-30))``; the shape of ``x``"""
        if self.is_softmax_act_func():
            return self.x
        return tf.math.log(tf.maximum(self.y, 1e-30))

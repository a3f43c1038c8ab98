"""Network building blocks as functions (legacy ``TFUtil`` functions): ``gelu``, ``gelu2``, ``gelu3``,
``layer_norm``, ``smoothing_cross_entropy``."""

from __future__ import annotations

import math
from typing import Any, Optional

import tensorflow as tf

from returnn.tf.util.errors import TFUtilArgError


def gelu(x: Any) -> tf.Tensor:
    """:return: GELU, tanh approximation: ``0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))``"""
    with tf.name_scope("gelu"):
        x = tf.convert_to_tensor(x)
        return 0.5 * x * (1.0 + tf.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


def gelu2(x: Any) -> tf.Tensor:
    """:return: GELU, sigmoid approximation: ``x * sigmoid(1.702 x)``"""
    with tf.name_scope("gelu2"):
        x = tf.convert_to_tensor(x)
        return x * tf.sigmoid(1.702 * x)


def gelu3(x: Any) -> tf.Tensor:
    """:return: GELU, exact: ``0.5 x (1 + erf(x / sqrt(2)))``"""
    with tf.name_scope("gelu3"):
        x = tf.convert_to_tensor(x)
        return 0.5 * x * (1.0 + tf.math.erf(x / math.sqrt(2.0)))


def layer_norm(x: Any, gain: Any, bias: Any, axis: int, epsilon: float = 1e-6) -> tf.Tensor:
    """:param x: float tensor
    :param gain: (x.shape[axis],) scale after normalizing
    :param bias: (x.shape[axis],) offset after scaling
    :param axis: the axis to normalize over (mean 0, variance 1)
    :param epsilon: added to the variance
    :return: ``(x - mean) / sqrt(var + epsilon) * gain + bias``, the shape of ``x``"""
    with tf.name_scope("layer_norm"):
        x = tf.convert_to_tensor(x)
        rank = x.shape.rank
        axis = axis + rank if axis < 0 else axis
        mean, var = tf.nn.moments(x, axes=[axis], keepdims=True)
        bc_shape = [1] * rank
        bc_shape[axis] = -1
        norm = (x - mean) * tf.math.rsqrt(var + epsilon)
        return norm * tf.reshape(gain, bc_shape) + tf.reshape(bias, bc_shape)


def smoothing_cross_entropy(logits: Any, labels: Any, label_smoothing: float, gaussian: bool = False,
                            vocab_size: Optional[Any] = None, logits_are_normalized: bool = False) -> tf.Tensor:
    """Cross entropy against the label-smoothed target (``1 - label_smoothing`` on the label, the rest spread evenly
    over the other classes), minus the entropy of that target (so a perfect prediction gives 0), as
    tensor2tensor's ``smoothing_cross_entropy``.

    :param logits: (..., classes) float
    :param labels: (...) int
    :param label_smoothing: mass taken from the label
    :param gaussian: not supported here (raises)
    :param vocab_size: number of classes (default: the last dim of ``logits``)
    :param logits_are_normalized: ``logits`` are log-probabilities already
    :return: (...) float
    :raises TFUtilArgError: ``gaussian`` given"""
    if gaussian:
        raise TFUtilArgError("smoothing_cross_entropy", "gaussian label smoothing is not supported here")
    with tf.name_scope("smoothing_cross_entropy"):
        logits = tf.convert_to_tensor(logits)
        if vocab_size is None:
            vocab_size = tf.shape(logits)[-1]
        n = tf.cast(vocab_size, logits.dtype)
        confidence = 1.0 - label_smoothing
        low = label_smoothing / (n - 1.0)
        normalizing = -(confidence * math.log(confidence) + (n - 1.0) * low * tf.math.log(low + 1e-20))
        targets = tf.one_hot(labels, depth=vocab_size, on_value=confidence, off_value=low, dtype=logits.dtype)
        log_probs = logits if logits_are_normalized else tf.nn.log_softmax(logits)
        return -tf.reduce_sum(targets * log_probs, axis=-1) - normalizing

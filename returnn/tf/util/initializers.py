"""Initializer factories (legacy ``TFUtil`` functions/classes): ``xavier_initializer``,
``random_uniform_abs_initializer``, ``variance_scaling_non_zero_initializer`` (``VarianceScalingNonZero``),
``load_txt_file_initializer``, and ``gaussian_kernel_2d``."""

from __future__ import annotations

import math
from typing import Any, Optional

import numpy
import tensorflow as tf

from returnn.tf.util.numeric_checks import wrap_distribution_non_zero

_v1 = tf.compat.v1


def xavier_initializer(uniform: bool = True, seed: Optional[int] = None, dtype: Any = tf.float32) -> Any:
    """:return: Glorot/Xavier initializer (variance scaling, scale 1, fan_avg), uniform or truncated normal"""
    return _v1.variance_scaling_initializer(scale=1.0, mode="fan_avg",
                                            distribution="uniform" if uniform else "truncated_normal", seed=seed,
                                            dtype=dtype)


def random_uniform_abs_initializer(limit: float, **kwargs: Any) -> Any:
    """:param limit: values are uniform in ``[-limit, limit]``
    :param kwargs: passed on (``seed``, ``dtype``)
    :return: the initializer"""
    return _v1.random_uniform_initializer(minval=-limit, maxval=limit, **kwargs)


class VarianceScalingNonZero(_v1.variance_scaling_initializer):
    """Like variance scaling with a uniform distribution in ``[-limit, limit]``, but mapped away from zero: absolute
    values are at least ``non_zero_fraction * limit`` (see
    :func:`returnn.tf.util.numeric_checks.wrap_distribution_non_zero`)."""

    def __init__(self, non_zero_fraction: float = 0.5, **kwargs: Any):
        """:param non_zero_fraction: smallest absolute value, as a fraction of the limit
        :param kwargs: ``scale``, ``mode``, ``seed``, ``dtype`` of variance scaling (the distribution is uniform)"""
        kwargs["distribution"] = "uniform"
        super().__init__(**kwargs)
        self.non_zero_fraction = non_zero_fraction

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> tf.Tensor:
        values = super().__call__(shape, dtype=dtype, partition_info=partition_info)
        fan_in, fan_out = _fans(shape)
        n = {"fan_in": fan_in, "fan_out": fan_out}.get(self.mode, (fan_in + fan_out) / 2.0)
        limit = math.sqrt(3.0 * self.scale / max(1.0, n))
        return wrap_distribution_non_zero(values, zero_limit=self.non_zero_fraction * limit, limit=limit)


def _fans(shape: Any) -> tuple:
    shape = [int(d) for d in shape]
    if not shape:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    receptive = int(numpy.prod(shape[:-2])) if len(shape) > 2 else 1
    return shape[-2] * receptive, shape[-1] * receptive


def variance_scaling_non_zero_initializer(non_zero_fraction: float = 0.5, **kwargs: Any) -> VarianceScalingNonZero:
    """:return: :class:`VarianceScalingNonZero` with these arguments"""
    return VarianceScalingNonZero(non_zero_fraction=non_zero_fraction, **kwargs)


def load_txt_file_initializer(filename: str, dtype: Any = tf.float32) -> Any:
    """:param filename: a text file of numbers (``numpy.loadtxt`` format: one row per line)
    :param dtype: the variable's dtype
    :return: an initializer giving the file's values (the variable's shape must match)"""
    values = numpy.loadtxt(filename, ndmin=1)
    return _v1.constant_initializer(values, dtype=dtype)


def gaussian_kernel_2d(size: int, std: float) -> tf.Tensor:
    """:param size: half width: the kernel is ``(2 size + 1, 2 size + 1)``
    :param std: standard deviation in both directions
    :return: float32 Gaussian kernel normalized to sum 1"""
    with tf.name_scope("gaussian_kernel_2d"):
        r = tf.range(-size, size + 1, dtype=tf.float32)
        k1 = tf.exp(-tf.square(r) / (2.0 * std * std))
        k = k1[:, None] * k1[None, :]
        return k / tf.reduce_sum(k)

"""``get_positional_encoding`` (legacy ``TFUtil`` function): the sinusoidal position signal of the Transformer
(in the tensor2tensor formulation, as the reference)."""

from __future__ import annotations

import math
from typing import Any, Optional

import tensorflow as tf

from returnn.tf.util.errors import TFUtilArgError


def get_positional_encoding(num_channels: int, length: Optional[Any] = None, position: Optional[Any] = None,
                            min_timescale: float = 1.0, max_timescale: float = 1.0e4) -> tf.Tensor:
    """With ``n = num_channels // 2`` timescales, ``inv[j] = min_timescale * exp(-j * log(max_timescale /
    min_timescale) / max(n - 1, 1))``, the signal at position ``p`` is
    ``[sin(p * inv[0]), ..., sin(p * inv[n-1]), cos(p * inv[0]), ..., cos(p * inv[n-1])]``, plus one zero channel
    if ``num_channels`` is odd.

    :param num_channels: number of channels of the signal
    :param length: positions ``0 .. length-1`` (if ``position`` is not given)
    :param position: int or float positions, any shape, e.g. (time,) or (batch, time)
    :param min_timescale: the shortest wavelength (over 2 pi)
    :param max_timescale: the longest wavelength (over 2 pi)
    :return: float32, ``position``'s shape + (num_channels,)
    :raises TFUtilArgError: neither ``length`` nor ``position`` given
    """
    with tf.name_scope("positional_encoding"):
        if position is None:
            if length is None:
                raise TFUtilArgError("get_positional_encoding", "expected length or position, got neither")
            position = tf.range(length)
        position = tf.cast(tf.convert_to_tensor(position), tf.float32)
        num_timescales = num_channels // 2
        log_increment = math.log(float(max_timescale) / float(min_timescale)) / max(num_timescales - 1, 1)
        inv_timescales = min_timescale * tf.exp(tf.range(num_timescales, dtype=tf.float32) * -log_increment)
        scaled = tf.expand_dims(position, -1) * inv_timescales  # (..., n)
        signal = tf.concat([tf.sin(scaled), tf.cos(scaled)], axis=-1)
        if num_channels % 2:
            signal = tf.concat([signal, tf.zeros_like(signal[..., :1])], axis=-1)
        return signal

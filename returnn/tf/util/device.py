"""Device queries (legacy ``TFUtil`` functions): ``is_gpu_available``."""

from __future__ import annotations

import tensorflow as tf


def is_gpu_available() -> bool:
    """:return: whether TensorFlow sees at least one GPU on this machine"""
    return bool(tf.config.list_physical_devices("GPU"))

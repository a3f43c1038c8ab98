"""Device queries (legacy ``TFUtil`` functions): ``is_gpu_available``, ``get_tf_list_local_devices``,
``get_available_gpu_devices``, ``is_tf_cuda_build``, ``print_available_devices``."""

from __future__ import annotations

from typing import Any, List

import tensorflow as tf


def is_gpu_available() -> bool:
    """:return: whether TensorFlow sees at least one GPU on this machine"""
    return bool(tf.config.list_physical_devices("GPU"))


def get_tf_list_local_devices(tf_session_opts: Any = None, file: Any = None) -> List[Any]:
    """:param tf_session_opts: accepted for compatibility
    :param file: accepted for compatibility
    :return: the local devices as TensorFlow lists them (``DeviceAttributes``: ``name``, ``device_type``,
        ``memory_limit``, ...)"""
    del tf_session_opts, file
    from tensorflow.python.client import device_lib  # noqa: PLC0415 (loaded on use: it queries the devices)

    return list(device_lib.list_local_devices())


def get_available_gpu_devices() -> List[Any]:
    """:return: the local GPU devices (see :func:`get_tf_list_local_devices`)"""
    return [d for d in get_tf_list_local_devices() if d.device_type == "GPU"]


def is_tf_cuda_build() -> bool:
    """:return: whether this TensorFlow was built with CUDA"""
    return bool(tf.test.is_built_with_cuda())


def print_available_devices(tf_session_opts: Any = None, file: Any = None) -> None:
    """Prints the local devices (name, type, memory) to ``file`` (default: stdout).

    :param tf_session_opts: accepted for compatibility
    :param file: stream
    """
    import sys  # noqa: PLC0415

    out = file or sys.stdout
    devs = get_tf_list_local_devices(tf_session_opts)
    print("Local devices available to TensorFlow:", file=out)
    for i, dev in enumerate(devs):
        print(f"  {i + 1}/{len(devs)}: {dev.name} ({dev.device_type}, memory {dev.memory_limit})", file=out)

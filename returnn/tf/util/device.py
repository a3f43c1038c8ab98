"""Device queries (legacy ``TFUtil`` functions): ``is_gpu_available``, ``get_tf_list_local_devices``,
``get_available_gpu_devices``, ``is_tf_cuda_build``, ``print_available_devices``."""

from __future__ import annotations

from typing import Any, List, Optional

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


_configured_gpu: Optional[bool] = None  # set by each new root TFNetwork from its config's "device"


def set_configured_device(device: Optional[str]) -> None:
    """Records the device a config asks for (``"gpu..."``/``"cuda..."``: a GPU, ``"cpu..."``: none; None: not set),
    which :func:`is_gpu_available_in_session` answers outside a session (as the reference: every new root network
    sets it from its config's ``device``; the last one wins).

    :param device: the config's ``device`` value, or None
    """
    global _configured_gpu
    if device is None:
        _configured_gpu = None
        return
    low = str(device).lower()
    _configured_gpu = True if low.startswith(("gpu", "cuda")) else False if low.startswith("cpu") else None


def is_gpu_available_in_session(session: Any = None) -> bool:
    """:param session: a ``tf.compat.v1.Session`` (default: the default session)
    :return: whether the session has a GPU device; without any session: what the last network's config asked for
        (``device``, see :func:`set_configured_device`), else whether TensorFlow sees a GPU"""
    session = session or tf.compat.v1.get_default_session()
    if session is None:
        if _configured_gpu is not None:
            return _configured_gpu
        return is_gpu_available()
    return any(d.device_type == "GPU" for d in session.list_devices())


def get_device_attr(dev: str) -> Any:
    """:param dev: device name, e.g. ``"/device:CPU:0"`` or ``"/cpu:0"`` (case-insensitive type)
    :return: its ``DeviceAttributes`` (see :func:`get_tf_list_local_devices`)
    :raises KeyError: no such local device"""
    want = dev.lower().replace("/device:", "/")
    for d in get_tf_list_local_devices():
        if d.name.lower().replace("/device:", "/") == want:
            return d
    raise KeyError(f"get_device_attr: no local device {dev!r}; have {[d.name for d in get_tf_list_local_devices()]}")


def get_available_gpu_cuda_min_compute_capability() -> Any:
    """:return: the smallest CUDA compute capability of the local GPUs as a float (e.g. 8.0), or None without GPU"""
    import re  # noqa: PLC0415

    caps = []
    for d in get_available_gpu_devices():
        match = re.search(r"compute capability: (\d+)\.(\d+)", d.physical_device_desc)
        if match:
            caps.append(float(f"{match.group(1)}.{match.group(2)}"))
    return min(caps) if caps else None

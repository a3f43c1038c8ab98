"""Version descriptions of RETURNN and TensorFlow, as printed at start-up and used in configs
(``returnn_version = describe_returnn_version()``)."""

from __future__ import annotations

import os
import site
import sys
from typing import Tuple


def describe_returnn_version() -> str:
    """The version of this RETURNN package (``returnn.__long_version__``)."""
    import returnn

    return returnn.__long_version__


def _describe_path(path: str) -> str:
    for base in list(getattr(site, "getsitepackages", lambda: [])()) + [site.getusersitepackages()]:
        if base and path.startswith(base + os.sep):
            return f"<site-package> in {path}"
    return path


def describe_tensorflow_version() -> str:
    """``"<version> (<git version>) (<where it is installed>)"``, or ``"<TensorFlow ImportError: ...>"``."""
    try:
        import tensorflow as tf
    except ImportError as exc:
        return f"<TensorFlow ImportError: {exc}>"
    git = getattr(getattr(tf, "version", None), "GIT_VERSION", "unknown")
    return f"{tf.__version__} ({git}) ({_describe_path(os.path.dirname(tf.__file__))})"


def describe_torch_version() -> str:
    """``"<version> (<where it is installed>)"``, or ``"<PyTorch ImportError: ...>"``."""
    try:
        import torch
    except ImportError as exc:
        return f"<PyTorch ImportError: {exc}>"
    return f"{torch.__version__} ({_describe_path(os.path.dirname(torch.__file__))})"


def get_tensorflow_version_tuple() -> Tuple[int, ...]:
    """TensorFlow's version as ints, e.g. ``(2, 21, 0)`` (pre-release suffixes dropped)."""
    import tensorflow as tf

    out = []
    for part in tf.__version__.split("."):
        digits = ""
        for c in part:
            if not c.isdigit():
                break
            digits += c
        if not digits:
            break
        out.append(int(digits))
    return tuple(out)


def is_64bit_platform() -> bool:
    """Whether the interpreter is 64-bit."""
    return sys.maxsize > 2 ** 32

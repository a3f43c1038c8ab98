"""TensorFlow version checks (legacy ``TFUtil`` functions): ``tf_version_tuple``, ``have_min_tf_version``,
``assert_min_tf_version``."""

from __future__ import annotations

import re
from typing import Sequence, Tuple

import tensorflow as tf


def tf_version_tuple() -> Tuple[int, ...]:
    """:return: the numeric leading parts of ``tf.__version__``, e.g. ``(2, 21, 0)`` for ``"2.21.0"`` or
        ``(2, 16, 0)`` for ``"2.16.0rc1"``"""
    parts = []
    for part in tf.__version__.split("."):
        match = re.match(r"\d+", part)
        if not match:
            break
        parts.append(int(match.group(0)))
        if match.group(0) != part:  # "0rc1": the numeric part counts, nothing after it
            break
    return tuple(parts)


def have_min_tf_version(version: Sequence[int]) -> bool:
    """:param version: e.g. ``(1, 2)``, compared with the same number of leading parts of :func:`tf_version_tuple`
    :return: whether the installed TensorFlow is that version or newer"""
    version = tuple(version)
    return tf_version_tuple()[:len(version)] >= version


def assert_min_tf_version(version: Sequence[int], reason: str) -> None:
    """:param version: minimal version, e.g. ``(1, 2)``
    :param reason: what needs that version (named in the error)
    :raises AssertionError: the installed TensorFlow is older, as the reference
    """
    if not have_min_tf_version(version):
        raise AssertionError(f"Your TF version {tf_version_tuple()} is too old (older than {tuple(version)}). {reason}")

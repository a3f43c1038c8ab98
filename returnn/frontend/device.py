"""Devices: TF graph mode places ops itself, so these are no-ops that keep RF code portable."""

from __future__ import annotations

import contextlib
from typing import Iterator, Optional

from returnn.frontend.array_ import copy_to_device

__all__ = ["copy_to_device", "get_default_device", "set_default_device", "set_default_device_ctx",
           "get_default_dim_size_device"]


def get_default_device() -> Optional[str]:
    """:return: None (TF places the ops)"""
    return None


def get_default_dim_size_device() -> Optional[str]:
    """:return: None"""
    return None


def set_default_device(device: Optional[str]) -> None:
    """No effect here (TF places the ops)."""


@contextlib.contextmanager
def set_default_device_ctx(device: Optional[str]) -> Iterator[None]:
    """No effect here (TF places the ops)."""
    yield

"""Default dtypes of ``returnn.frontend``: float ``"float32"``, int ``"int32"`` (indices, lengths)."""

from __future__ import annotations

import contextlib
from typing import Iterator, List

__all__ = ["get_default_float_dtype", "set_default_float_dtype", "set_default_float_dtype_ctx",
           "get_default_int_dtype", "get_default_array_index_dtype", "is_float_dtype"]

_float_dtype: List[str] = ["float32"]


def get_default_float_dtype() -> str:
    """:return: the dtype of new float tensors and parameters (default ``"float32"``)"""
    return _float_dtype[0]


def set_default_float_dtype(dtype: str) -> None:
    """Sets the dtype of new float tensors and parameters."""
    _float_dtype[0] = dtype


@contextlib.contextmanager
def set_default_float_dtype_ctx(dtype: str) -> Iterator[None]:
    """Within the context, new float tensors and parameters get ``dtype``."""
    old = _float_dtype[0]
    _float_dtype[0] = dtype
    try:
        yield
    finally:
        _float_dtype[0] = old


def get_default_int_dtype() -> str:
    """:return: ``"int32"``"""
    return "int32"


def get_default_array_index_dtype() -> str:
    """:return: ``"int32"`` (the dtype of indices such as ``rf.range_over_dim``)"""
    return "int32"


def is_float_dtype(dtype: str) -> bool:
    """:return: whether ``dtype`` is a float dtype"""
    return dtype.startswith(("float", "bfloat"))

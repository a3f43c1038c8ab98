"""Encoder interfaces: ``ISeqFramewiseEncoder`` (same frames out), ``ISeqDownsamplingEncoder`` (fewer frames out,
``downsample_factor``)."""

from __future__ import annotations

from typing import Tuple

from returnn.frontend.module import Module
from returnn.tensor import Dim, Tensor

__all__ = ["IEncoder", "ISeqFramewiseEncoder", "ISeqDownsamplingEncoder"]


class IEncoder(Module):
    """``__call__(source) -> Tensor``"""

    out_dim: Dim


class ISeqFramewiseEncoder(Module):
    """``__call__(source, *, spatial_dim) -> Tensor`` (the same frames)"""

    out_dim: Dim


class ISeqDownsamplingEncoder(Module):
    """``__call__(source, *, in_spatial_dim) -> (Tensor, out_spatial_dim)``"""

    out_dim: Dim
    downsample_factor: float

    def __call__(self, source: Tensor, *, in_spatial_dim: Dim) -> Tuple[Tensor, Dim]:
        raise NotImplementedError

"""Parameter initialisers ``rf.init.*``: callables ``(dims=, dtype=) -> Tensor``.

Fans, as usual for a weight ``[in, out]``: ``fan_in`` = the first dim, ``fan_out`` = the last; with more than two
dims, the middle dims (e.g. a conv filter's ``[out, in, filter...]``: see :func:`fans`) form the receptive field.
"""

from __future__ import annotations

import math
from typing import Any, Optional, Sequence, Tuple, Union

from returnn.errors import FrontendError
from returnn.tensor import Dim, Tensor

__all__ = ["ParamInit", "ParamInitType", "Normal", "VarianceScaling", "Glorot", "He", "HeNormal", "HeUniform",
           "Uniform", "fans"]


class ParamInit:
    """Base class: ``__call__(dims, dtype, ...)`` returns the initial Tensor."""

    def __call__(self, dims: Sequence[Dim], dtype: str, *, sparse_dim: Optional[Dim] = None,
                 device: Optional[str] = None, out: Optional[Tensor] = None) -> Union[Tensor, float]:
        raise NotImplementedError


ParamInitType = Union[Tensor, float, ParamInit]


def fans(dims: Sequence[Dim]) -> Tuple[float, float]:
    """:return: (fan_in, fan_out) of a weight of ``dims``: one dim: its size for both; ``[in, out]``; for a conv
    filter ``[out, in, filter...]`` (three or more dims): ``in * receptive`` and ``out * receptive``"""
    sizes = [d.dimension for d in dims]
    if not sizes:
        return 1.0, 1.0
    if len(sizes) == 1:
        return float(sizes[0]), float(sizes[0])
    if len(sizes) == 2:
        return float(sizes[0]), float(sizes[1])
    receptive = math.prod(sizes[2:])
    return float(sizes[1] * receptive), float(sizes[0] * receptive)


class Normal(ParamInit):
    """Normal with ``stddev`` (truncated to 2 stddev by default)."""

    def __init__(self, stddev: float, *, truncated: bool = True, dtype: Optional[str] = None):
        self.stddev, self.truncated, self.dtype = stddev, truncated, dtype

    def __call__(self, dims: Sequence[Dim], dtype: str, *, sparse_dim: Optional[Dim] = None,
                 device: Optional[str] = None, out: Optional[Tensor] = None) -> Tensor:
        from returnn.frontend.rand import random
        return random(dims=dims, dtype=self.dtype or dtype, distribution="truncated_normal" if self.truncated
                      else "normal", mean=0.0, stddev=self.stddev)


class VarianceScaling(ParamInit):
    """Variance ``scale / n`` (``mode``: fan_in, fan_out, fan_avg); ``distribution``: truncated_normal (stddev
    corrected for the truncation), untruncated_normal/normal, uniform."""

    scale, mode, distribution = 1.0, "fan_in", "truncated_normal"

    def __init__(self, scale: Optional[float] = None, mode: Optional[str] = None, distribution: Optional[str] = None,
                 dtype: Optional[str] = None):
        if scale is not None:
            self.scale = scale
        if mode is not None:
            self.mode = mode
        if distribution is not None:
            self.distribution = distribution
        self.dtype = dtype
        if self.scale <= 0.0:
            raise FrontendError("init.VarianceScaling", f"scale must be positive, got {self.scale}")
        if self.mode not in ("fan_in", "fan_out", "fan_avg"):
            raise FrontendError("init.VarianceScaling", f"unknown mode {self.mode!r}",
                                expected="fan_in, fan_out, fan_avg")
        if self.distribution not in ("normal", "uniform", "truncated_normal", "untruncated_normal"):
            raise FrontendError("init.VarianceScaling", f"unknown distribution {self.distribution!r}",
                                expected="normal, uniform, truncated_normal, untruncated_normal")

    def __call__(self, dims: Sequence[Dim], dtype: str, *, sparse_dim: Optional[Dim] = None,
                 device: Optional[str] = None, out: Optional[Tensor] = None) -> Tensor:
        from returnn.frontend.rand import random
        fan_in, fan_out = fans(dims)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        scale = self.scale / max(1.0, n)
        dtype = self.dtype or dtype
        if self.distribution in ("normal", "truncated_normal"):
            stddev = math.sqrt(scale) / 0.87962566103423978  # stddev of a normal truncated at 2 stddev
            return random(dims=dims, dtype=dtype, distribution="truncated_normal", mean=0.0, stddev=stddev)
        if self.distribution == "untruncated_normal":
            return random(dims=dims, dtype=dtype, distribution="normal", mean=0.0, stddev=math.sqrt(scale))
        limit = math.sqrt(3.0 * scale)
        return random(dims=dims, dtype=dtype, distribution="uniform", minval=-limit, maxval=limit)


class Glorot(VarianceScaling):
    """Glorot/Xavier uniform: ``scale=1``, ``fan_avg``, uniform."""

    scale, mode, distribution = 1.0, "fan_avg", "uniform"


class He(VarianceScaling):
    """He/Kaiming normal: ``scale=2``, ``fan_in``, truncated normal."""

    scale, mode, distribution = 2.0, "fan_in", "truncated_normal"


HeNormal = He


class HeUniform(He):
    """He/Kaiming uniform."""

    distribution = "uniform"


class Uniform(ParamInit):
    """Uniform in ``[minval, maxval)``."""

    def __init__(self, minval: float, maxval: float, *, dtype: Optional[str] = None):
        self.minval, self.maxval, self.dtype = minval, maxval, dtype

    def __call__(self, dims: Sequence[Dim], dtype: str, *, sparse_dim: Optional[Dim] = None,
                 device: Optional[str] = None, out: Optional[Tensor] = None) -> Any:
        from returnn.frontend.rand import random
        return random(dims=dims, dtype=self.dtype or dtype, distribution="uniform", minval=self.minval,
                      maxval=self.maxval)

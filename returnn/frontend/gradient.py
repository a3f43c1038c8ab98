"""Gradients: ``rf.stop_gradient``, ``rf.scaled_gradient``, ``rf.gradient`` (d sum(y) / d x, graph mode),
``rf.set_requires_gradient`` (nothing to do in TF graph mode)."""

from __future__ import annotations

from typing import Union

from returnn.frontend import _utils
from returnn.frontend.array_ import stop_gradient
from returnn.tensor import Tensor

__all__ = ["stop_gradient", "scaled_gradient", "gradient", "set_requires_gradient"]


def scaled_gradient(source: Tensor, scale: Union[float, Tensor]) -> Tensor:
    """:return: ``source`` in the forward pass; its gradient multiplied by ``scale`` in the backward pass"""
    sg = stop_gradient(source)
    return sg + (source - sg) * scale


def gradient(y: Tensor, x: Tensor) -> Tensor:
    """:return: the gradient of ``sum(y)`` with respect to ``x`` (x's dims)"""
    backend = _utils.backend_of(y, x)
    raw = backend.gradient(y.raw_tensor, x.raw_tensor)
    return _utils.make_tensor("gradient", x.dims, x.dtype, raw, feature_dim=x.feature_dim)


def set_requires_gradient(source: Tensor) -> None:
    """Nothing to do here: in TF graph mode, gradients of any tensor can be taken."""
    del source

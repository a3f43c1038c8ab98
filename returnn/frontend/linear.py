"""``rf.Linear`` (``x · weight[in, out] + bias[out]``) and ``rf.Embedding`` (rows of ``weight[in, out]``)."""

from __future__ import annotations

from returnn.errors import FrontendError
from returnn.frontend import init as _init
from returnn.frontend.module import Module
from returnn.frontend.parameter import Parameter
from returnn.tensor import Dim, Tensor

__all__ = ["Linear", "Embedding"]


class Linear(Module):
    """Affine map over ``in_dim``: parameters ``weight`` ``[in_dim, out_dim]`` (Glorot), ``bias`` ``[out_dim]``
    (zeros) if ``with_bias``."""

    def __init__(self, in_dim: Dim, out_dim: Dim, *, with_bias: bool = True):
        super().__init__()
        for name, d in (("in_dim", in_dim), ("out_dim", out_dim)):
            if not isinstance(d, Dim):
                raise FrontendError("Linear", f"{name} must be a Dim, got {type(d).__name__}", got=d)
        from returnn.frontend.dims import dim_match_priority_when_needed
        self.in_dim, self.out_dim, self.with_bias = in_dim, out_dim, with_bias
        self.weight = Parameter((dim_match_priority_when_needed(in_dim, out_dim), out_dim))
        self.weight.initial = _init.Glorot()
        self.bias = None
        if with_bias:
            self.bias = Parameter((out_dim,))
            self.bias.initial = 0.0

    def __call__(self, source: Tensor) -> Tensor:
        """:return: ``source``'s dims with ``in_dim`` replaced by ``out_dim`` (out_dim last)

        :raises FrontendError: ``in_dim`` is not a dim of ``source``
        """
        from returnn.frontend.matmul import matmul
        if not isinstance(source, Tensor):
            raise FrontendError("Linear", "expected a Tensor", got=source)
        if self.in_dim not in source.dims:
            raise FrontendError("Linear", f"the input {source.name!r} has no dim {self.in_dim!r}",
                                got=source.dims)
        out = matmul(source, self.weight, reduce=self.in_dim)
        if self.bias is not None:
            out = out + self.bias
        from returnn.frontend import _utils
        return _utils.make_tensor("linear", out.dims, out.dtype, out.raw_tensor, feature_dim=self.out_dim)


class Embedding(Module):
    """Lookup of rows of ``weight`` ``[in_dim, out_dim]`` (Glorot) by int indices with sparse dim ``in_dim``."""

    def __init__(self, in_dim: Dim, out_dim: Dim):
        super().__init__()
        self.in_dim, self.out_dim = in_dim, out_dim
        self.weight = Parameter((in_dim, out_dim))
        self.weight.initial = _init.Glorot()

    def __call__(self, source: Tensor) -> Tensor:
        """:return: ``source``'s dims plus ``out_dim``

        :raises FrontendError: ``source`` is not sparse over ``in_dim``
        """
        from returnn.frontend.array_ import gather
        if not isinstance(source, Tensor) or source.sparse_dim is None or source.sparse_dim != self.in_dim:
            raise FrontendError("Embedding", f"expected int indices with sparse dim {self.in_dim!r}",
                                got=getattr(source, "sparse_dim", source))
        return gather(self.weight, indices=source, axis=self.in_dim)

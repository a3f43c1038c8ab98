"""Raw layouts for the attention modules' products (internal): a Tensor with its axes in a chosen order, and the
relative-position shift of Transformer-XL as reshapes and slices instead of a gather.

The heads before the positions (``[batch, heads, query, key]``) make every product of the attention a batched
matrix product without transposes (the energies, the weighted values, the relative-position term); the values
are the same sums as in any other order.
"""

from __future__ import annotations

from typing import Any, Sequence

from returnn.frontend import _utils
from returnn.tensor import Dim, Tensor

__all__ = ["permuted", "rel_shift"]


def permuted(x: Tensor, dims: Sequence[Dim]) -> Tensor:
    """:return: ``x`` with its raw axes in the order of ``dims`` (the same dims; a transpose if the order differs)"""
    dims = list(dims)
    if list(x.dims) == dims:
        return x
    return _utils.make_tensor(x.name, dims, x.dtype, _utils.aligned_raw(x, dims), sparse_dim=x.sparse_dim,
                              feature_dim=x.feature_dim)


def rel_shift(x: Tensor, *, query_dim: Dim, rel_dim: Dim, key_dim: Dim) -> Tensor:
    """``out[..., i, j] = x[..., i, j + (Tq - 1) - i]``: the term of query ``i`` and key ``j`` from the one of query
    ``i`` and relative position ``j - i`` (entry ``r`` of ``rel_dim`` is position ``r - (Tq - 1)``), for ``Tq``
    queries and ``Tk`` keys (padded sizes; ``rel_dim`` of size ``R = Tq + Tk - 1``), as the reference's
    ``RelPosSelfAttention._rel_shift`` (observed, also for ``Tq != Tk``).

    One column of padding makes each row ``R + 1`` long; flattened, row ``i``'s entries for ``j = 0 .. Tk-1`` start
    at ``i * (R + 1) + Tq - 1 - i = i * R + Tq - 1``, i.e. after dropping the first ``Tq - 1`` entries, rows of
    ``R`` whose first ``Tk`` entries are the result. Padded queries and keys get finite values of ``x``.

    :param x: has ``query_dim`` and ``rel_dim``
    :return: ``x``'s other dims, then ``query_dim``, ``key_dim``
    """
    backend = _utils.backend_of(x)
    lead = [d for d in x.dims if d not in (query_dim, rel_dim)]
    raw = _utils.aligned_raw(x, lead + [query_dim, rel_dim], backend=backend)
    n = len(lead)
    t = _utils.dim_value(query_dim, backend)
    r = _utils.dim_value(rel_dim, backend)
    tk = _utils.dim_value(key_dim, backend)
    lead_sizes = [_utils.dim_value(d, backend) for d in lead]
    raw = backend.pad(raw, [(0, 0)] * (n + 1) + [(0, 1)], "constant", 0)
    raw = backend.reshape(raw, lead_sizes + [-1])
    raw = backend.slice(raw, n, _sub(backend, t, 1), _mul(backend, t, r), 1)
    raw = backend.reshape(raw, lead_sizes + [t, -1])
    raw = backend.slice(raw, n + 1, 0, tk, 1)
    return _utils.make_tensor("rel_shift", lead + [query_dim, key_dim], x.dtype, raw)


def _sub(backend: Any, a: Any, b: int) -> Any:
    return a - b if isinstance(a, int) else backend.combine(a, "sub", backend.convert(b, backend.dtype_of(a)))


def _mul(backend: Any, a: Any, b: Any) -> Any:
    if isinstance(a, int) and isinstance(b, int):
        return a * b
    dtype = backend.dtype_of(a) if not isinstance(a, int) else backend.dtype_of(b)
    return backend.combine(backend.convert(a, dtype) if isinstance(a, int) else a, "mul",
                           backend.convert(b, dtype) if isinstance(b, int) else b)

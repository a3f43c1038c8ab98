"""``rf.matmul``/``rf.dot``: product of two tensors summing over the ``reduce`` dims; dims in both that are not
reduced are kept once (batch dims)."""

from __future__ import annotations

import string
from typing import Sequence, Union

from returnn.errors import FrontendError
from returnn.frontend import _utils
from returnn.tensor import Dim, Tensor

__all__ = ["matmul", "dot"]


def matmul(a: Tensor, b: Tensor, *, reduce: Union[Dim, Sequence[Dim]], use_mask: bool = True) -> Tensor:
    """:return: ``sum over reduce of a * b``; dims: a's remaining dims, then b's remaining dims not in a

    :raises FrontendError: a reduce dim missing in a or b, different dtypes
    """
    from returnn.frontend.dims import mask_value
    reduce = _utils.as_dims(reduce)
    _utils.check_dims("matmul", a, reduce)
    _utils.check_dims("matmul", b, reduce)
    if a.dtype != b.dtype:
        raise FrontendError("matmul", f"both operands need the same dtype; {a.name!r} is {a.dtype}, {b.name!r} is "
                                      f"{b.dtype}")
    if use_mask:
        # zeros in the padded frames of one operand suffice (for finite values the sum is the same, bit for bit):
        # the smaller one, e.g. the values [B, H, T, D] rather than the attention weights [B, H, T, T]
        masked_b = _size_key(b) < _size_key(a)
        for d in reduce:
            if d.need_masking():
                if masked_b:
                    b = mask_value(b, d, 0)
                else:
                    a = mask_value(a, d, 0)
    a_red = _reduce_axes(a, reduce)
    b_red = _reduce_axes(b, reduce)
    a_rest = [i for i in range(len(a.dims)) if i not in a_red]
    b_rest = [i for i in range(len(b.dims)) if i not in b_red]
    letters = iter(string.ascii_letters)
    a_sub = [""] * len(a.dims)
    b_sub = [""] * len(b.dims)
    for i, j in zip(a_red, b_red):
        a_sub[i] = b_sub[j] = next(letters)
    for i in a_rest:
        a_sub[i] = next(letters)
    out_dims, out_sub = [a.dims[i] for i in a_rest], [a_sub[i] for i in a_rest]
    used: list = []
    for j in b_rest:
        d = b.dims[j]
        shared = [i for i in a_rest if i not in used and (a.dims[i] is d or a.dims[i] == d and not any(
            b.dims[k] is a.dims[i] for k in b_rest))]
        if shared:
            used.append(shared[0])
            b_sub[j] = a_sub[shared[0]]
        else:
            b_sub[j] = next(letters)
            out_dims.append(d)
            out_sub.append(b_sub[j])
    eq = f"{''.join(a_sub)},{''.join(b_sub)}->{''.join(out_sub)}"
    backend = _utils.backend_of(a, b)
    raw = backend.einsum(eq, _utils.aligned_raw(a, a.dims, backend=backend),
                         _utils.aligned_raw(b, b.dims, backend=backend))
    return _utils.make_tensor("dot", out_dims, a.dtype, raw)


def _reduce_axes(x: Tensor, reduce: Sequence[Dim]) -> list:
    """:return: the axes of the ``reduce`` dims in ``x``: among equal dims the one of the highest match priority,
    then the identical one (as the reference: ``Linear(d, d)``'s weight ``[d (priority 1), d]`` reduces its first
    axis, observed)"""
    used: list = []
    for d in reduce:
        cands = [i for i, e in enumerate(x.dims) if i not in used and (e is d or e == d)]
        if not cands:
            raise FrontendError("matmul", f"{d!r} is not a dim of {x.name!r}", got=x.dims)
        used.append(max(cands, key=lambda i: (x.dims[i].match_priority, x.dims[i] is d)))
    return used


dot = matmul


def _size_key(x: Tensor) -> tuple:
    """:return: a key ordering tensors by size without knowing dynamic sizes: the number of dynamic dims (the batch
    counts as one), then the product of the static ones"""
    static = 1
    for d in x.dims:
        if d.dimension is not None:
            static *= d.dimension
    return sum(1 for d in x.dims if d.dimension is None), static

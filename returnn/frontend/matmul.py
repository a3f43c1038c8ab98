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
        for d in reduce:
            if d.need_masking():
                a = mask_value(a, d, 0)
    all_dims = list(a.dims) + [d for d in b.dims if d not in a.dims]
    if len(all_dims) > len(string.ascii_letters):
        raise FrontendError("matmul", "too many dims")
    letters = {i: string.ascii_letters[i] for i in range(len(all_dims))}

    def sub(x: Tensor) -> str:
        return "".join(letters[all_dims.index(d)] for d in x.dims)

    out_dims = [d for d in all_dims if d not in reduce]
    eq = f"{sub(a)},{sub(b)}->{''.join(letters[all_dims.index(d)] for d in out_dims)}"
    backend = _utils.backend_of(a, b)
    raw = backend.einsum(eq, _utils.aligned_raw(a, a.dims, backend=backend),
                         _utils.aligned_raw(b, b.dims, backend=backend))
    return _utils.make_tensor("dot", out_dims, a.dtype, raw)


dot = matmul

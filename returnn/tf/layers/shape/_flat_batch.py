"""The batch dim of a packed (``flatten_batch``) tensor: the real frames of ``{B, T}`` in one axis.

It is a batch-kind :class:`Dim` (so ``batch_dim_axis`` finds it) that remembers the time dim it packs and the
order, and is written as the reference writes it: ``B&Packed{'time'}`` (batch-major order) or
``Packed{'time'}&B`` (time-major order). ``flatten_batch`` sets :attr:`FlatBatchDim.mask` (the raw ``{B, T}`` resp.
``{T, B}`` bool mask of the packed frames), which ``unflatten_batch`` uses to put the frames back.
"""

from __future__ import annotations

from typing import Any

from returnn.tensor import Dim


class FlatBatchDim(Dim):
    """Batch dim of a tensor whose batch and ``time_dim`` axes were packed into one axis."""

    def __init__(self, time_dim: Dim, *, batch_major: bool = True):
        super().__init__(None, description=f"flat-batch:{time_dim.description}", kind=Dim.Types.Batch)
        self.time_dim = time_dim
        self.batch_major = batch_major
        self.mask: Any = None

    def short_repr(self) -> str:
        packed = f"Packed{{{self.time_dim.get_same_base().description!r}}}"
        return f"B&{packed}" if self.batch_major else f"{packed}&B"

"""The dim arithmetic operators of :class:`~returnn.tensor.dim.Dim` (``time + 1``, ``2 * time``, ``time // 2``,
``-time``, ``time.sub_right(1)``, ``time.ceildiv_right(2)``, ...), as the reference's ``Dim`` has them: each gives a
derived ``Dim`` whose description is the reference's expression (``'time+1'``, ``'⌈time/2⌉'``), equal to any other
``Dim`` of the same expression. The canonical forms and sizes are in :mod:`returnn.tensor._dim_math`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from returnn.tensor import _dim_math

if TYPE_CHECKING:
    from returnn.tensor.dim import Dim


class DimArithmetic:
    """Mixin of :class:`~returnn.tensor.dim.Dim`: the arithmetic operators (``int`` or ``Dim`` operands; a
    non-integer operand raises ``TypeError``, a static size not divisible by a ``/`` divisor an error)."""

    def __add__(self, other: Any) -> Dim:
        return _dim_math.add(self, other)

    def __radd__(self, other: Any) -> Dim:
        return _dim_math.add_left(self, other)

    def __sub__(self, other: Any) -> Dim:
        return _dim_math.sub(self, other)

    def __mul__(self, other: Any) -> Dim:
        return _dim_math.mul(self, other)

    def __rmul__(self, other: Any) -> Dim:
        return _dim_math.mul_left(self, other)

    def __neg__(self) -> Dim:
        return _dim_math.mul_left(self, -1)

    def __floordiv__(self, other: Any) -> Dim:
        return _dim_math.floordiv(self, other)

    def __truediv__(self, other: Any) -> Dim:
        return self.div_right(other)

    def sub_right(self, other: int) -> Dim:
        """:return: ``self - other`` (``'time+-1'``)"""
        return _dim_math.add(self, -_dim_math.as_int(self, other, "sub_right"))

    def sub_left(self, other: int) -> Dim:
        """:return: ``-other + self`` (``'-1+time'``)"""
        return _dim_math.add_left(self, -_dim_math.as_int(self, other, "sub_left"))

    def ceildiv_right(self, other: int) -> Dim:
        """:return: ``ceil(self / other)`` (``'⌈time/2⌉'``)"""
        return _dim_math.ceildiv(self, other)

    def ceildiv_left(self, other: int) -> Dim:
        """:return: ``ceil(self / other)``, written as the reference's left division (``'⌈time /l 2⌉'``)"""
        return _dim_math.ceildiv(self, other, left=True)

    def div_right(self, other: int) -> Dim:
        """:return: ``self / other`` (``'time/2'``); a static size must be divisible"""
        return _dim_math.truediv(self, other)

    def div_left(self, other: int) -> Dim:
        """:return: ``self / other``, written as the reference's left division (``'time /l 2'``)"""
        return _dim_math.truediv(self, other, left=True)

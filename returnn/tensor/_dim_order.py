"""The sort order shared by :class:`~returnn.tensor.dim.Dim` and :class:`~returnn.tensor.marked_dim.MarkedDim`
(``sorted(dims)`` works on a mix of both, as in the reference): each class defines ``__lt__``; ``>``, ``<=`` and
``>=`` follow from it here. Comparing with anything else raises ``TypeError``."""

from __future__ import annotations

from typing import Any


class DimOrder:
    """Mixin: ``>``, ``<=``, ``>=`` from the class's own ``__lt__`` and ``__eq__``."""

    def __gt__(self, other: Any) -> bool:
        from returnn.tensor.dim import Dim
        from returnn.tensor.marked_dim import MarkedDim
        if not isinstance(other, (Dim, MarkedDim)):
            raise TypeError(f"cannot compare {self!r} with {other!r}")
        return other < self

    def __le__(self, other: Any) -> bool:
        return self == other or self < other

    def __ge__(self, other: Any) -> bool:
        return self == other or self > other

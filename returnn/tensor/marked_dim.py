"""Marked dims: a :class:`returnn.tensor.Dim` wrapped with a role, used in ``out_shape`` sets
(:meth:`returnn.tensor.Tensor.verify_out_shape`).

- :class:`ImplicitSparseDim`: the dim is the sparse dim (class indices) of the tensor, not an axis;
- :class:`ImplicitDynSizeDim`: the dim is only implied by the dynamic sizes of an axis (e.g. the batch dim of the
  lengths of a time axis when the tensor itself has no batch axis);
- :class:`OptionalDim`: the axis may or may not be there.

As observed in the reference (``returnn.tensor.marked_dim``): ``repr`` is ``ImplicitSparseDim(Dim{'a'[?]})``; two
marked dims are equal when class and dim are equal; a marked dim never equals a plain dim; sorting puts plain dims
first (by creation order), then marked dims by class name and dim.
"""

from __future__ import annotations

from typing import Any, Tuple

from returnn.tensor._dim_order import DimOrder


class MarkedDim(DimOrder):
    """A dim with a role (see the subclasses).

    :param tag: the :class:`returnn.tensor.Dim`
    """

    def __init__(self, tag: Any):
        from returnn.tensor.dim import Dim
        if not isinstance(tag, Dim):
            from returnn.errors import TensorArgError
            raise TensorArgError(f"{type(self).__name__}(...)", "expected a Dim", got=tag)
        self.tag = tag

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.tag!r})"

    def _eq_tuple(self) -> Tuple[Any, ...]:
        return type(self), self.tag

    def __eq__(self, other: Any) -> bool:
        if not isinstance(other, MarkedDim):
            return False
        return self._eq_tuple() == other._eq_tuple()

    def __ne__(self, other: Any) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return hash(self._eq_tuple())

    def __lt__(self, other: Any) -> bool:
        from returnn.tensor.dim import Dim
        if isinstance(other, Dim):
            return False  # plain dims sort first
        if not isinstance(other, MarkedDim):
            raise TypeError(f"cannot compare {self!r} with {other!r}")
        if type(self) is not type(other):
            return type(self).__name__ < type(other).__name__
        return self.tag < other.tag

class ImplicitDim(MarkedDim):
    """A dim the tensor implies without having it as an axis."""


class ImplicitSparseDim(ImplicitDim):
    """The tensor's sparse dim (the number of classes of its indices)."""


class ImplicitDynSizeDim(ImplicitDim):
    """A dim (e.g. the batch dim) that only the dynamic sizes of one of the tensor's axes have."""


class OptionalDim(MarkedDim):
    """An axis that may be missing."""

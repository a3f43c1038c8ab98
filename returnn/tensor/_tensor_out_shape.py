"""The implicit dims of a :class:`returnn.tensor.Tensor` and the ``out_shape`` check (:class:`TensorOutShapeMixin`).

A tensor implies dims it has no axis for: its sparse dim (``ImplicitSparseDim``) and the dims of the dynamic sizes
of its axes that are not axes themselves (``ImplicitDynSizeDim``, e.g. the batch dim of a time axis's lengths when
the tensor has no batch axis). An ``out_shape`` is a set of dims (plain, implicit or ``OptionalDim``) that must
describe the tensor's dims exactly, as the reference's ``verify_out_shape`` (observed):

- each plain dim of ``out_shape`` must be an axis or an implicit dim of the tensor;
- each implicit dim of ``out_shape`` must be an implicit dim of the tensor;
- an ``OptionalDim`` may be missing;
- each axis and implicit dim of the tensor must be in ``out_shape`` (as plain or marked dim); implicit ones may be
  missing with ``allow_missing_implicit_dims``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, List, Set

from returnn.tensor.dim import Dim, VerifyOutShapeException
from returnn.tensor.marked_dim import ImplicitDim, ImplicitDynSizeDim, ImplicitSparseDim, MarkedDim, OptionalDim
from returnn.tensor.search_beam import beam_variant_of

if TYPE_CHECKING:
    from returnn.tensor.tensor import Tensor


class TensorOutShapeMixin:
    """Implicit dims and :meth:`verify_out_shape` of ``Tensor`` (see module doc)."""

    def get_implicit_dims(self: Tensor) -> List[ImplicitDim]:
        """:return: the implicit dims (sparse dim first, then the dyn-size dims in axis order), each once"""
        result: List[ImplicitDim] = []
        dims = list(self.dims)
        if self.sparse_dim is not None and self.sparse_dim not in dims:
            result.append(ImplicitSparseDim(self.sparse_dim))
        for dim in dims:
            if dim.is_batch_dim() or not dim.is_dynamic() or dim.dyn_size_ext is None:
                continue
            for size_dim in dim.dyn_size_ext.dims:
                marked = ImplicitDynSizeDim(size_dim)
                if size_dim not in dims and marked not in result:
                    result.append(marked)
        return result

    @property
    def dim_tags_set_implicit_only_wrapped(self: Tensor) -> Set[ImplicitDim]:
        """:return: the implicit dims as marked dims (see :meth:`get_implicit_dims`)"""
        return set(self.get_implicit_dims())

    @property
    def dim_tags_set_implicit_only(self: Tensor) -> Set[Dim]:
        """:return: the implicit dims as plain dims"""
        return {marked.tag for marked in self.get_implicit_dims()}

    @property
    def dim_tags_set_implicit(self: Tensor) -> Set[Dim]:
        """:return: the axes' dims and the implicit dims, all as plain dims"""
        return set(self.dims) | self.dim_tags_set_implicit_only

    def verify_out_shape(self: Tensor, out_shape: Any, allow_missing_implicit_dims: bool = False) -> None:
        """Checks that ``out_shape`` (a set of dims, see module doc) describes this tensor's dims.

        :raises TypeError: ``out_shape`` is not a set (an empty dict, tuple or list, e.g. ``{}`` or ``()``, counts
            as the empty set, as the reference, observed)
        :raises VerifyOutShapeException: a dim of ``out_shape`` is not in the tensor, or a dim of the tensor is
            not in ``out_shape``; the message lists both sets
        """
        if isinstance(out_shape, (dict, tuple, list)) and not out_shape:  # ``{}``/``()``: the empty set (scalar)
            out_shape = set()
        if not isinstance(out_shape, (set, frozenset)):
            raise TypeError(f"{self} verify_out_shape: expects a set but got {type(out_shape)}")
        implicit = self.get_implicit_dims()
        # a dim repeated per hypothesis of a search counts as the dim it repeats (one dim in the reference)
        dims = [beam_variant_of(d) or d for d in self.dims]
        actual: List[Any] = list(dims) + implicit
        header = f"{self} verify_out_shape:\nActual dims: {_fmt(actual)}\nExpected out_shape: {_fmt(out_shape)}\n"
        implicit_tags = {marked.tag for marked in implicit}
        for entry in out_shape:
            if isinstance(entry, ImplicitDim):
                if entry not in implicit:
                    raise VerifyOutShapeException(header + f"{entry} is not an implicit dim in self")
            elif isinstance(entry, Dim):
                if entry not in dims and entry not in implicit_tags:
                    raise VerifyOutShapeException(header + f"Dim {entry} not in self")
            elif not isinstance(entry, OptionalDim):
                raise TypeError(f"{self} verify_out_shape: expected Dim or MarkedDim in out_shape, got {entry!r}")
        covered = {_tag(entry) for entry in out_shape}
        missing = [d for d in dims if d not in covered]
        if not allow_missing_implicit_dims:
            missing += [marked.tag for marked in implicit if marked.tag not in covered]
        if missing:
            raise VerifyOutShapeException(f"{self} verify_out_shape missing dims:\nActual dims: {_fmt(actual)}\n"
                                          f"Expected out_shape: {_fmt(out_shape)}\n"
                                          f"Missing dims: {', '.join(str(d) for d in missing)}")


def _tag(dim: Any) -> Dim:
    return dim.tag if isinstance(dim, MarkedDim) else dim


def _fmt(dims: Any) -> str:
    return "{" + ", ".join(repr(d) for d in dims) + "}"

"""``SearchBeam``: names one beam of a beam search (``Tensor.beam``, ``BatchInfo.beam``). Backend-free.

Follows the reference's ``returnn.tf.util.data.SearchBeam`` as observed:

- ``SearchBeam(beam_size, dependency=NotSpecified, name=None)``; ``repr`` is
  ``SearchBeam(name='x', beam_size=3)`` (``, dependency=...`` appended when one is set);
- two beams are equal when they are the same object, or both are named with the same name (the size and
  dependency are not compared);
- :meth:`copy_as_prev_frame` gives the beam of the previous loop frame, named ``'/prev:<name>'``;
- :meth:`get_combined_beam` picks the beam that depends on the other (or the other if one is None).
"""

from __future__ import annotations

import operator
from typing import Any, List, Optional

from returnn.errors import TensorArgError
from returnn.util.values import NotSpecified


class SearchBeam:
    """A beam of ``beam_size`` hypotheses per sequence.

    :param beam_size: K, a positive int
    :param dependency: the beam this one was derived from (the beam of an outer search), ``NotSpecified`` if unknown,
        or None for none
    :param name: e.g. the choice layer's name (``"output/output"``); None for an anonymous beam
    """

    def __init__(self, beam_size: int, dependency: Any = NotSpecified, name: Optional[str] = None,
                 _next_frame: Optional[SearchBeam] = None):
        try:
            beam_size = operator.index(beam_size)  # also numpy ints
        except TypeError:
            raise TensorArgError("SearchBeam(beam_size=...)", "the beam size must be an int", got=beam_size) from None
        if not isinstance(dependency, SearchBeam) and dependency is not None and dependency is not NotSpecified:
            raise TensorArgError("SearchBeam(dependency=...)", "expected a SearchBeam, None or NotSpecified",
                                 got=dependency)
        self.beam_size = beam_size
        self.dependency = dependency
        self.name = name
        self._next_frame = _next_frame

    def copy_as_prev_frame(self) -> SearchBeam:
        """:return: the beam of the previous frame of a loop (named ``'/prev:<name>'``; this beam is its next frame)"""
        if self._next_frame is not None:  # already the beam of a previous frame
            return self
        assert self.name, f"{self!r}: only a named beam has a previous frame"
        return SearchBeam(beam_size=self.beam_size, name=f"/prev:{self.name}", _next_frame=self)

    @property
    def next_frame(self) -> Optional[SearchBeam]:
        """:return: for a beam made by :meth:`copy_as_prev_frame`, the beam it was made from, else None"""
        return self._next_frame

    def _dependencies(self) -> List[SearchBeam]:
        """:return: this beam and every beam it depends on, innermost first"""
        chain: List[SearchBeam] = []
        beam: Any = self
        while isinstance(beam, SearchBeam):
            chain.append(beam)
            beam = beam.dependency
        return chain

    def __repr__(self) -> str:
        items = [f"name={self.name!r}", f"beam_size={self.beam_size}"]
        if self.dependency is not NotSpecified and self.dependency is not None:
            items.append(f"dependency={self.dependency!r}")
        return "SearchBeam(" + ", ".join(items) + ")"

    def __eq__(self, other: Any) -> bool:
        if self is other:
            return True
        if not isinstance(other, SearchBeam) or not self.name or not other.name:
            return False
        return self.name == other.name

    def __ne__(self, other: Any) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return hash(self.name) if self.name else hash(self.beam_size)

    @staticmethod
    def get_combined_beam(beam1: Optional[SearchBeam], beam2: Optional[SearchBeam] = None,
                          *beams: Optional[SearchBeam]) -> Optional[SearchBeam]:
        """Combines beams of the inputs of an operation.

        :return: None if all are None; the single beam if only one is given; else the beam that (transitively)
            depends on all the others
        :raises TensorArgError: two beams that do not depend on each other
        """
        if beams:
            return SearchBeam.get_combined_beam(SearchBeam.get_combined_beam(beam1, beam2), *beams)
        if beam1 is None:
            return beam2
        if beam2 is None or beam1 == beam2:
            return beam1
        if beam1 in beam2._dependencies():
            return beam2
        if beam2 in beam1._dependencies():
            return beam1
        if beam1.next_frame is not None and beam1.next_frame == beam2:  # the previous frame of the same beam
            return beam2
        if beam2.next_frame is not None and beam2.next_frame == beam1:
            return beam1
        raise TensorArgError("SearchBeam.get_combined_beam", "the beams do not depend on each other",
                             got=f"{beam1!r} and {beam2!r}")


#: on a dim made for the hypotheses of a search: the dim it repeats per hypothesis (see :func:`set_beam_variant_of`)
_BEAM_VARIANT_OF = "_beam_variant_of"


def set_beam_variant_of(dim: Any, base: Any) -> None:
    """Marks ``dim`` as the variant of ``base`` for the hypotheses of a search: the same axis, its lengths repeated
    per hypothesis (``[B*K]`` instead of ``[B]``). The reference keeps one dim for both (its dims have per-batch
    variants); here the variant is a dim of its own that :func:`beam_variant_of` maps back, e.g. for
    ``verify_out_shape``."""
    dim.__dict__[_BEAM_VARIANT_OF] = base


def beam_variant_of(dim: Any) -> Any:
    """:return: the dim that ``dim`` repeats per hypothesis (see :func:`set_beam_variant_of`), or None"""
    return getattr(dim, "__dict__", {}).get(_BEAM_VARIANT_OF)

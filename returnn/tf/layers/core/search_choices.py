"""``network.get_search_choices(src=layer)``: the beam search choices a layer depends on (reference API).

In a search, a ``choice`` layer inside a rec loop selects, per step, the ``K`` best hypotheses of each sequence.
Its search choices describe that selection:

- ``owner``: the ``choice`` layer
- ``beam_size``: ``K``
- ``src_beams``: int32 ``[B, K]``, for each new hypothesis the index of the hypothesis it extends
- ``beam_scores``: float32 ``[B, K]``, the accumulated log scores of the new hypotheses

Without a search (e.g. in training, where ``choice`` returns the target) there are none: None, as the reference.
"""

from __future__ import annotations

from typing import Any, Iterable, List, Optional


class SearchChoices:
    """The selection made by one ``choice`` layer in one step of a search (see module doc)."""

    def __init__(self, owner: Any, *, beam_size: Optional[int] = None, src_beams: Any = None,
                 beam_scores: Any = None):
        """:param owner: the layer that made the selection (its ``beam_size``, ``search_src_beams`` and
            ``search_scores`` are used where the arguments are not given)
        :param beam_size: ``K``; for a ``decide`` layer 1 (its one chosen hypothesis per sequence)
        :param src_beams: int32 ``[B, K]``
        :param beam_scores: float32 ``[B, K]``
        """
        self.owner = owner
        self._beam_size = beam_size
        self._src_beams = src_beams
        self._beam_scores = beam_scores

    def __repr__(self) -> str:
        return f"<SearchChoices owner={self.owner.name!r} beam_size={self.beam_size}>"

    @property
    def beam_size(self) -> int:
        if self._beam_size is not None:
            return self._beam_size
        return int(getattr(self.owner, "beam_size", 1))

    @property
    def src_beams(self) -> Any:
        """int32 ``[B, K]``: the hypothesis index (in ``[0, K)``) each new hypothesis extends"""
        return self._src_beams if self._src_beams is not None else self.owner.search_src_beams

    @property
    def beam_scores(self) -> Any:
        """float32 ``[B, K]``: accumulated log scores of the new hypotheses"""
        return self._beam_scores if self._beam_scores is not None else self.owner.search_scores


def find_search_choices(layers: Iterable[Any]) -> Optional[SearchChoices]:
    """:return: search choices of the nearest layer (breadth first over ``layers`` and their dependencies) that
    made a search selection (``search_src_beams`` set), or None"""
    todo: List[Any] = [layer for layer in layers if layer is not None]
    seen = set()
    while todo:
        layer = todo.pop(0)
        if id(layer) in seen:
            continue
        seen.add(id(layer))
        if getattr(layer, "search_src_beams", None) is not None:
            return SearchChoices(layer)
        get_deps = getattr(layer, "get_dep_layers", None)
        if get_deps is not None:
            todo.extend(get_deps())
    return None

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

    def __init__(self, owner: Any):
        self.owner = owner

    def __repr__(self) -> str:
        return f"<SearchChoices owner={self.owner.name!r} beam_size={self.beam_size}>"

    @property
    def beam_size(self) -> int:
        return int(getattr(self.owner, "beam_size", 1))

    @property
    def src_beams(self) -> Any:
        """int32 ``[B, K]``: the hypothesis index (in ``[0, K)``) each new hypothesis extends"""
        return self.owner.search_src_beams

    @property
    def beam_scores(self) -> Any:
        """float32 ``[B, K]``: accumulated log scores of the new hypotheses"""
        return self.owner.search_scores


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

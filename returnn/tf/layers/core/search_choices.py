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

    def __eq__(self, other: object) -> bool:
        """The same selection: the same owner layer (a layer's search choices may be asked for several times)"""
        return isinstance(other, SearchChoices) and other.owner is self.owner

    def __hash__(self) -> int:
        return id(self.owner)

    @property
    def beam_size(self) -> int:
        if self._beam_size is not None:
            return self._beam_size
        return int(getattr(self.owner, "beam_size", 1))

    @property
    def src_beams(self) -> Any:
        """int32 ``[B, K]``: the hypothesis index (in ``[0, K)``) each new hypothesis extends"""
        return self._src_beams if self._src_beams is not None else getattr(self.owner, "search_src_beams", None)

    @property
    def beam_scores(self) -> Any:
        """float32 ``[B, K]``: accumulated log scores of the new hypotheses"""
        return self._beam_scores if self._beam_scores is not None else getattr(self.owner, "search_scores", None)

    def get_src_choices_seq(self) -> List["SearchChoices"]:
        """:return: these choices, then the search choices the owner's input depends on, then theirs, ... (e.g. in a
            searched rec loop ``[choices of "output", choices of "prev:output"]``: the hypotheses this choice
            extended are those of the previous step's)"""
        seq = [self]
        current: Optional[SearchChoices] = self
        while current is not None:
            get_deps = getattr(current.owner, "get_dep_layers", None)
            current = find_search_choices(get_deps() if get_deps is not None else [])
            if current is None or current in seq:
                break
            seq.append(current)
        return seq


def _own_choices(layer: Any) -> Optional[SearchChoices]:
    """:return: the selection ``layer`` made itself or stands for (a rec loop's ``prev:`` value, a value gathered
        into the rows of a choice: :attr:`LayerBase.fixed_search_choices`), or None"""
    if getattr(layer, "search_src_beams", None) is not None:
        return SearchChoices(layer)
    return getattr(layer, "fixed_search_choices", None)


def find_search_choices(layers: Iterable[Any]) -> Optional[SearchChoices]:
    """:return: the latest search choices among those ``layers`` depend on (breadth first over ``layers`` and their
    dependencies, not past a layer with search choices of its own): those whose
    :meth:`SearchChoices.get_src_choices_seq` contains all others found (else the first found), or None"""
    todo: List[Any] = [layer for layer in layers if layer is not None]
    seen = set()
    found: List[SearchChoices] = []
    while todo:
        layer = todo.pop(0)
        if id(layer) in seen:
            continue
        seen.add(id(layer))
        choices = _own_choices(layer)
        if choices is not None:
            if choices not in found:
                found.append(choices)
            continue
        get_deps = getattr(layer, "get_dep_layers", None)
        if get_deps is not None:
            todo.extend(get_deps())
    if len(found) <= 1:
        return found[0] if found else None
    for choices in found:
        seq = choices.get_src_choices_seq()
        if all(other in seq for other in found):
            return choices
    return found[0]


def debug_search_choices(layer: Any, file: Any = None) -> None:
    """Prints the layers ``layer`` depends on (down to those with search choices of their own), each with the
    search choices found for it, as a tree (the reference's ``network.debug_search_choices``, for debugging)."""
    import sys
    out = file if file is not None else sys.stdout
    seen = set()

    def visit(current: Any, depth: int) -> None:
        own = _own_choices(current)
        print("  " * depth + f"{current.name!r}: {own if own is not None else find_search_choices([current])}",
              file=out)
        if own is not None or id(current) in seen:
            return
        seen.add(id(current))
        get_deps = getattr(current, "get_dep_layers", None)
        for dep in (get_deps() if get_deps is not None else []):
            visit(dep, depth + 1)

    visit(layer, 0)

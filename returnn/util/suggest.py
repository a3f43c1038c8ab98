"""Did-you-mean suggestions for unknown names (config keys, layer classes, dataset classes, ...)."""

from __future__ import annotations

import difflib
from typing import Iterable, List


def close_matches(name: str, candidates: Iterable[str], *, cutoff: float = 0.75, spread: float = 0.1,
                  max_results: int = 3) -> List[str]:
    """Returns the candidates closest to ``name``, best first.

    Similarity is :class:`difflib.SequenceMatcher`'s ratio on lower-cased strings. Only candidates with a ratio
    of at least ``cutoff`` are kept, and of those only ones within ``spread`` of the best, so that ``"n_ot"``
    suggests ``"n_out"`` but not every other arg that shares a few letters.

    :param name: the unknown name
    :param candidates: the valid names
    :param cutoff: minimal ratio in [0, 1]
    :param spread: keep only matches whose ratio is at least ``best - spread``
    :param max_results: at most this many results
    :return: list of candidates (original spelling), possibly empty
    """
    scored = []
    lowered = name.lower()
    for cand in set(candidates):
        ratio = difflib.SequenceMatcher(None, lowered, cand.lower()).ratio()
        if ratio >= cutoff:
            scored.append((ratio, cand))
    if not scored:
        return []
    scored.sort(key=lambda item: (-item[0], item[1]))
    best = scored[0][0]
    return [cand for ratio, cand in scored if ratio >= best - spread][:max_results]

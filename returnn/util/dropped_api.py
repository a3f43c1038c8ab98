"""Old forms of the API that the reference dropped, accepted here with the meaning they had (beyond the reference).

Configs written for an older RETURNN use forms that the current reference rejects with a ``TypeError`` or an
``AttributeError`` (``DimensionTag(kind=..., description=...)`` without ``dimension``, ...).
Where the old meaning is known (observed by running the release the configs were written for), this project
accepts the old form with that meaning and prints one warning per form and process on the log (level 2)::

    WARNING: dropped API: <old form> (removed from the reference <when>); accepted here with its old meaning:
    <meaning>. Use <new form>.

Each accepted use is also counted, so that a caller (the published-config runner) can tell which old forms a
config needed: :func:`dropped_api_uses`.

The forms accepted are listed in :data:`DROPPED_APIS` (key → :class:`DroppedApi`); the code that accepts one calls
:func:`accept_dropped_api` with its key.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Dict, List


@dataclass(frozen=True)
class DroppedApi:
    """One old form: how it was written, since when the reference rejects it, what it meant, what to write now."""

    old: str
    removed: str
    meaning: str
    new: str

    def warning_text(self) -> str:
        """The warning line (without the ``WARNING:`` prefix)."""
        return (f"dropped API: {self.old} (removed from the reference {self.removed}); accepted here with its old "
                f"meaning: {self.meaning}. Use {self.new}.")


DROPPED_APIS: Dict[str, DroppedApi] = {
    "dim_without_dimension": DroppedApi(
        old="DimensionTag(kind=..., description=...) without dimension",
        removed="after release 1.20220601, which still took it; the current one raises \"missing 1 required "
                "positional argument: 'dimension'\"",
        meaning="dimension=None, a dynamic axis such as time",
        new="DimensionTag(kind=..., description=..., dimension=None)"),
    "rec_step_info_get_end_flag": DroppedApi(
        old="RecStepInfoLayer.get_end_flag(target_search_choices)",
        removed="between releases 1.20201223 (which has it) and 1.20211229; now an AttributeError",
        meaning="in a loop over a given time axis, whether each sequence has ended at this step (step >= seq_len)",
        new="get_prev_end_flag(), which is true one step later (step - 1 >= seq_len)"),
}

_lock = threading.Lock()
_uses: Dict[str, int] = {}


def accept_dropped_api(key: str) -> None:
    """Records one use of the old form ``key`` (of :data:`DROPPED_APIS`) and prints its warning on the first use
    (log level 2).

    :raises KeyError: for a key not in :data:`DROPPED_APIS` (an internal mistake)
    """
    api = DROPPED_APIS[key]
    with _lock:
        first = not _uses.get(key)
        _uses[key] = _uses.get(key, 0) + 1
    if first:
        from returnn.log import log

        print("WARNING:", api.warning_text(), file=log.v2)


def dropped_api_uses() -> List[str]:
    """The keys of :data:`DROPPED_APIS` used in this process so far, in the order of :data:`DROPPED_APIS`."""
    with _lock:
        return [key for key in DROPPED_APIS if _uses.get(key)]


def reset_dropped_api_uses() -> None:
    """Forgets the uses counted so far; the next use of each form prints its warning again."""
    with _lock:
        _uses.clear()

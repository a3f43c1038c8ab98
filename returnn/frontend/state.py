"""``rf.State``: a dict with attribute access, for recurrent states (``state.h``, ``state["h"]``)."""

from __future__ import annotations

from typing import Any

__all__ = ["State"]


class State(dict):
    """A dict whose entries are also attributes: ``State(h=x, c=y).h``; nested in the loop ops like a dict."""

    def __init__(self, *args: Any, **kwargs: Any):
        if args and isinstance(args[0], (list, tuple)) and not isinstance(args[0], dict) and args[0] and \
                not isinstance(args[0][0], tuple):
            args = (dict(enumerate(args[0])), *args[1:])  # a list of states: keys 0, 1, ...
        super().__init__(*args, **kwargs)

    def __repr__(self) -> str:
        return f"State({', '.join(f'{k}={v!r}' for k, v in self.items())})"

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"State has no entry {name!r} (entries: {list(self.keys())})") from None

    def __setattr__(self, name: str, value: Any) -> None:
        self[name] = value

    def __delattr__(self, name: str) -> None:
        del self[name]

    def __reduce__(self) -> Any:
        return State, (dict(self),)

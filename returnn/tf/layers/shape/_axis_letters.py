"""Axis descriptions made of the letters ``b``, ``t``, ``f`` (``"bt"``, ``"TB"``, ``"btf"``), as the reference
accepts them: each letter is its axis, in the given order (``"bt"`` = ``["B", "T"]``). Other descriptions pass
through unchanged to ``Tensor.get_axes_from_description``."""

from __future__ import annotations

from typing import Any

_LETTERS = {"b": "B", "t": "T", "f": "F"}


def expand_axis_letters(axes: Any) -> Any:
    """:return: ``axes`` with letter strings like ``"bt"`` expanded to ``["B", "T"]``; anything else unchanged"""
    if isinstance(axes, str) and len(axes) > 1 and all(c in _LETTERS for c in axes.lower()):
        return [_LETTERS[c] for c in axes.lower()]
    if isinstance(axes, (list, tuple)):
        return [expand_axis_letters(a) for a in axes]
    return axes

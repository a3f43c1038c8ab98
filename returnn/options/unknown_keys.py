"""The start-up warning about misspelled config keys.

A Python config defines helper globals besides its keys, so an unknown name is not an error. A name gets one warning
line (``Warning: config key 'batch_szie' is not used by RETURNN; did you mean 'batch_size'?``) when all hold:

* it is not a known key (:func:`returnn.options.known_keys.known_keys`);
* it is close to a known key: at most one edit (insert, delete, replace, or swap of two neighbouring letters) for
  names of up to 9 characters, at most two for longer ones; names shorter than 4 characters are never warned about;
* it is not used by the config itself: a Python config that reads the name (in an expression, a function body, or as
  a string, e.g. ``config.typed_value("my_key")`` in a custom layer) uses it as a helper;
* it does not start with ``_`` and is not a module (``import os``).

Names from ``++key value`` on the command line are checked the same way (a ``++`` override of a helper global that
the config reads is silent).
"""

from __future__ import annotations

import ast
import types
from typing import Iterable, List, Optional, Sequence, Set, Tuple

from returnn.log import log

_SKIP = frozenset({"config", "__file__", "__name__", "__builtins__", "__package__", "__doc__"})


def edit_distance(a: str, b: str, limit: int) -> int:
    """Optimal-string-alignment distance (insert, delete, replace, swap of neighbours) of ``a`` and ``b``, or
    ``limit + 1`` if it is larger than ``limit``."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    prev2: List[int] = []
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        if min(cur) > limit:
            return limit + 1
        prev2, prev = prev, cur
    return prev[-1] if prev[-1] <= limit else limit + 1


def max_distance(name: str) -> int:
    """How many edits away from a known key ``name`` may be to count as a misspelling of it."""
    if len(name) < 4:
        return 0
    return 1 if len(name) <= 9 else 2


def closest_key(name: str, known: Iterable[str]) -> Optional[str]:
    """The known key closest to ``name`` within :func:`max_distance` (ties: alphabetical), or None."""
    limit = max_distance(name)
    if limit == 0:
        return None
    best: Optional[Tuple[int, str]] = None
    for key in known:
        dist = edit_distance(name.lower(), key.lower(), limit)
        if dist <= limit and (best is None or (dist, key) < best):
            best = (dist, key)
    return best[1] if best else None


def names_used_in_source(source: str) -> Set[str]:
    """Names a Python config reads: every name loaded in an expression or function body, attribute names, and
    every string constant (``config.typed_value("my_key")``)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    used: Set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Store):
            used.add(node.id)
        elif isinstance(node, ast.Attribute):
            used.add(node.attr)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) < 200:
            used.add(node.value)
        elif isinstance(node, ast.Global):
            used.update(node.names)
    return used


def _config_sources(config) -> List[str]:
    sources = []
    for filename in getattr(config, "files", []):
        try:
            with open(filename, encoding="utf8") as f:
                text = f.read()
        except (OSError, UnicodeDecodeError, TypeError):
            continue
        if filename.endswith(".py") or text.startswith("#!"):
            sources.append(text)
    return sources


def find_misspelled_keys(config, *, known: Optional[Iterable[str]] = None,
                         sources: Optional[Sequence[str]] = None) -> List[Tuple[str, str, bool]]:
    """``(name, closest known key, from the command line)`` for every name of ``config`` that looks like a
    misspelled key (see the module doc), sorted by name.

    :param known: the known keys (default: :func:`returnn.options.known_keys.known_keys`)
    :param sources: the Python config sources (default: read from ``config.files``)
    """
    from returnn.options.known_keys import known_keys

    known_set = frozenset(known) if known is not None else known_keys()
    used: Set[str] = set()
    for source in (sources if sources is not None else _config_sources(config)):
        used |= names_used_in_source(source)
    cmd_keys = set(getattr(config, "cmd_overrides", {}) or {})
    found = []
    for name in sorted(set(config.typed_dict) | set(config.dict) | cmd_keys):
        if name in known_set or name in _SKIP or name.startswith("_") or not name.isidentifier():
            continue
        if name in used or isinstance(config.typed_dict.get(name), types.ModuleType):
            continue
        match = closest_key(name, known_set)
        if match is not None:
            found.append((name, match, name in cmd_keys))
    return found


def warn_misspelled_keys(config, *, file=None) -> List[Tuple[str, str, bool]]:
    """Prints one warning line (log verbosity 2) per name of :func:`find_misspelled_keys`; returns them."""
    found = find_misspelled_keys(config)
    for name, match, from_cmd in found:
        print(format_warning(name, match, from_cmd), file=file or log.v2)
    return found


def format_warning(name: str, match: str, from_cmd: bool = False) -> str:
    """The warning line of one misspelled key."""
    where = " (set by ++%s)" % name if from_cmd else ""
    return "Warning: config key %r%s is not used by RETURNN; did you mean %r?" % (name, where, match)

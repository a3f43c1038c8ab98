"""JSON with ``//`` line comments, as RETURNN's JSON configs may have them."""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional


def _strip_line(line: str, strip_space: bool) -> str:
    """``line`` without its ``//`` comment (one outside a double-quoted string) and, with ``strip_space``,
    without white space outside strings."""
    out: List[str] = []
    in_string = False
    i = 0
    while i < len(line):
        c = line[i]
        if in_string:
            out.append(c)
            if c == "\\" and i + 1 < len(line):
                out.append(line[i + 1])
                i += 1
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
            out.append(c)
        elif line.startswith("//", i):
            break
        elif not (strip_space and c.isspace()):
            out.append(c)
        i += 1
    return "".join(out)


def json_remove_comments(string: str, strip_space: bool = True, *, keep_newlines: bool = False) -> str:
    """``string`` with ``//`` comments removed (a ``//`` inside a double-quoted string stays). Text without
    ``//`` is returned unchanged. The lines are joined without newline (``keep_newlines``: with, so that JSON
    error positions keep their line numbers).

    :param string: JSON text with comments
    :param strip_space: also drop white space outside strings
    """
    if "//" not in string:
        return string
    lines = [_strip_line(line, strip_space) for line in string.splitlines()]
    return ("\n" if keep_newlines else "").join(lines)


def load_json(filename: Optional[str] = None, content: Optional[str] = None) -> Dict[str, Any]:
    """The JSON object of file ``filename`` or of the text ``content`` (one of them), ``//`` comments allowed.

    :raises ValueError: neither or both given
    :raises json.JSONDecodeError: invalid JSON
    """
    if (filename is None) == (content is None):
        raise ValueError("load_json: expected exactly one of filename and content")
    if filename is not None:
        with open(filename, "r", encoding="utf8") as f:
            content = f.read()
    return json.loads(json_remove_comments(content, strip_space=False, keep_newlines=True))

"""Reading Python literals (numbers, strings, lists, dicts, sets, tuples, None, bools), as in big ``.py``-literal
data files (e.g. sequence lists or lexica written with ``repr``).

The reference converts the text to pickle bytes in native code for speed; this project parses with Python's
``ast`` (same results, including unicode escapes), and :func:`py_to_pickle` gives the pickle bytes of it."""

from __future__ import annotations

import ast
import pickle
from typing import Any


def literal_eval(s: str) -> Any:
    """The value of the Python literal ``s`` (``"{'a': [1, 2.5, None]}"`` → ``{'a': [1, 2.5, None]}``).

    :raises ValueError: ``s`` is not a literal (e.g. contains a name or a call)
    :raises SyntaxError: ``s`` does not parse
    """
    return ast.literal_eval(s)


def py_to_pickle(s: str) -> bytes:
    """The pickle bytes (protocol 4) of the literal ``s``; ``pickle.loads`` gives :func:`literal_eval`'s value."""
    return pickle.dumps(literal_eval(s), protocol=4)

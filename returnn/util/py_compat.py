"""Names of the reference's Python-2 era that published configs still import (``from Util import PY3,
py2_utf8_str_to_unicode``, ``unicode``, ``long``).

The reference of today keeps ``unicode`` (``str``) and ``long`` (``int``) in ``returnn.util.basic``; ``PY3`` and
``py2_utf8_str_to_unicode`` are from its earlier versions, which the 2020 configs were written for (they use
them as ``if not PY3: ... py2_utf8_str_to_unicode(s)``). On Python 3 ``PY3`` is True and the conversion is
the identity on ``str`` (bytes are decoded as UTF-8).
"""

from __future__ import annotations

import sys
from typing import Union

#: always True here (Python 3 only)
PY3 = sys.version_info[0] >= 3

#: the Python-2 name of ``str``
unicode = str
#: the Python-2 name of ``int``
long = int


def py2_utf8_str_to_unicode(s: Union[str, bytes]) -> str:
    """``s`` as text: a ``str`` unchanged, ``bytes`` decoded as UTF-8.

    :raises UnicodeDecodeError: for bytes that are not UTF-8
    """
    if isinstance(s, bytes):
        return s.decode("utf8")
    return s


def unicode_to_str(s: Union[str, bytes]) -> str:
    """``s`` as ``str`` (bytes decoded as UTF-8); the reference's name."""
    return py2_utf8_str_to_unicode(s)


def as_str(s: Union[str, bytes]) -> str:
    """``s`` as ``str`` (bytes decoded as UTF-8).

    :raises TypeError: for anything else (the reference asserts)
    """
    if isinstance(s, (str, bytes)):
        return py2_utf8_str_to_unicode(s)
    raise TypeError(f"as_str: expected str or bytes, got {type(s).__name__} {s!r}")

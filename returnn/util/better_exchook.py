"""Public import path ``returnn.util.better_exchook``: rich tracebacks (with local variables) from the
``better_exchook`` package on PyPI, which the reference also uses. Falls back to the standard traceback
format if the package is missing."""

from __future__ import annotations

import io
import sys
import traceback

try:
    from better_exchook import better_exchook as better_exchook  # noqa: F401  (re-export)
    from better_exchook import install as install  # noqa: F401
    _HAVE_PACKAGE = True
except ImportError:  # pragma: no cover - the package is a dependency
    _HAVE_PACKAGE = False

    def install() -> None:
        """No-op without the better_exchook package."""


def format_exception(exc: BaseException) -> str:
    """The traceback of ``exc`` (and its causes) as text, with local variables when better_exchook is there."""
    if _HAVE_PACKAGE:
        out = io.StringIO()
        better_exchook(type(exc), exc, exc.__traceback__, autodebugshell=False, file=out, with_color=False)
        return out.getvalue()
    return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))


def print_exception(exc: BaseException, file=None) -> None:
    """Writes :func:`format_exception` to ``file`` (default stderr)."""
    (file or sys.stderr).write(format_exception(exc))

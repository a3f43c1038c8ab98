"""Public import path ``returnn.util.better_exchook``: rich tracebacks with local variables, from the
``better_exchook`` package on PyPI (a dependency), which the reference vendors under this name. Every public
name of the package is available here (``install``, ``better_exchook``, ``print_tb``, ``format_tb``,
``dump_all_thread_tracebacks``, ``debug_shell``, ``setup_all``, ...), plus :func:`format_exception`."""

from __future__ import annotations

import io

import better_exchook as _package
from better_exchook import better_exchook as better_exchook
from better_exchook import debug_shell as debug_shell
from better_exchook import dump_all_thread_tracebacks as dump_all_thread_tracebacks
from better_exchook import format_tb as format_tb
from better_exchook import install as install
from better_exchook import print_exc as print_exc
from better_exchook import print_exception as print_exception
from better_exchook import print_tb as print_tb
from better_exchook import replace_traceback_format_tb as replace_traceback_format_tb
from better_exchook import setup_all as setup_all


def _reexport_rest() -> None:
    """The package's remaining public names (helpers, colour settings), unchanged."""
    for name in dir(_package):
        if not name.startswith("_") and name not in globals():
            globals()[name] = getattr(_package, name)


_reexport_rest()


def format_exception(exc: BaseException) -> str:
    """The traceback of ``exc`` (and its causes) as text with local variables, without colours."""
    out = io.StringIO()
    better_exchook(type(exc), exc, exc.__traceback__, autodebugshell=False, file=out, with_color=False)
    return out.getvalue()

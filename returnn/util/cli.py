"""Running a command-line tool's ``main``: its exit status, and a reader that stops early (``| head``)."""

from __future__ import annotations

import os
import sys
from typing import Callable, Optional


def run_tool(main: Callable[[], Optional[int]]) -> None:
    """Runs ``main()`` and exits with the status it returns (None: 0). When the output is piped into a reader
    that stopped reading (``tool.py ... | head``), the tool ends quietly with status 0 instead of a traceback.

    :raises SystemExit: always
    """
    try:
        status = main()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error when Python flushes stdout
        status = 0
    sys.exit(status or 0)

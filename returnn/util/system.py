"""Facts about the running process and machine: user name, host, versions."""

from __future__ import annotations

import getpass
import os
import socket


def get_login_username() -> str:
    """The login name of the user running this process (``$USER``/``$LOGNAME``, else the passwd entry).

    Configs commonly use it to place models under ``/tmp/<user>/``. Never raises: falls back to the uid.
    """
    for var in ("USER", "LOGNAME", "USERNAME"):
        if os.environ.get(var):
            return os.environ[var]
    try:
        return getpass.getuser()
    except Exception:  # no passwd entry (containers)
        return str(os.getuid())


def get_hostname() -> str:
    """The machine's host name."""
    return socket.gethostname()

"""File and path helpers that configs call: ``cf`` (the cache-manager hook), ``cleanup_env_var_path``,
``load_txt_vector``, and the temp/cache directories.

All follow the reference's observed behaviour (``returnn.util.basic`` of the reference):

* ``cf(path)`` returns ``path`` unchanged: this project has no cache manager, exactly as the reference
  behaves on a machine without one. The reference prints once per process
  ``Cache manager: not used, use local file: <path> (discard further messages)`` to stdout; so do we.
* ``cleanup_env_var_path(var, prefix)`` removes the entries ``prefix`` and ``prefix/...`` from the
  ``:``-separated environment variable ``var`` (e.g. ``LD_LIBRARY_PATH``), printing
  ``Removing <entry> from <var>.`` for each; a missing variable is left alone.
"""

from __future__ import annotations

import os
from typing import List

from returnn.errors import DataFileError
from returnn.util.system import get_login_username


class DataFileNotFoundError(DataFileError, FileNotFoundError):
    """A data file named by the config does not exist (also a ``FileNotFoundError``, as the reference raises)."""


class DataFileValueError(DataFileError, ValueError):
    """A data file has content that does not parse (also a ``ValueError``, as the reference raises)."""


_cf_message_printed = False


def cf(filename: str) -> str:
    """The local path to use for ``filename``: ``filename`` itself (no cache manager in this project).

    Prints the reference's one-time notice on the first call of the process.
    """
    global _cf_message_printed
    if not _cf_message_printed:
        print(f"Cache manager: not used, use local file: {filename} (discard further messages)")
        _cf_message_printed = True
    return filename


def cleanup_env_var_path(env_var: str, path_prefix: str) -> None:
    """Removes every entry equal to ``path_prefix`` or below it (``path_prefix + "/..."``) from the
    ``:``-separated path list in the environment variable ``env_var``.

    Observed from the reference: ``/u/x/y`` is removed for prefix ``/u/x`` but not for ``/u/x/`` or ``/u/``
    (a prefix matches whole path components only, and a trailing ``/`` is part of the entry it must
    equal); empty entries are kept; each removal prints ``Removing <entry> from <env_var>.``.
    Does nothing if the variable is not set.
    """
    if env_var not in os.environ:
        return
    kept: List[str] = []
    for entry in os.environ[env_var].split(":"):
        if entry and (entry == path_prefix or entry.startswith(path_prefix + "/")):
            print(f"Removing {entry} from {env_var}.")
            continue
        kept.append(entry)
    os.environ[env_var] = ":".join(kept)


def load_txt_vector(filename: str) -> List[float]:
    """Reads one float per line (blank lines skipped), e.g. a prior file written by ``compute_priors``.

    :raises DataFileNotFoundError: if the file does not exist
    :raises DataFileValueError: if a line is not a number (names the line; a ``ValueError`` as in the reference)
    """
    if not os.path.exists(filename):
        raise DataFileNotFoundError(filename, "file does not exist (expected a text file with one number per line)")
    out = []
    with open(filename, "r") as f:
        for lineno, line in enumerate(f, start=1):
            line = line.strip()
            if not line:
                continue
            try:
                out.append(float(line))
            except ValueError:
                raise DataFileValueError(filename, f"line {lineno}: expected one number per line, got {line!r}") from None
    return out


def get_temp_dir(*, with_username: bool = True) -> str:
    """The directory for temporary files: ``$TMPDIR`` if set, else ``/var/tmp``; with ``/<login name>``
    appended by default (as the reference)."""
    base = os.environ.get("TMPDIR") or "/var/tmp"
    return os.path.join(base, get_login_username()) if with_username else base


def get_cache_dir() -> str:
    """The directory for cached files (compiled ops, downloaded data): ``$RETURNN_CACHE_DIR`` if set,
    else :func:`get_temp_dir`."""
    return os.environ.get("RETURNN_CACHE_DIR") or get_temp_dir()


def atomic_write_text(filename: str, text: str, encoding: str = "utf8") -> None:
    """Writes ``text`` to ``filename``: to a temporary name in the same directory first, renamed into place when
    complete (a reader never sees a half-written file).

    :raises OSError: the directory is missing or not writable
    """
    tmp = f"{filename}.tmp.{os.getpid()}"
    try:
        with open(tmp, "w", encoding=encoding) as f:
            f.write(text)
        os.replace(tmp, filename)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)

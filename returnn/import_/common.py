"""Names and paths of ``returnn.import_`` (the reference's layout): the local package directory, version strings,
and the module names code is imported under."""

from __future__ import annotations

import os
import re
import sys
import types
from typing import Optional, Tuple

from returnn.errors import ReturnnError

#: environment variable overriding :func:`package_path`
ENV_PKG_PATH = "RETURNN_PKG_PATH"
#: prefix of the module names of imported code
MODULE_NAME_PREFIX = "returnn_import."

_DATE_RE = re.compile(r"^(\d{4})([01]\d)([0123]\d)(([012]\d)(([0-5]\d)([0-5]\d)?)?)?$")
_REV_RE = re.compile(r"^[0-9a-f]*$")
_MIN_REV_DIGITS = 7


class InvalidVersion(ReturnnError, ValueError):
    """A version string is not ``YYYYMMDD[HH[MM[SS]]]-<commit hash prefix>``, or does not match the commit."""


class ImportNotAvailableError(ReturnnError, ImportError):
    """The code to import is not present locally, and this implementation does not fetch code."""


def package_path() -> str:
    """Where repositories are (``$RETURNN_PKG_PATH``, default ``~/returnn/pkg``), as the reference."""
    return os.environ.get(ENV_PKG_PATH) or os.path.expanduser("~/returnn/pkg")


def validate_repo_name(repo: str) -> None:
    """``host/owner/name`` (e.g. ``github.com/rwth-i6/returnn-experiments``).

    :raises ValueError: anything else (the reference asserts)
    """
    parts = repo.split("/")
    if len(parts) < 3 or any(not p or p in (".", "..") for p in parts) or "@" in repo:
        raise ValueError(f"returnn.import_: repo {repo!r}: expected 'host/owner/name', e.g. "
                         f"'github.com/rwth-i6/returnn-experiments'")


def validate_path(path: str) -> None:
    """A relative path inside the repository (``"common"``, ``"models/x.py"``).

    :raises ValueError: empty or absolute paths, or ``..``
    """
    if not path or path.startswith("/") or ".." in path.split("/"):
        raise ValueError(f"returnn.import_: path {path!r}: expected a relative path inside the repository, e.g. "
                         f"'common' or 'models/x.py'")


def parse_version(version: str) -> Tuple[str, Optional[str]]:
    """``"20210324-75f7809"`` → ``("20210324", "75f7809")``; the date may have 8, 10, 12 or 14 digits, the
    commit hash prefix at least 7.

    :raises InvalidVersion: another format
    """
    date, _, rev = version.partition("-")
    if not _DATE_RE.match(date) or (rev and (len(rev) < _MIN_REV_DIGITS or not _REV_RE.match(rev))):
        raise InvalidVersion(f"returnn.import_: version {version!r}: expected 'YYYYMMDD-<commit>' (date of the "
                             f"commit, optionally with HH, MM, SS; commit hash of at least {_MIN_REV_DIGITS} hex "
                             f"digits), e.g. '20210324-75f7809'")
    return date, rev or None


def normalize_pkg_name(name: str) -> str:
    """A path component as Python identifier: ``github.com`` → ``github_com``, ``rwth-i6`` → ``rwth_i6``."""
    return re.sub(r"[^0-9a-zA-Z_]", "_", name)


def module_name(repo: str, path: str, version_dir: str) -> str:
    """``returnn_import.github_com.rwth_i6.returnn_experiments.v20210324100000_75f7809abcde.common``;
    ``version_dir`` is ``v<date14>_<rev12>`` or ``dev``; a ``.py`` path names the module without suffix."""
    repo_mod = ".".join(normalize_pkg_name(p) for p in repo.split("/"))
    path = path[:-3] if path.endswith(".py") else path
    path_mod = ".".join(normalize_pkg_name(p) for p in path.strip("/").split("/"))
    return f"{MODULE_NAME_PREFIX}{repo_mod}.{version_dir}.{path_mod}"


def register_package(name: str, directory: Optional[str]) -> types.ModuleType:
    """Puts a package module ``name`` into ``sys.modules`` (and its parents), its submodules found in
    ``directory`` (None: a namespace for deeper packages only)."""
    parts = name.split(".")
    for i in range(1, len(parts) + 1):
        sub = ".".join(parts[:i])
        mod = sys.modules.get(sub)
        if mod is None:
            mod = types.ModuleType(sub)
            mod.__path__ = []
            mod.__package__ = sub
            sys.modules[sub] = mod
            if i > 1:
                setattr(sys.modules[".".join(parts[:i - 1])], parts[i - 1], mod)
    mod = sys.modules[name]
    if directory is not None and directory not in mod.__path__:
        mod.__path__.append(directory)
        mod.__file__ = os.path.join(directory, "__init__.py")
    return mod

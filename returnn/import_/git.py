"""Local repositories for ``returnn.import_``: the development working tree ``<pkg>/<repo>`` and version worktrees
``<pkg>/<repo>@v<YYYYMMDDHHMMSS>-<commit12>`` (the reference's layout).

This implementation never fetches code: a version is used if its worktree exists, or if the local clone
``<pkg>/<repo>`` has the commit (the worktree is then created from it with ``git worktree add``, a local
operation). Otherwise :class:`ImportNotAvailableError` says how to get the code.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from typing import List, Optional

from returnn.import_.common import ImportNotAvailableError, InvalidVersion, package_path, parse_version
from returnn.log import log


def _dev_repo_path(repo: str) -> str:
    return os.path.join(package_path(), repo)


def _worktree_candidates(repo: str, date: str, rev: Optional[str]) -> List[str]:
    parent = os.path.dirname(_dev_repo_path(repo))
    base = os.path.basename(repo) + "@v"
    if not os.path.isdir(parent):
        return []
    out = []
    for name in sorted(os.listdir(parent)):
        if not name.startswith(base):
            continue
        wt_date, _, wt_rev = name[len(base):].partition("-")
        if wt_date.startswith(date) and rev is not None and wt_rev.startswith(rev):
            out.append(os.path.join(parent, name))
    return out


def _not_available(repo: str, version: Optional[str], why: str) -> ImportNotAvailableError:
    clone = _dev_repo_path(repo)
    return ImportNotAvailableError(
        f"returnn.import_: repository {repo!r}" + (f" version {version!r}" if version else " (development version)")
        + f" is not available locally: {why}. Fetching code is not supported by this implementation; clone it "
          f"yourself: git clone https://{repo} {clone} (or set $RETURNN_PKG_PATH to a directory that has it)")


def _git(clone: str, *args: str) -> Optional[str]:
    try:
        out = subprocess.run(["git", "-C", clone, *args], capture_output=True, text=True, timeout=60,
                             env=dict(os.environ, TZ="UTC"))
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def get_repo_path(repo: str, version: Optional[str]) -> str:
    """The local directory of ``repo`` at ``version`` (the development working tree for None).

    :raises ImportNotAvailableError: not present locally (the message says how to clone it)
    :raises InvalidVersion: a malformed version, a commit the local clone does not have, or a date that is not
        the commit's
    """
    if version is None:
        path = _dev_repo_path(repo)
        if not os.path.isdir(path):
            raise _not_available(repo, None, f"no working tree at {path}")
        print(f"Access to development working tree: {path}", file=log.v3)
        return path
    date, rev = parse_version(version)
    found = _worktree_candidates(repo, date, rev)
    if len(found) == 1:
        return found[0]
    if len(found) > 1:
        raise InvalidVersion(f"returnn.import_: version {version!r} of {repo!r} is ambiguous: {found}")
    clone = _dev_repo_path(repo)
    if not os.path.isdir(os.path.join(clone, ".git")) or shutil.which("git") is None:
        raise _not_available(repo, version, f"no worktree {os.path.basename(repo)}@v{date}...-{rev or '...'} and no "
                                            f"clone at {clone}")
    if rev is None:
        raise InvalidVersion(f"returnn.import_: git repo {repo}, version {version} unknown (give the commit: "
                             f"'{date}-<commit>')")
    full_rev = _git(clone, "rev-parse", "--verify", "--quiet", rev + "^{commit}")
    if not full_rev:
        raise InvalidVersion(f"returnn.import_: git repo {repo}, version {version} unknown: the local clone {clone} "
                             f"has no commit {rev} (this implementation does not fetch; run 'git fetch' there)")
    commit_date = _git(clone, "log", "-1", "--format=%cd", "--date=format-local:%Y%m%d%H%M%S", full_rev) or ""
    if not commit_date.startswith(date):
        raise InvalidVersion(f"returnn.import_: version {commit_date}-{full_rev[:12]}, date does not match in "
                             f"{version}")
    path = f"{clone}@v{commit_date}-{full_rev[:12]}"
    if _git(clone, "worktree", "add", "--detach", path, full_rev) is None or not os.path.isdir(path):
        raise _not_available(repo, version, f"'git worktree add {path}' failed in {clone}")
    return path


def version_dir_name(path: str, version: Optional[str]) -> str:
    """``dev``, or ``v<date14>_<rev12>`` from a worktree path ``...@v<date14>-<rev12>``."""
    if version is None:
        return "dev"
    return "v" + path.rsplit("@v", 1)[1].replace("-", "_")

"""``returnn.import_.import_(repo, path, version=None)``: imports code of a git repository by version, as
configs do (``import_("github.com/rwth-i6/returnn-experiments", "common", "20210324-75f7809")``).

The reference clones and fetches the repository itself. This implementation does not fetch code: it imports
from a local clone or worktree in the reference's layout (``$RETURNN_PKG_PATH``, default ``~/returnn/pkg``; see
:mod:`returnn.import_.git`) and otherwise raises :class:`ImportNotAvailableError` saying how to clone it. The
module names are the reference's: ``returnn_import.github_com.rwth_i6.returnn_experiments.v<date14>_<rev12>.<path>``
(``.dev.`` for the development working tree, ``version=None``).
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Optional

from returnn.import_ import common, git
from returnn.import_.common import ImportNotAvailableError as ImportNotAvailableError
from returnn.import_.common import InvalidVersion as InvalidVersion


def import_(repo: str, path: str, version: Optional[str] = None) -> ModuleType:
    """Imports ``path`` (a package directory or a ``.py`` file) of ``repo`` at ``version``.

    :param repo: ``host/owner/name``, e.g. ``"github.com/rwth-i6/returnn-experiments"``
    :param path: inside the repository, e.g. ``"common"`` or ``"common/models/transducer.py"``
    :param version: ``"YYYYMMDD-<commit>"``; None: the development working tree
    :return: the imported module
    :raises ValueError: a malformed ``repo`` or ``path``
    :raises InvalidVersion: a malformed or unknown version
    :raises ImportNotAvailableError: the code is not present locally (fetching is not supported)
    :raises ModuleNotFoundError: ``path`` does not exist in the repository
    """
    common.validate_repo_name(repo)
    common.validate_path(path)
    if version is not None:
        common.parse_version(version)
    directory = git.get_repo_path(repo, version)
    version_dir = git.version_dir_name(directory, version)
    base = common.module_name(repo, "_", version_dir)[: -len("._")]  # returnn_import.<repo>.<version_dir>
    common.register_package(base, directory)
    return importlib.import_module(common.module_name(repo, path, version_dir))

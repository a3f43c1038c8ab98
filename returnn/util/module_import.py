"""``generic_import_module``: import a Python file or module named in a config
(``PhoneUtils = Util.generic_import_module("/path/to/PhoneUtils.py")``)."""

from __future__ import annotations

import importlib
import os
import sys
from types import ModuleType

from returnn.errors import ReturnnError


class ModuleFileNotFoundError(ReturnnError, ModuleNotFoundError):
    """A Python file given by path to :func:`generic_import_module` does not exist."""


def generic_import_module(filename: str) -> ModuleType:
    """Imports ``filename`` and returns the module.

    As the reference: a name containing ``/`` is a path to a ``.py`` file or a package directory; its
    directory is added to ``sys.path`` (once) and it is imported under its base name (``/x/PhoneUtils.py``
    → module ``PhoneUtils``, cached in ``sys.modules`` like any import). Any other name is a module name
    (``"json"``, ``"mypkg.mod"``) imported from ``sys.path``.

    :raises ModuleFileNotFoundError: a path that does not exist (also a ``ModuleNotFoundError``)
    :raises ModuleNotFoundError: a module name that cannot be found
    """
    if "/" not in filename:
        return importlib.import_module(filename)
    path = filename.rstrip("/")
    if os.path.isdir(path):
        if not os.path.exists(os.path.join(path, "__init__.py")):
            raise ModuleFileNotFoundError(
                f"generic_import_module({filename!r}): the directory has no __init__.py, so it is no Python package")
        name = os.path.basename(path)
    elif os.path.isfile(path) and path.endswith(".py"):
        name = os.path.basename(path)[:-len(".py")]
    elif os.path.exists(path):
        raise ModuleFileNotFoundError(f"generic_import_module({filename!r}): expected a '.py' file or a package "
                                      f"directory, got a file without '.py'")
    else:
        raise ModuleFileNotFoundError(f"generic_import_module({filename!r}): no such file or directory "
                                      f"(expected the path of a Python file, e.g. '/path/to/module.py')")
    directory = os.path.dirname(os.path.abspath(path))
    if directory not in sys.path:
        sys.path.append(directory)
    return importlib.import_module(name)

"""Reloading the user's own Python modules that a config refers to (functions, ``functools.partial`` objects,
classes) after their source files changed, and putting the new objects into the config.

"Own" modules are those with a source file outside the Python installation, ``site-packages`` and the
``returnn`` package.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import os
import sys
import sysconfig
import types
from typing import Any, Dict, List, Optional, Tuple

import returnn

_RETURNN_DIR = os.path.dirname(os.path.abspath(returnn.__file__))


def _system_dirs() -> List[str]:
    dirs = {sys.prefix, sys.base_prefix, sys.exec_prefix}
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        path = sysconfig.get_paths().get(key)
        if path:
            dirs.add(path)
    return [os.path.abspath(d) for d in dirs]


def _is_custom_module(module: Optional[types.ModuleType]) -> bool:
    filename = getattr(module, "__file__", None)
    if not filename or not filename.endswith(".py"):
        return False
    filename = os.path.abspath(filename)
    if "site-packages" in filename.split(os.sep) or "dist-packages" in filename.split(os.sep):
        return False
    for d in [_RETURNN_DIR] + _system_dirs():
        if filename.startswith(d + os.sep):
            return False
    return True


def _module_of(obj: Any) -> Optional[str]:
    if isinstance(obj, (types.FunctionType, type)):
        return getattr(obj, "__module__", None)
    return None


def _file_fingerprint(filename: str) -> Tuple[int, int, str]:
    st = os.stat(filename)
    with open(filename, "rb") as f:
        digest = hashlib.sha1(f.read()).hexdigest()
    return st.st_mtime_ns, st.st_size, digest


class ConfigHotReloader:
    """Watches the own modules referred to by ``config`` (a dict, e.g. ``Config.typed_dict``).

    :param config: the config values; :meth:`reload_changed_modules` replaces its entries in place
    """

    def __init__(self, config: Dict[str, Any]):
        self.config = config
        self.modules: List[str] = []
        self._fingerprints: Dict[str, Tuple[int, int, str]] = {}
        self._collect(config, set())
        for name in self.modules:
            self._fingerprints[name] = _file_fingerprint(sys.modules[name].__file__)

    def _collect(self, obj: Any, seen: set) -> None:
        if id(obj) in seen:
            return
        seen.add(id(obj))
        if isinstance(obj, dict):
            for v in obj.values():
                self._collect(v, seen)
        elif isinstance(obj, (list, tuple, set)):
            for v in obj:
                self._collect(v, seen)
        elif isinstance(obj, functools.partial):
            self._collect(obj.func, seen)
            self._collect(obj.args, seen)
            self._collect(obj.keywords, seen)
        else:
            name = _module_of(obj)
            if name and name not in self.modules and _is_custom_module(sys.modules.get(name)):
                self.modules.append(name)

    def _changed(self) -> List[str]:
        out = []
        for name in self.modules:
            module = sys.modules.get(name)
            if module is None or _file_fingerprint(module.__file__) != self._fingerprints[name]:
                out.append(name)
        return out

    def any_module_changed(self) -> bool:
        """Whether the source file of a watched module changed since the last load."""
        return bool(self._changed())

    def reload_changed_modules(self) -> List[str]:
        """Re-imports the changed modules and replaces the config's functions, classes and partials that came from
        them by the new ones (looked up by qualified name). Returns the reloaded module names.

        :raises AttributeError: an object of the config no longer exists in its reloaded module
        """
        changed = self._changed()
        for name in changed:
            module = sys.modules[name]
            cached = getattr(module, "__cached__", None)
            if cached and os.path.exists(cached):
                os.remove(cached)  # the source may have changed within the pyc's one-second mtime resolution
            importlib.invalidate_caches()
            importlib.reload(module)
            self._fingerprints[name] = _file_fingerprint(module.__file__)
        if changed:
            for key in list(self.config.keys()):
                self.config[key] = self._renew(self.config[key], set(changed))
        return changed

    def _renew(self, obj: Any, changed: set) -> Any:
        if isinstance(obj, dict):
            return type(obj)((k, self._renew(v, changed)) for k, v in obj.items()) if type(obj) is dict else obj
        if isinstance(obj, list):
            return [self._renew(v, changed) for v in obj]
        if isinstance(obj, tuple) and type(obj) is tuple:
            return tuple(self._renew(v, changed) for v in obj)
        if isinstance(obj, functools.partial):
            return functools.partial(self._renew(obj.func, changed),
                                     *[self._renew(a, changed) for a in obj.args],
                                     **{k: self._renew(v, changed) for k, v in obj.keywords.items()})
        name = _module_of(obj)
        if name in changed:
            new = sys.modules[name]
            for part in obj.__qualname__.split("."):
                new = getattr(new, part)
            return new
        return obj

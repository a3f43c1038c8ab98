"""``PyExtModCompiler``: a :class:`~returnn.util.native_code_compiler.NativeCodeCompiler` for Python C extension
modules: compiled as C against this interpreter's headers, with the interpreter's extension suffix, and
imported under ``base_name`` (the code must define ``PyInit_<base_name>``)."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
import sysconfig
from types import ModuleType
from typing import Any, Sequence

from returnn.util.native_code_compiler import NativeCodeCompiler


class PyExtModCompiler(NativeCodeCompiler):
    """Compiles and imports a Python extension module.

    :param include_paths: extra ``-I`` folders (the Python include folder is always added)
    :param kwargs: as :class:`NativeCodeCompiler` (``base_name``, ``code``, ``code_version``, ``verbose``, ...);
        ``is_cpp`` defaults to False
    """

    def __init__(self, include_paths: Sequence[str] = (), **kwargs: Any):
        kwargs.setdefault("is_cpp", False)
        py_include = sysconfig.get_paths()["include"]
        super().__init__(include_paths=list(include_paths) + [py_include], **kwargs)

    def _lib_suffix(self) -> str:
        return importlib.machinery.EXTENSION_SUFFIXES[0]

    def load_py_module(self) -> ModuleType:
        """The compiled module, imported as ``base_name`` (compiled first if needed; the same module object on
        later calls).

        :raises NativeCompileError: the compiler failed
        :raises ImportError: the library has no ``PyInit_<base_name>``
        """
        existing = sys.modules.get(self.base_name)
        filename = self.get_lib_filename()
        if existing is not None and getattr(existing, "__file__", None) == filename:
            return existing
        loader = importlib.machinery.ExtensionFileLoader(self.base_name, filename)
        spec = importlib.util.spec_from_file_location(self.base_name, filename, loader=loader)
        module = importlib.util.module_from_spec(spec)
        loader.exec_module(module)
        sys.modules[self.base_name] = module
        return module

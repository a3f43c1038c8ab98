"""``NativeCodeCompiler``: compiles a C/C++ source string into a shared library (once, cached on disk by a hash
of everything that goes into the build) and loads it with ``ctypes``.

The library is ``<cache dir>/returnn_native/<base_name>/<hash>/<base_name>.so`` (cache dir:
``returnn.util.files.get_cache_dir``). A build goes to a temporary name and is renamed into place, so that
concurrent processes never load a half-written library. The compiler is ``$CXX``/``g++`` for C++ and
``$CC``/``cc`` for C.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shlex
import subprocess
import sys
import tempfile
from typing import Dict, List, Optional, Sequence, TextIO, Tuple, Union

from returnn.errors import ReturnnError
from returnn.util.files import get_cache_dir


class NativeCompileError(ReturnnError, RuntimeError):
    """The compiler failed (the message has the command and the compiler's output)."""


class NativeCodeCompiler:
    """Compiles ``code`` into a shared library on first use.

    :param base_name: name of the library (and of its cache folder)
    :param code_version: bump it to force a new build of otherwise equal code
    :param code: the C/C++ source
    :param is_cpp: compile as C++ (``-std=c++11``) or as C
    :param c_macro_defines: ``-D`` macros (``None`` value: defined without value)
    :param ld_flags: extra linker flags (``-lfoo``, ``-L/path``)
    :param include_paths: ``-I`` folders
    :param include_deps: files whose content goes into the hash (headers the code includes)
    :param static_version_name: fixed folder name instead of the hash
    :param should_cleanup_old_all: accepted for compatibility (old builds are left in place)
    :param should_cleanup_old_mydir: accepted for compatibility
    :param use_cxx11_abi: define ``_GLIBCXX_USE_CXX11_ABI=1`` (else 0, as TF's wheels)
    :param log_stream: where to print the build command (with ``verbose``); default stdout
    :param verbose: print what is compiled
    """

    CacheDirName = "returnn_native"

    def __init__(self, base_name: str, *, code_version: Union[int, Tuple[int, ...]] = 1, code: str,
                 is_cpp: bool = True, c_macro_defines: Optional[Dict[str, Union[str, int, None]]] = None,
                 ld_flags: Optional[Sequence[str]] = None, include_paths: Optional[Sequence[str]] = (),
                 include_deps: Optional[Sequence[str]] = None, static_version_name: Optional[str] = None,
                 should_cleanup_old_all: bool = True, should_cleanup_old_mydir: bool = False,
                 use_cxx11_abi: bool = False, log_stream: Optional[TextIO] = None, verbose: Optional[bool] = None):
        self.base_name = base_name
        self.code_version = code_version
        self.code = code
        self.is_cpp = is_cpp
        self.c_macro_defines = dict(c_macro_defines or {})
        self.ld_flags = list(ld_flags or [])
        self.include_paths = list(include_paths or [])
        self.include_deps = list(include_deps or [])
        self.static_version_name = static_version_name
        self.use_cxx11_abi = use_cxx11_abi
        self.log_stream = log_stream
        self.verbose = bool(verbose)
        self._lib: Optional[ctypes.CDLL] = None

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.base_name!r} in {self._mod_path()!r}>"

    # -- what goes into the build
    def _compiler_bin(self) -> str:
        if self.is_cpp:
            return os.environ.get("CXX") or "g++"
        return os.environ.get("CC") or "cc"

    def _lib_suffix(self) -> str:
        return ".so"

    def _extra_compile_opts(self) -> List[str]:
        return []

    def _compile_opts(self) -> List[str]:
        opts = ["-shared", "-fPIC", "-O2"]
        if self.is_cpp:
            opts += ["-std=c++11", "-D_GLIBCXX_USE_CXX11_ABI=%i" % (1 if self.use_cxx11_abi else 0)]
        for name, value in sorted(self.c_macro_defines.items()):
            opts.append(f"-D{name}" if value is None else f"-D{name}={value}")
        opts += [f"-I{p}" for p in self.include_paths]
        return opts + self._extra_compile_opts()

    def _hash(self) -> str:
        h = hashlib.sha256()
        for part in (self.base_name, repr(self.code_version), self.code, self._compiler_bin(),
                     repr(self._compile_opts()), repr(self.ld_flags), sys.version):
            h.update(part.encode("utf8"))
            h.update(b"\0")
        for dep in self.include_deps:
            with open(dep, "rb") as f:
                h.update(f.read())
        return h.hexdigest()[:16]

    def _mod_path(self) -> str:
        version = self.static_version_name or self._hash()
        return os.path.join(get_cache_dir(), self.CacheDirName, self.base_name, version)

    def get_lib_filename(self) -> str:
        """The path of the compiled library; compiles it first when it is not there yet.

        :raises NativeCompileError: the compiler failed
        """
        filename = os.path.join(self._mod_path(), self.base_name + self._lib_suffix())
        if not os.path.exists(filename):
            self._compile(filename)
        return filename

    def _compile(self, lib_filename: str) -> None:
        folder = os.path.dirname(lib_filename)
        os.makedirs(folder, exist_ok=True)
        src = os.path.join(folder, self.base_name + (".cc" if self.is_cpp else ".c"))
        fd, tmp_src = tempfile.mkstemp(dir=folder, suffix=os.path.splitext(src)[1])
        with os.fdopen(fd, "w") as f:
            f.write(self.code)
        os.replace(tmp_src, src)
        fd, tmp_lib = tempfile.mkstemp(dir=folder, suffix=self._lib_suffix())
        os.close(fd)
        cmd = [self._compiler_bin()] + self._compile_opts() + [src, "-o", tmp_lib] + self.ld_flags
        if self.verbose:
            print(f"{type(self).__name__} call: {' '.join(shlex.quote(c) for c in cmd)}",
                  file=self.log_stream or sys.stdout)
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False)
        if proc.returncode != 0:
            os.remove(tmp_lib)
            raise NativeCompileError(
                f"{type(self).__name__} {self.base_name!r}: compiler exited with code {proc.returncode}\n"
                f"  command: {' '.join(shlex.quote(c) for c in cmd)}\n"
                f"  output:\n{proc.stdout.decode('utf8', 'replace')}")
        os.replace(tmp_lib, lib_filename)

    def load_lib_ctypes(self) -> ctypes.CDLL:
        """The library loaded with ``ctypes.CDLL`` (compiled first if needed; loaded once per object).

        :raises NativeCompileError: the compiler failed
        """
        if self._lib is None:
            self._lib = ctypes.CDLL(self.get_lib_filename())
        return self._lib

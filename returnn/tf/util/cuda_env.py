"""``CudaEnv``: where the CUDA toolkit is (``nvcc``), as the reference's native-op compiler looks for it. This
project compiles no CUDA code; the class answers whether a toolkit is installed, for code that asks."""

from __future__ import annotations

import glob
import os
import shutil
from typing import Iterator, Optional


class CudaEnv:
    """The CUDA toolkit of this machine (one instance per process, :meth:`get_instance`).

    ``cuda_path``: the toolkit folder (the one of ``nvcc`` in ``PATH``, else ``$CUDA_HOME`` / ``$CUDA_PATH``,
    else ``/usr/local/cuda`` when it has ``bin/nvcc``), or None.
    """

    _instance: Optional["CudaEnv"] = None
    #: print where the toolkit was found (the reference's switch; read by :meth:`__init__`)
    verbose_find_cuda = False

    def __init__(self):
        self.cuda_path = self._find_cuda_path()
        if self.verbose_find_cuda:
            print("CUDA path:", self.cuda_path)

    @staticmethod
    def _find_cuda_path() -> Optional[str]:
        nvcc = shutil.which("nvcc")
        if nvcc:
            return os.path.dirname(os.path.dirname(os.path.realpath(nvcc)))
        for path in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
            if path and os.path.exists(os.path.join(path, "bin", "nvcc")):
                return path
        return None

    def is_available(self) -> bool:
        """:return: whether a CUDA toolkit (``nvcc``) was found"""
        return self.cuda_path is not None

    @classmethod
    def get_instance(cls) -> "CudaEnv":
        """:return: the process's instance (created on first use)"""
        if cls._instance is None:
            cls._instance = cls()
        return cls._instance

    # diagnostics (the reference's names; its native-op tests print them)

    @classmethod
    def _cuda_path_candidate_via_proc_map_libcudart(cls) -> Optional[str]:
        """:return: the toolkit folder of the CUDA runtime library loaded into this process, or None"""
        from returnn.util.native_libs import find_libcudart_from_runtime

        lib = find_libcudart_from_runtime()
        return os.path.dirname(os.path.dirname(lib)) if lib else None

    @classmethod
    def _cuda_path_candidates(cls) -> Iterator[str]:
        """:return: the folders where a toolkit may be: that of the loaded runtime library, that of ``nvcc`` in
        ``PATH``, ``/usr/local/cuda-*`` (newest first), ``/usr/local/cuda`` and where it links to"""
        via_runtime = cls._cuda_path_candidate_via_proc_map_libcudart()
        if via_runtime:
            yield via_runtime
        nvcc = shutil.which("nvcc")
        if nvcc:
            yield os.path.dirname(os.path.dirname(nvcc))
        for path in sorted(glob.glob("/usr/local/cuda-*"), reverse=True):
            yield path
        if os.path.exists("/usr/local/cuda"):
            yield "/usr/local/cuda"
            yield os.path.realpath("/usr/local/cuda")

    @classmethod
    def _get_lib_dir_name(cls, base_path: str) -> str:
        """:return: ``"lib64"`` or ``"lib"``: the one of ``base_path`` with ``libcudart.so`` (default ``lib64``)"""
        for name in ("lib64", "lib"):
            if os.path.exists(os.path.join(base_path, name, "libcudart.so")):
                return name
        return "lib64"

    @classmethod
    def _check_valid_cuda_path(cls, p: str) -> bool:
        """:return: whether ``p`` holds a toolkit: ``bin/nvcc``, ``include/cuda.h`` and its library folder"""
        return (os.path.exists(os.path.join(p, "bin", "nvcc")) and os.path.exists(os.path.join(p, "include", "cuda.h"))
                and os.path.isdir(os.path.join(p, cls._get_lib_dir_name(p))))

"""``CudaEnv``: where the CUDA toolkit is (``nvcc``), as the reference's native-op compiler looks for it. This
project compiles no CUDA code; the class answers whether a toolkit is installed, for code that asks."""

from __future__ import annotations

import os
import shutil
from typing import Optional


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

"""``OpCodeCompiler``: importable for configs that define custom C++ ops; this project compiles no native ops,
so constructing one raises :class:`NativeOpsUnavailableError` naming the op."""

from __future__ import annotations

from typing import Any, Optional, Sequence

from returnn.tf.util.errors import NativeOpsUnavailableError


class OpCodeCompiler:
    """The reference's compiler of a TF op from C++/CUDA code given in the config. Accepts the reference's
    constructor arguments; constructing it always raises.

    :raises NativeOpsUnavailableError: always (names ``base_name``)
    """

    def __init__(self, base_name: Optional[str] = None, *args: Any, code_version: Any = 1, code: str = "",
                 is_cpp: bool = True, use_cuda_if_available: bool = True,
                 cuda_auto_min_compute_capability: bool = True, include_paths: Sequence[str] = (),
                 ld_flags: Sequence[str] = (), c_macro_defines: Any = None, **kwargs: Any):
        del args, code_version, code, is_cpp, use_cuda_if_available, cuda_auto_min_compute_capability
        del include_paths, ld_flags, c_macro_defines, kwargs
        raise NativeOpsUnavailableError(base_name)

    @classmethod
    def cuda_available(cls) -> bool:
        """:return: whether CUDA ops could be compiled: always False (no native ops are built here)"""
        return False

    def load_tf_module(self) -> Any:
        """Never reached (the constructor raises)."""
        raise NativeOpsUnavailableError(None)


def get_tf_gcc_path() -> Optional[str]:
    """:return: the C compiler the reference would build native ops with (``gcc`` in ``PATH``), or None"""
    import shutil

    return shutil.which("gcc")

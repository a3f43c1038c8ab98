"""``get_patch_atfork_lib``: a small shared library for ``LD_PRELOAD`` that makes ``pthread_atfork`` (and glibc's
``__register_atfork``, which ``pthread_atfork`` forwards to) register nothing.

Why: ``fork`` runs every registered atfork handler, and some libraries' handlers deadlock or crash when the
process forks while other threads hold locks (e.g. a subprocess started from a process that runs TensorFlow).
With the library preloaded, no handler is ever registered, so ``fork`` (and ``subprocess``, which forks) runs
none. When it is loaded, the library sets the environment variable ``__RETURNN_ATFORK_PATCHED=1``, so that a
process (and its children) can check that the patch is active.
"""

from __future__ import annotations

from returnn.util.native_code_compiler import NativeCodeCompiler

#: set to "1" in the environment of a process that has the library preloaded
PATCHED_ENV_VAR = "__RETURNN_ATFORK_PATCHED"

_CODE = r"""
#include <stdlib.h>

/* runs when the library is loaded (LD_PRELOAD: before main) */
static void returnn_atfork_patch_init(void) __attribute__((constructor));
static void returnn_atfork_patch_init(void) {
    setenv("%(env)s", "1", 1);
}

/* registering an atfork handler does nothing (and reports success) */
int pthread_atfork(void (*prepare)(void), void (*parent)(void), void (*child)(void)) {
    (void) prepare; (void) parent; (void) child;
    return 0;
}

int __register_atfork(void (*prepare)(void), void (*parent)(void), void (*child)(void), void* dso_handle) {
    (void) prepare; (void) parent; (void) child; (void) dso_handle;
    return 0;
}
""" % {"env": PATCHED_ENV_VAR}


def get_patch_atfork_lib() -> str:
    """The path of the compiled library (built once with the C compiler, then cached on disk).

    Use it as ``LD_PRELOAD`` of a new process: ``env["LD_PRELOAD"] = get_patch_atfork_lib()``.

    :raises returnn.util.native_code_compiler.NativeCompileError: the C compiler failed
    """
    native = NativeCodeCompiler(base_name="patch_atfork", code_version=1, code=_CODE, is_cpp=False)
    return native.get_lib_filename()

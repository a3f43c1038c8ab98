"""get_patch_atfork_lib: with the library in LD_PRELOAD, an atfork handler a library registers never runs, and
the process sees __RETURNN_ATFORK_PATCHED=1; without it, the handler runs on fork (the control case)."""

import os
import subprocess
import sys
import textwrap

from returnn.util.atfork_patch import PATCHED_ENV_VAR
from returnn.util.basic import NativeCodeCompiler, get_patch_atfork_lib

_HANDLER_LIB = r"""
#include <pthread.h>
#include <unistd.h>
static void in_child(void) { write(1, "child-handler\n", 14); }
void register_child_handler(void) { pthread_atfork(0, 0, &in_child); }
"""

_SCRIPT = textwrap.dedent("""
    import ctypes, os, sys
    print("env", os.environ.get(%(env)r), flush=True)
    lib = ctypes.CDLL(sys.argv[1])
    lib.register_child_handler()
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    print("done", flush=True)
""") % {"env": PATCHED_ENV_VAR}


def _run(lib_filename, preload):
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    env.pop(PATCHED_ENV_VAR, None)
    if preload:
        env["LD_PRELOAD"] = get_patch_atfork_lib()
    out = subprocess.check_output([sys.executable, "-c", _SCRIPT, lib_filename], env=env)
    return out.decode("utf8").splitlines()


def test_patch_atfork_lib_ignores_handlers():
    lib = NativeCodeCompiler(base_name="test_atfork_handler", code=_HANDLER_LIB, is_cpp=False,
                             ld_flags=["-lpthread"]).get_lib_filename()
    assert _run(lib, preload=False) == ["env None", "child-handler", "done"]
    assert _run(lib, preload=True) == ["env 1", "done"]


def test_patch_atfork_lib_is_cached():
    fn = get_patch_atfork_lib()
    assert os.path.isfile(fn) and fn.endswith(".so")
    assert get_patch_atfork_lib() == fn

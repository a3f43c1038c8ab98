"""returnn.util.native_libs: the process's CPUs and mapped executables, symbol lookup."""

import os
import sys

from returnn.util.native_libs import (collect_proc_maps_exec_files, find_libcudart_from_runtime, find_sym_in_exec,
                                      get_number_available_cpus)


def test_cpus():
    assert 1 <= get_number_available_cpus() <= (os.cpu_count() or 1)


def test_mapped_files_include_the_interpreter():
    files = collect_proc_maps_exec_files()
    if not os.path.exists("/proc/self/maps"):
        assert files == []
        return
    assert os.path.realpath(sys.executable) in [os.path.realpath(f) for f in files]
    assert len(files) == len(set(files))
    lib = find_libcudart_from_runtime()
    assert lib is None or "libcudart.so" in lib


def test_find_sym_in_exec():
    libc = [f for f in collect_proc_maps_exec_files() if os.path.basename(f).startswith("libc.so")]
    if not libc:
        return
    assert "malloc" in (find_sym_in_exec(libc[0], "malloc") or "malloc")  # None only without objdump
    assert find_sym_in_exec(libc[0], "no_such_symbol_xyz") is None

"""Diagnostics about the native libraries of this process (what the reference prints when its native ops fail
to build): the CPUs available, the executables and libraries mapped into the process, symbol lookup, where CUDA's
runtime library was loaded from. Linux-specific parts answer empty where ``/proc`` is missing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from typing import List, Optional


def get_number_available_cpus() -> int:
    """:return: the CPUs this process may run on (its affinity mask where the OS has one, else ``os.cpu_count()``)"""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def collect_proc_maps_exec_files() -> List[str]:
    """:return: the files mapped executable into this process (``/proc/self/maps``), each once, in map order;
        empty without ``/proc``"""
    files: List[str] = []
    try:
        with open("/proc/self/maps") as f:
            lines = f.read().splitlines()
    except OSError:
        return files
    for line in lines:
        parts = line.split(None, 5)
        if len(parts) < 6 or "x" not in parts[1]:
            continue
        path = parts[5].strip()
        if path.startswith("/") and os.path.isfile(path) and path not in files:
            files.append(path)
    return files


def find_sym_in_exec(fn: str, sym: str) -> Optional[str]:
    """:param fn: an executable or shared library; :param sym: a symbol name (substring)
    :return: the lines of its dynamic symbol table (``objdump -T``) that contain ``sym``, or None if there are
        none (or ``objdump`` is missing)"""
    objdump = shutil.which("objdump")
    if not objdump:
        return None
    try:
        out = subprocess.run([objdump, "-T", fn], capture_output=True, text=True, check=False).stdout
    except OSError:
        return None
    lines = [line for line in out.splitlines() if sym in line]
    return "\n".join(lines) if lines else None


def find_libcudart_from_runtime() -> Optional[str]:
    """:return: the path of the CUDA runtime library (``libcudart.so*``) loaded into this process, or None"""
    for path in collect_proc_maps_exec_files():
        if os.path.basename(path).startswith("libcudart.so"):
            return path
    return None

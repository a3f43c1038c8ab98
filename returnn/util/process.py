"""Running shell commands and reading the environment: ``sys_cmd_out_lines``, ``sys_exec_out``,
``sys_exec_ret_code``, ``which``, ``which_pip``, ``expand_env_vars``, ``terminal_size``, ``is_tty``, ``custom_exec``."""

from __future__ import annotations

import linecache
import os
import shutil
import subprocess
import sys
from subprocess import CalledProcessError as CalledProcessError
from typing import Any, Dict, List, Optional, TextIO, Tuple


def sys_cmd_out_lines(s: str) -> List[str]:
    """The stdout lines of the shell command ``s`` (stderr not captured), without line ends.

    :raises CalledProcessError: the command exits with a non-zero code
    """
    proc = subprocess.run(s, shell=True, stdout=subprocess.PIPE, check=False)
    if proc.returncode != 0:
        raise CalledProcessError(proc.returncode, s, output=proc.stdout)
    return proc.stdout.decode("utf8").splitlines()


def sys_exec_out(*args: str, **kwargs: Any) -> str:
    """The stdout of the program ``args`` (no shell), stripped of outer white space.

    :raises CalledProcessError: non-zero exit code
    """
    proc = subprocess.run(list(args), stdout=subprocess.PIPE, check=False, **kwargs)
    if proc.returncode != 0:
        raise CalledProcessError(proc.returncode, list(args), output=proc.stdout)
    return proc.stdout.decode("utf8").strip()


def sys_exec_ret_code(*args: str, **kwargs: Any) -> int:
    """The exit code of the program ``args`` (no shell)."""
    return subprocess.call(list(args), **kwargs)


def which(program: str) -> Optional[str]:
    """The full path of ``program`` in ``$PATH`` (or ``program`` itself when it is an executable path), else
    None."""
    return shutil.which(program)


def which_pip() -> str:
    """The path of the ``pip`` script that installs into the running interpreter: ``pip`` (or ``pip3``,
    ``pipX.Y``) next to ``sys.executable`` when there, else the first of these names in ``$PATH``.

    :raises FileNotFoundError: no pip is found (naming the places searched)
    """
    bin_dir = os.path.dirname(sys.executable)
    names = ["pip", "pip3", "pip%i.%i" % sys.version_info[:2]]
    for name in names:
        path = os.path.join(bin_dir, name)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    for name in names:
        path = shutil.which(name)
        if path:
            return path
    raise FileNotFoundError("no pip found: looked for %s in %s and in $PATH" % (", ".join(names), bin_dir))


def expand_env_vars(s: str) -> str:
    """``s`` with ``$VAR`` / ``${VAR}`` replaced by the environment's values (unknown ones stay as written)."""
    return os.path.expandvars(s)


def is_tty(file: TextIO = sys.stdout) -> bool:
    """Whether ``file`` is an interactive terminal."""
    try:
        return file.isatty()
    except (AttributeError, ValueError):
        return False


def terminal_size(file: TextIO = sys.stdout) -> Tuple[int, int]:
    """``(columns, lines)`` of the terminal behind ``file``, or ``(-1, -1)`` when it is not a terminal."""
    if not is_tty(file):
        return -1, -1
    try:
        size = os.get_terminal_size(file.fileno())
    except (OSError, AttributeError, ValueError):
        return -1, -1
    return size.columns, size.lines


def custom_exec(source: str, source_filename: str, user_ns: Dict[str, Any], user_global_ns: Dict[str, Any]) -> None:
    """Executes Python ``source`` in the given namespaces, compiled under ``source_filename`` (its lines are
    registered in ``linecache``, so tracebacks show them). As with ``exec``, ``__builtins__`` (the dict of the
    ``builtins`` module) is put into the globals when missing.

    :raises SyntaxError: ``source`` does not compile
    """
    if not source.endswith("\n"):
        source += "\n"
    linecache.cache[source_filename] = (len(source), None, source.splitlines(True), source_filename)
    code = compile(source, source_filename, "exec")
    exec(code, user_global_ns, user_ns)

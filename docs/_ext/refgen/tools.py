"""The tasks-and-tools reference: the ``--help`` output of ``rnn.py`` and of each ``tools/*.py``, run at build
time (a tool whose ``--help`` fails fails the build), and the tasks ``rnn.py`` dispatches."""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from typing import Dict, List, Tuple

from refgen import rst


def scripts(root: str) -> List[str]:
    """:return: ``rnn.py`` and the ``tools/*.py`` scripts (paths relative to ``root``)"""
    tools = sorted(n for n in os.listdir(os.path.join(root, "tools")) if n.endswith(".py") and not n.startswith("_"))
    return ["rnn.py"] + [f"tools/{n}" for n in tools]


def help_text(root: str, script: str) -> str:
    """:return: the output of ``python3 <script> --help``
    :raises RuntimeError: it exits with an error
    """
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, script, "--help"], cwd=root, env=env, capture_output=True, text=True,
                          timeout=300)
    if proc.returncode != 0:
        raise RuntimeError(f"{script} --help exited with {proc.returncode}:\n{proc.stdout}\n{proc.stderr}")
    return proc.stdout


def _tasks() -> List[Tuple[str, str]]:
    """:return: [(task, what it does)] from ``returnn.tasks.TASKS``, plus the prefix tasks"""
    from returnn import tasks
    rows = [(n, str(info.get("doc", ""))) for n, info in tasks.TASKS.items()]
    return rows + [(f"{p}<function>", "call the function of that name defined in the config"
                    + (" (nothing if there is none)" if p.startswith("optional") else ""))
                   for p in getattr(tasks, "_PREFIX_TASKS", ())]


def generate(outdir: str, root: str) -> Dict[str, int]:
    """Writes ``tools.rst``. :return: {"tools": number of scripts documented}"""
    from refgen import write_if_changed
    names = scripts(root)
    with ThreadPoolExecutor(max_workers=2) as pool:
        texts = list(pool.map(lambda s: help_text(root, s), names))
    out = [".. _tools:", "", rst.heading("Tasks and tools", "=", overline=True),
           rst.fragment(rst.cleandoc(__doc__), "tools"), ""]
    tasks = _tasks()
    if tasks:
        out += [rst.heading("Tasks (config key ``task``)", "-")]
        out.append(rst.list_table(["task", "what it does"],
                                  [(rst.literal(n), rst.inline(d, f"task {n}")) for n, d in tasks], widths=[25, 75]))
    for script, text in zip(names, texts):
        out += [f".. _tool-{os.path.basename(script)[:-3]}:", "", rst.heading(f"``{script}``", "-"),
                f"``python3 {script} --help``:", "", rst.code_block(text, "text")]
    write_if_changed(os.path.join(outdir, "tools.rst"), "\n".join(out) + "\n")
    return {"tools": len(names)}

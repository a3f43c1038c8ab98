#!/usr/bin/env python3
"""Runs the benchmark configs (``../shared/bench/*.config``) against this project and, when the reference is
installed in its own venv (``--ref-python``, default ``/tmp/refvenv/bin/python`` if it exists), against the
reference in the same session, and prints one line per run plus the ratios ours/reference.

Usage::

    python3 benchmarks/run.py [--bench-dir DIR] [--reps N] [--extra "++lstm_unit standardlstm"] [names ...]

names: blstm-train ff-train forward search-train search (default: blstm-train ff-train forward).
Measured per run (the same quantities ``run.sh`` of the bench dir reports):

* ``wall_s``: the whole process, start to exit;
* ``startup_s``: process start until the first ``... step 0, ...`` line (needs log_verbosity 5, passed here);
* ``epoch_s``: from ``..., finished after N steps, H:MM:SS elapsed`` (whole seconds, summed over epochs);
* ``steps`` and ``step_s`` (the sum of the ``X sec/step`` figures);
* ``rss_mb``: peak resident memory (``/usr/bin/time`` when available);
* ``cpu_s``: user + system CPU seconds of the process (less sensitive to other load on a shared machine
  than the wall-clock figures).

The reference has no ``rnn.py`` when installed from PyPI; a two-line shim in a temporary directory runs
``returnn.__main__.main`` of the reference's venv.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Dict, List, Optional

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_BENCH_DIR = os.path.normpath(os.path.join(REPO, "..", "shared", "bench"))
MODELS = "/tmp/bench-models"
RE_FINISHED = re.compile(r"finished after (\d+) steps, (\d+):(\d\d):(\d\d) elapsed")
RE_STEP_S = re.compile(r" ([0-9.]+) sec/step, ")
RE_STEP0 = re.compile(r"(train epoch \d+|forward|search), step 0[, ]")

BENCHES = {
    "blstm-train": ("blstm-train.config", []),
    "ff-train": ("ff-train.config", []),
    "forward": ("forward.config", []),
    "search-train": ("search.config", []),
    "search": ("search.config", ["++task", "search"]),
}


def _child_env() -> Dict[str, str]:
    """The environment of the benchmarked processes: TF's C++ info lines off, and Python's bytecode cache on
    (``PYTHONDONTWRITEBYTECODE`` removed): a user's installation reads its ``.pyc`` files, and the reference's
    are written by pip at install time, while a source tree without the cache compiles every module on each
    start (0.13 s of ours here)."""
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def run_one(python: str, rnn_py: str, cwd: str, config: str, args: List[str]) -> Dict[str, Optional[float]]:
    """Runs one ``rnn.py`` process and parses its output."""
    cmd = [python, rnn_py, config, "++device", "cpu", "++log_verbosity", "5"] + args
    time_file = None
    if shutil.which("time") or os.path.exists("/usr/bin/time"):
        time_file = tempfile.mktemp(suffix=".time")
        cmd = ["/usr/bin/time", "-f", "%M", "-o", time_file] + cmd
    usage0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.time()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=_child_env())
    startup = None
    epoch_s = steps = 0
    step_s = 0.0
    seen = False
    tail: List[str] = []
    for line in proc.stdout:
        if startup is None and RE_STEP0.search(line):
            startup = time.time() - start
        m = RE_FINISHED.search(line)
        if m and "eval" not in line:
            seen = True
            steps += int(m.group(1))
            epoch_s += int(m.group(2)) * 3600 + int(m.group(3)) * 60 + int(m.group(4))
        m = RE_STEP_S.search(line)
        if m and "eval" not in line:
            step_s += float(m.group(1))
        tail = (tail + [line])[-5:]
    rc = proc.wait()
    wall = time.time() - start
    usage1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (usage1.ru_utime - usage0.ru_utime) + (usage1.ru_stime - usage0.ru_stime)
    rss = None
    if time_file and os.path.exists(time_file):
        try:
            rss = int(open(time_file).read().strip().splitlines()[-1]) / 1024.0
        except (ValueError, IndexError):
            rss = None
        os.remove(time_file)
    if rc != 0:
        sys.stderr.write("".join(tail))
    return {"wall_s": wall, "cpu_s": cpu, "startup_s": startup, "epoch_s": epoch_s if seen else None,
            "steps": steps if seen else None, "step_s": step_s or None, "rss_mb": rss, "rc": rc}


def _prepare(name: str) -> None:
    target = {"search-train": "search", "search": None}.get(name, name)
    if target:
        shutil.rmtree(os.path.join(MODELS, target), ignore_errors=True)
    os.makedirs(os.path.join(MODELS, "forward"), exist_ok=True)


def _fmt(value) -> str:
    if value is None:
        return "-"
    return "%.2f" % value if isinstance(value, float) else str(value)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", default=["blstm-train", "ff-train", "forward"])
    parser.add_argument("--bench-dir", default=DEFAULT_BENCH_DIR)
    parser.add_argument("--python", default=sys.executable, help="interpreter for this project")
    parser.add_argument("--ref-python", default="/tmp/refvenv/bin/python" if os.path.exists("/tmp/refvenv/bin/python")
                        else None, help="interpreter of the reference's venv (omit: ours only)")
    parser.add_argument("--reps", type=int, default=1)
    parser.add_argument("--extra", default="", help='extra "++key value" args for every run')
    parser.add_argument("--ref-extra", default=None, help='extra args for the reference runs only (default: --extra), '
                                                          'e.g. "++lstm_unit standardlstm" (its fastest CPU unit)')
    opts = parser.parse_args(argv)
    extra = opts.extra.split()
    ref_extra = opts.ref_extra.split() if opts.ref_extra is not None else extra
    shim_dir = tempfile.mkdtemp(prefix="ref-rnn-")
    with open(os.path.join(shim_dir, "rnn.py"), "w") as f:
        f.write("from returnn.__main__ import main\nmain()\n")
    systems = [("ours", opts.python, os.path.join(REPO, "rnn.py"), REPO, extra)]
    if opts.ref_python:
        systems.append(("reference", opts.ref_python, os.path.join(shim_dir, "rnn.py"), shim_dir, ref_extra))
    cols = ["wall_s", "cpu_s", "startup_s", "epoch_s", "steps", "step_s", "rss_mb", "rc"]
    print("# name system " + " ".join(cols) + "   (%s, nproc %d)" % (time.strftime("%Y-%m-%dT%H:%M:%S"),
                                                                     os.cpu_count() or 0))
    results: Dict[str, Dict[str, List[Dict]]] = {}
    for name in opts.names:
        if name not in BENCHES:
            print("unknown benchmark %r; known: %s" % (name, ", ".join(BENCHES)), file=sys.stderr)
            return 2
        config, args = BENCHES[name]
        for rep in range(opts.reps):
            for system, python, rnn_py, cwd, sys_extra in systems:
                _prepare(name)
                if name == "search":  # needs the trained model
                    run_one(python, rnn_py, cwd, os.path.join(opts.bench_dir, config), sys_extra)
                res = run_one(python, rnn_py, cwd, os.path.join(opts.bench_dir, config), args + sys_extra)
                results.setdefault(name, {}).setdefault(system, []).append(res)
                print("%s %s %s" % (name, system, " ".join(_fmt(res[c]) for c in cols)), flush=True)
    if opts.ref_python:
        print("\n# ratios ours/reference (best of %d run(s) each)" % opts.reps)
        print("# name " + " ".join(c for c in cols if c not in ("rc", "steps")))
        for name, by_system in results.items():
            if "reference" not in by_system:
                continue
            parts = []
            for col in cols:
                if col in ("rc", "steps"):
                    continue
                ours = [r[col] for r in by_system["ours"] if r[col] is not None]
                ref = [r[col] for r in by_system["reference"] if r[col] is not None]
                parts.append("%.2f" % (min(ours) / min(ref)) if ours and ref and min(ref) > 0 else "-")
            print("%s %s" % (name, " ".join(parts)))
    shutil.rmtree(shim_dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Training speed of an RF model (``returnn.frontend``): this project with ``backend = "tensorflow"`` against the
reference with ``backend = "tensorflow-net-dict"``, alternating, each through its own ``rnn.py`` on the same config
and the same generated batches (``conformer-aed-train.config`` here: the conformer of ``demos/rf-conformer-aed``).

Each run is one ``rnn.py`` process in a fresh scratch directory (no checkpoint to continue from); from its log
lines ``train epoch 1, step N, ..., X sec/step`` the runner takes the steps after ``--warmup`` and reports their
median and minimum, the process's CPU seconds, and the ratio ours / reference of the best run per side.

    python3 benchmarks/rf-speed/run.py                        # best of 3, 48 sequences (6 steps of 8)
    python3 benchmarks/rf-speed/run.py --reps 2 --num-seqs 96 --env RF_SPEED_ENC_LAYERS=12
    python3 benchmarks/rf-speed/run.py --sides ours --extra "++tf_amp bfloat16"

``--env KEY=VALUE`` sets the config's knobs (``RF_SPEED_DIM``, ``RF_SPEED_ENC_LAYERS``, ``RF_SPEED_DEC_LAYERS``,
``RF_SPEED_DROPOUT``, ``RF_SPEED_SPECAUG``; see the config) for both sides. The reference's run is limited to
12 GB of virtual memory (an error in its layer construction printed the locals of a deep stack and took 18 GB).
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

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
RE_STEP = re.compile(r"^train epoch 1, step (\d+), .* ([0-9.]+) sec/step")


def run_one(side: str, python: str, config: str, opts) -> Dict[str, Optional[float]]:
    """One ``rnn.py`` process; :return: step_median, step_min, steps, cpu_s, wall_s (None where missing)."""
    scratch = tempfile.mkdtemp(prefix="rf-speed-")
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", CUDA_VISIBLE_DEVICES="", RF_SPEED_OUT=scratch,
               RF_SPEED_NUM_SEQS=str(opts.num_seqs))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    for item in opts.env:
        key, value = item.split("=", 1)
        env[key] = value
    if side == "ours":
        env["PYTHONPATH"] = REPO
        cmd = [python, os.path.join(REPO, "rnn.py"), config, "++backend", "tensorflow"] + opts.extra.split()
        cwd = REPO
    else:
        env["PYTHONPATH"] = ""
        with open(os.path.join(scratch, "rnn.py"), "w") as f:  # the reference's PyPI package has no rnn.py
            f.write("from returnn.__main__ import main\nmain()\n")
        cmd = ["bash", "-c", 'ulimit -v 12000000; exec "$@"', "-", python, os.path.join(scratch, "rnn.py"), config,
               "++backend", "tensorflow-net-dict"] + opts.ref_extra.split()
        cwd = scratch
    cmd += ["++device", "cpu", "++log_verbosity", "5"]
    usage0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.time()
    proc = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=opts.timeout)
    wall = time.time() - start
    usage1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (usage1.ru_utime - usage0.ru_utime) + (usage1.ru_stime - usage0.ru_stime)
    steps = []
    for line in proc.stdout.splitlines():
        m = RE_STEP.search(line)
        if m and int(m.group(1)) >= opts.warmup:
            steps.append(float(m.group(2)))
    shutil.rmtree(scratch, ignore_errors=True)
    if proc.returncode != 0 or not steps:
        sys.stderr.write(f"{side}: rc {proc.returncode}\n" + "\n".join(proc.stdout.splitlines()[-15:]) + "\n")
    steps.sort()
    return {"step_median": steps[len(steps) // 2] if steps else None, "step_min": steps[0] if steps else None,
            "steps": len(steps), "cpu_s": cpu, "wall_s": wall, "rc": proc.returncode}


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", default=os.path.join(HERE, "conformer-aed-train.config"))
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--num-seqs", type=int, default=48, help="sequences in the epoch (8 per step)")
    parser.add_argument("--warmup", type=int, default=2, help="steps left out of the median (the first's graph "
                                                              "optimizations)")
    parser.add_argument("--sides", nargs="*", default=["ours", "ref"])
    parser.add_argument("--ours", default=sys.executable, help="Python for this project (its checkout's returnn)")
    parser.add_argument("--ref", default="/tmp/refvenv/bin/python", help="Python of the reference's venv")
    parser.add_argument("--extra", default="", help='"++key value" args for ours')
    parser.add_argument("--ref-extra", default="", help='"++key value" args for the reference')
    parser.add_argument("--env", nargs="*", default=[], metavar="KEY=VALUE", help="environment for both sides")
    parser.add_argument("--timeout", type=int, default=1800)
    opts = parser.parse_args(argv)
    cols = ["step_median", "step_min", "steps", "cpu_s", "wall_s", "rc"]
    print("# side rep " + " ".join(cols) + f"   ({time.strftime('%Y-%m-%dT%H:%M:%S')}, load "
          f"{os.getloadavg()[0]:.1f})", flush=True)
    best: Dict[str, Dict[str, float]] = {}
    for rep in range(opts.reps):
        for side, python in (("ours", opts.ours), ("ref", opts.ref)):
            if side not in opts.sides:
                continue
            load = os.getloadavg()[0]
            res = run_one(side, python, opts.config, opts)
            print(f"{side} {rep} " + " ".join("-" if res[c] is None else (f"{res[c]:.3f}" if isinstance(
                res[c], float) else str(res[c])) for c in cols) + f"   (load {load:.1f})", flush=True)
            for col in ("step_median", "step_min", "cpu_s"):
                if res[col] is not None:
                    best.setdefault(side, {})[col] = min(best.get(side, {}).get(col, 1e9), res[col])
    if "ours" in best and "ref" in best:
        print(f"\n# best of {opts.reps}: ours / reference")
        for col in ("step_median", "step_min", "cpu_s"):
            if col in best["ours"] and col in best["ref"]:
                print(f"{col}: {best['ours'][col]:.3f} / {best['ref'][col]:.3f} = "
                      f"{best['ours'][col] / best['ref'][col]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

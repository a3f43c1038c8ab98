#!/usr/bin/env python3
"""Training speed of an RF model (``returnn.frontend``): this project with ``backend = "tensorflow"`` against the
reference with ``backend = "tensorflow-net-dict"``, alternating, each through its own ``rnn.py`` on the same config
and the same generated batches (``conformer-aed-train.config`` here: the conformer of ``demos/rf-conformer-aed``).

Each run is one ``rnn.py`` process in a fresh scratch directory (no checkpoint to continue from), started through
``stamp.py``, which stamps each ``train epoch 1, step N, ...`` log line with the process's CPU seconds. Per run the
runner reports, for the steps from ``--warmup`` on: ``step_cpu`` (median CPU seconds of the process per step,
all threads, from one step line to the next: the work of a step, which unlike the wall time does not depend on
how many other processes share the cores), ``step_cpu_min``, the median and minimum of the log's ``X sec/step``
(wall time), the process's CPU seconds in all (start-up included) and its wall time; then the ratio ours /
reference of the best run per side.

    python3 benchmarks/rf-speed/run.py                        # best of 3, 64 sequences (8 steps of 8)
    python3 benchmarks/rf-speed/run.py --reps 2 --num-seqs 96 --env RF_SPEED_ENC_LAYERS=12
    python3 benchmarks/rf-speed/run.py --sides ours --extra "++tf_amp bfloat16"
    python3 benchmarks/rf-speed/run.py --reps 1 --trace 3     # + kernel time and op counts by type, both sides

``--trace K`` traces every ``Session.run`` of the step after step line ``K`` (the same patch of
``tf.compat.v1.Session.run`` on both sides) and prints the kernel time, the kernel count per step and the graph's
op count by op type.

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
    stamp_file = os.path.join(scratch, "stamps")
    stamp = [python, os.path.join(HERE, "stamp.py"), stamp_file]
    if side == "ours":
        env["PYTHONPATH"] = REPO
        cmd = stamp + ["ours", os.path.join(REPO, "rnn.py"), config, "++backend", "tensorflow"] + opts.extra.split()
        cwd = REPO
    else:
        env["PYTHONPATH"] = ""
        cmd = ["bash", "-c", 'ulimit -v 12000000; exec "$@"', "-"] + stamp + [
            "ref", config, "++backend", "tensorflow-net-dict"] + opts.ref_extra.split()
        cwd = scratch
    if opts.trace:
        env["RF_SPEED_TRACE"] = str(opts.trace)
        env["RF_SPEED_TRACE_TOP"] = str(opts.trace_top)
        env["RF_SPEED_TRACE_NODES"] = str(opts.trace_nodes)
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
    step_cpu = _step_cpu(stamp_file, opts.warmup)
    if os.path.exists(stamp_file + ".trace"):
        with open(stamp_file + ".trace") as f:
            sys.stdout.write("".join(f"{side} {line}" for line in f))
    shutil.rmtree(scratch, ignore_errors=True)
    if proc.returncode != 0 or not steps:
        sys.stderr.write(f"{side}: rc {proc.returncode}\n" + "\n".join(proc.stdout.splitlines()[-15:]) + "\n")
    steps.sort()
    return {"step_median": steps[len(steps) // 2] if steps else None, "step_min": steps[0] if steps else None,
            "steps": len(steps), "step_cpu": step_cpu[len(step_cpu) // 2] if step_cpu else None,
            "step_cpu_min": step_cpu[0] if step_cpu else None, "cpu_s": cpu, "wall_s": wall, "rc": proc.returncode}


def _step_cpu(stamp_file: str, warmup: int) -> List[float]:
    """:return: sorted CPU seconds of the process between consecutive step lines, for the steps from ``warmup`` on
    (step ``i``'s CPU: its stamp minus step ``i - 1``'s)"""
    if not os.path.exists(stamp_file):
        return []
    stamps = {}
    with open(stamp_file) as f:
        for line in f:
            step, cpu, _wall = line.split()
            stamps[int(step)] = float(cpu)
    return sorted(stamps[i] - stamps[i - 1] for i in stamps if i >= max(warmup, 1) and i - 1 in stamps)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", default=os.path.join(HERE, "conformer-aed-train.config"))
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--num-seqs", type=int, default=64, help="sequences in the epoch (8 per step)")
    parser.add_argument("--warmup", type=int, default=2, help="steps left out of the median (the first's graph "
                                                              "optimizations)")
    parser.add_argument("--sides", nargs="*", default=["ours", "ref"])
    parser.add_argument("--ours", default=sys.executable, help="Python for this project (its checkout's returnn)")
    parser.add_argument("--ref", default="/tmp/refvenv/bin/python", help="Python of the reference's venv")
    parser.add_argument("--extra", default="", help='"++key value" args for ours')
    parser.add_argument("--ref-extra", default="", help='"++key value" args for the reference')
    parser.add_argument("--env", nargs="*", default=[], metavar="KEY=VALUE", help="environment for both sides")
    parser.add_argument("--timeout", type=int, default=1800)
    parser.add_argument("--trace", type=int, default=0, metavar="K",
                        help="trace the step after step K (every Session.run up to the next step line) on both "
                             "sides: kernel time and kernel count by op type, the graph's op count by type")
    parser.add_argument("--trace-top", type=int, default=40, help="with --trace: op types printed")
    parser.add_argument("--trace-nodes", type=int, default=0, help="with --trace: single kernels printed")
    opts = parser.parse_args(argv)
    cols = ["step_cpu", "step_cpu_min", "step_median", "step_min", "steps", "cpu_s", "wall_s", "rc"]
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
            for col in ("step_cpu", "step_cpu_min", "step_median", "step_min", "cpu_s"):
                if res[col] is not None:
                    best.setdefault(side, {})[col] = min(best.get(side, {}).get(col, 1e9), res[col])
    if "ours" in best and "ref" in best:
        print(f"\n# best of {opts.reps}: ours / reference")
        for col in ("step_cpu", "step_cpu_min", "step_median", "step_min", "cpu_s"):
            if col in best["ours"] and col in best["ref"]:
                print(f"{col}: {best['ours'][col]:.3f} / {best['ref'][col]:.3f} = "
                      f"{best['ours'][col] / best['ref'][col]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Multi-process data-parallel training on one machine: 1 vs 2 workers for a training config (default
``../shared/bench/ff-train.config``), the cost of the gradient all-reduce, and a paper estimate for 8 machines.

Usage::

    python3 benchmarks/distributed/run.py [--config CFG] [--num-seqs N] [--reps R] [--link-gbit 10]

Measured:

* ``train``: ``rnn.py CFG ++device cpu ++log_verbosity 5`` as one process, and as 2 workers
  (``tools/launch-distributed.py -n 2 ... ++distributed 1``, ``horovod_dataset_distribution = "shard"``).
  From rank 0's per-step lines ``X sec/step`` (step 0 left out: graph warm-up): median step time, steps/s of
  one worker, and batches/s of all workers together (each step of each worker processes one batch).
  ``--num-seqs`` shortens the epoch (``++train`` with the config's dataset dict and that ``num_seqs``);
  the model and batch size stay as configured.
* ``allreduce``: 2 workers run exactly the updater's fused gradient all-reduce
  (:func:`returnn.tf.distributed.allreduce_gradients`) for tensors of the shapes of the config's trainable
  parameters, ``--reps`` times after 3 warm-up runs; median seconds. Also the per-step synchronisation
  all-reduce of the runner (2 int32 values).

Estimate for ``n`` machines (ring all-reduce: each worker sends and receives ``2 (n-1)/n`` times the
gradient size ``S`` in ``2 (n-1)`` messages): ``T_ar(n) = max(2(n-1)/n * T_ar(2), 2(n-1)/n * S / link) +
2 (n-1) * latency``, where ``T_ar(2)`` (one ``S`` per worker) is the measured loopback cost (gRPC and copy
bound), ``link`` the network bandwidth (``--link-gbit``) and ``latency`` ``--latency-ms``. Step time on
``n`` machines: ``t_c + T_ar(n) + t_sync``, with ``t_c`` the measured single-process step time;
speed-up ``n * t_c / (t_c + T_ar(n) + t_sync)`` (the all-reduce does not overlap with compute: gradients
are fused into one buffer after the backward pass).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Dict, List

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_CONFIG = os.path.normpath(os.path.join(REPO, "..", "shared", "bench", "ff-train.config"))
LAUNCHER = os.path.join(REPO, "tools", "launch-distributed.py")
STEP_RE = re.compile(r"^train epoch \d+, step (\d+), .*?([0-9.]+) sec/step")


def _train_overrides(config_path: str, num_seqs: int, model_dir: str) -> List[str]:
    args = ["++device", "cpu", "++log_verbosity", "5", "++model", os.path.join(model_dir, "model"),
            "++num_epochs", "1", "++start_epoch", "1"]
    if num_seqs:
        sys.path.insert(0, REPO)
        from returnn.config import Config

        config = Config()
        config.load_file(config_path)
        train = dict(config.typed_value("train"))
        train["num_seqs"] = num_seqs
        args += ["++train", repr(train)]
    return args


def _step_times(output: str) -> List[float]:
    times = []
    for line in output.splitlines():
        match = STEP_RE.match(line)
        if match and int(match.group(1)) > 0:
            times.append(float(match.group(2)))
    return times


def run_training(config_path: str, workers: int, num_seqs: int) -> Dict[str, float]:
    """One training epoch with ``workers`` processes; rank 0's step statistics."""
    model_dir = tempfile.mkdtemp(prefix="bench-dist-")
    try:
        command = [sys.executable, os.path.join(REPO, "rnn.py"), config_path] + _train_overrides(
            config_path, num_seqs, model_dir)
        if workers > 1:
            log_file = os.path.join(model_dir, "log")
            command = ([sys.executable, LAUNCHER, "-n", str(workers), "--"] + command
                       + ["++distributed", "1", "++log", log_file])
        env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
        start = time.time()
        proc = subprocess.run(command, capture_output=True, text=True, env=env)
        wall = time.time() - start
        if proc.returncode != 0:
            raise RuntimeError(f"{command} failed ({proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
        output = proc.stdout
        if workers > 1:
            with open(log_file, encoding="utf8") as f:
                output = f.read()  # rank 0's lines only
        times = _step_times(output)
        if not times:
            raise RuntimeError("no 'sec/step' lines in the output")
        median = statistics.median(times)
        return {"workers": workers, "steps": len(times) + 1, "step_s": median, "steps_per_s": 1.0 / median,
                "wall_s": wall}
    finally:
        shutil.rmtree(model_dir, ignore_errors=True)


def allreduce_worker(config_path: str, reps: int) -> None:
    """Runs as one of the launched workers: times the updater's fused all-reduce for the config's params."""
    sys.path.insert(0, REPO)
    import numpy as np
    import tensorflow as tf

    from returnn.config import Config
    from returnn.tf import distributed as dist
    from returnn.tf.engine import network_setup

    tf1 = tf.compat.v1
    tf1.disable_eager_execution()
    config = Config()
    config.load_file(config_path)
    shapes_graph = tf.Graph()
    with shapes_graph.as_default():
        network = network_setup.create_network(
            config, extern_data=network_setup.create_extern_data(config), net_dict=network_setup.get_net_dict(config),
            train_flag=True, eval_flag=True)
        shapes = [(v.op.name, v.shape.as_list(), v.dtype.base_dtype) for v in network.get_trainable_params()]
    dist.init(Config({"distributed": True, "distributed_collective_timeout": 120.0}))
    graph = tf.Graph()
    with graph.as_default():
        variables = [tf1.get_variable(name, shape, dtype, trainable=True) for name, shape, dtype in shapes]
        grads = [(tf.random.normal(v.shape, dtype=v.dtype), v) for v in variables]
        weight = dist.make_grad_weight_placeholder()
        reduced = tf.group(*[g for g, _ in dist.allreduce_gradients(grads, weight=weight)])
        local = tf.group(*[g for g, _ in grads])  # the same without the all-reduce
        init = tf1.global_variables_initializer()
    session = tf1.Session(dist.session_target(), graph=graph, config=dist.make_session_config())
    session.run(init)

    def timed(fn) -> float:
        for _ in range(3):
            fn()
        times = []
        for _ in range(reps):
            dist.barrier("bench")
            start = time.perf_counter()
            fn()
            times.append(time.perf_counter() - start)
        return statistics.median(times)

    with_ar = timed(lambda: session.run(reduced))
    without = timed(lambda: session.run(local))
    sync = timed(lambda: dist.host_allreduce(np.array([1, 0], np.int32), "train_step_sync"))
    if dist.rank() == 0:
        num = sum(int(np.prod(s)) for _, s, _ in shapes)
        print("ALLREDUCE_RESULT " + json.dumps({
            "num_params": num, "bytes": 4 * num, "allreduce_s": max(with_ar - without, 0.0),
            "with_allreduce_s": with_ar, "local_s": without, "step_sync_s": sync}), flush=True)


def run_allreduce(config_path: str, reps: int) -> Dict[str, float]:
    command = [sys.executable, LAUNCHER, "-n", "2", "--", sys.executable, os.path.abspath(__file__),
               "--allreduce-worker", "--config", config_path, "--reps", str(reps)]
    proc = subprocess.run(command, capture_output=True, text=True, env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2"))
    for line in proc.stdout.splitlines():
        if line.startswith("ALLREDUCE_RESULT "):
            return json.loads(line.split(" ", 1)[1])
    raise RuntimeError(f"all-reduce benchmark failed ({proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}")


def estimate(t_c: float, ar: Dict[str, float], machines: int, link_gbit: float, latency_ms: float) -> Dict[str, float]:
    """Paper estimate for ``machines`` workers, one per machine (see the module docstring)."""
    factor = 2.0 * (machines - 1) / machines
    t_ar = max(factor * ar["allreduce_s"], factor * ar["bytes"] / (link_gbit * 1e9 / 8)) \
        + 2 * (machines - 1) * latency_ms / 1000.0
    step = t_c + t_ar + ar["step_sync_s"]
    return {"machines": machines, "allreduce_s": t_ar, "step_s": step, "share": (t_ar + ar["step_sync_s"]) / step,
            "speedup": machines * t_c / step}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", default=DEFAULT_CONFIG)
    parser.add_argument("--num-seqs", type=int, default=1200, help="sequences per epoch (0: as configured)")
    parser.add_argument("--reps", type=int, default=15, help="timed all-reduce runs")
    parser.add_argument("--link-gbit", type=float, default=10.0, help="network bandwidth for the estimate")
    parser.add_argument("--latency-ms", type=float, default=0.1, help="per-message latency for the estimate")
    parser.add_argument("--allreduce-worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.allreduce_worker:
        allreduce_worker(args.config, args.reps)
        return
    print(f"config {args.config}, num_seqs {args.num_seqs or 'as configured'}, {os.cpu_count()} CPUs, "
          f"load average {os.getloadavg()[0]:.1f}", flush=True)
    ar = run_allreduce(args.config, args.reps)
    print(f"all-reduce of {ar['num_params']} float32 params ({ar['bytes'] / 1e6:.1f} MB), 2 workers loopback: "
          f"{ar['allreduce_s'] * 1000:.1f} ms (run with/without: {ar['with_allreduce_s'] * 1000:.1f}/"
          f"{ar['local_s'] * 1000:.1f} ms); per-step sync all-reduce {ar['step_sync_s'] * 1000:.2f} ms", flush=True)
    results = [run_training(args.config, n, args.num_seqs) for n in (1, 2)]
    print("| workers | step time (median) | steps/s per worker | batches/s, all workers | all-reduce share of step |")
    print("|---|---|---|---|---|")
    for r in results:
        share = "0%" if r["workers"] == 1 else f"{100 * (ar['allreduce_s'] + ar['step_sync_s']) / r['step_s']:.0f}%"
        print(f"| {r['workers']} | {r['step_s']:.3f} s | {r['steps_per_s']:.2f} | "
              f"{r['workers'] * r['steps_per_s']:.2f} | {share} |", flush=True)
    t_c = results[0]["step_s"]
    print(f"estimate (t_c = {t_c:.3f} s measured single-process step, link {args.link_gbit:g} Gbit/s, latency "
          f"{args.latency_ms:g} ms):")
    for machines in (2, 4, 8):
        e = estimate(t_c, ar, machines, args.link_gbit, args.latency_ms)
        print(f"  {machines} machines: all-reduce {e['allreduce_s'] * 1000:.0f} ms, step {e['step_s']:.3f} s, "
              f"communication share {100 * e['share']:.0f}%, speed-up {e['speedup']:.2f}x", flush=True)


if __name__ == "__main__":
    main()

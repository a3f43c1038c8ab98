#!/usr/bin/env python3
"""Bit-identical resume mid-epoch under ``kill -9``: a training run with step checkpoints, killed at random moments
and restarted each time (the same command line), must end with the same parameters (every variable, exact
equality) and the same learning-rate file as a run never stopped.

Usage::

    python3 benchmarks/resume/kill_resume.py --trials 20                 # the 12AX demo, 5 epochs
    python3 benchmarks/resume/kill_resume.py --trials 2 --small          # seconds, as the test suite does

A *trial* is one ``kill -9`` (``--signals``: or SIGTERM/SIGINT, in turn) at a random moment of the killed run,
followed by a restart: uniformly within ``2 F + T / trials`` seconds after the restarted process's ``start epoch``
line, counted in CPU seconds of the process (``--clock wall``: wall-clock seconds), where ``T`` is the training
phase of the uninterrupted run (run first) and ``F`` the time from its ``start epoch`` line to its first step
checkpoint (the first step's start-up and one interval of steps; twice that, since a restart also loads and skips).
So the kills fall on the first steps, later steps, step checkpoint writes, the evaluation, the epoch's checkpoint,
the next epoch's start, ... and the run makes progress between them. After each trial, every epoch checkpoint the
killed run has written so far is compared with the uninterrupted run's; after the last trial the run goes on to its
end and all its epoch checkpoints and its learning-rate file are compared. ``--kill-after-step-checkpoint`` signals
at a random moment within ``--window`` (0.5) wall-clock seconds after the restarted process wrote its first step
checkpoint instead (every trial then resumes mid-epoch; the uninterrupted run then runs alongside).

The learning-rate file is compared with the values of ``:meta:epoch_train_time_secs`` masked: they are wall-clock
seconds, different between any two runs.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from typing import Callable, Dict, List, Optional, Tuple

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEMO = os.path.join(REPO, "demos", "demo-tf-native-lstm.12ax.config")

SMALL_OVERRIDES = [
    "++train", '{"class": "Task12AXDataset", "num_seqs": 24, "fixed_random_seed": 1}',
    "++dev", '{"class": "Task12AXDataset", "num_seqs": 6, "fixed_random_seed": 2}',
    "++batch_size", "400", "++max_seqs", "3", "++chunking", "40:40", "++num_epochs", "3",
]


def command(config: str, workdir: str, interval: int, extra: List[str]) -> List[str]:
    """The run's command line (the same for every restart)."""
    return [sys.executable, os.path.join(REPO, "rnn.py"), config,
            "++model", os.path.join(workdir, "model"), "++learning_rate_file", os.path.join(workdir, "lr.txt"),
            "++step_checkpoint_interval", str(interval), "++log_verbosity", "4", "++device", "cpu"] + extra


def _env() -> Dict[str, str]:
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", PYTHONUNBUFFERED="1")
    env["PYTHONPATH"] = REPO + os.pathsep + env.get("PYTHONPATH", "")
    return env


START_LINE = "start epoch"  # the process's training phase starts (after imports, graph, session, loading)
STEP_CKPT_LINE = "Save step checkpoint"


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far (Linux ``/proc``; 0 when it is gone)."""
    try:
        with open("/proc/%i/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_watched(cmd: List[str], log_file: str, *, trigger: Optional[str] = None,
                delay: Callable[[], float] = lambda: 0.0, signum: int = signal.SIGKILL, clock: str = "wall"
                ) -> Tuple[bool, float, Dict[str, float], str]:
    """Runs ``cmd``; with ``trigger``, sends ``signum`` ``delay()`` seconds after the first output line containing
    ``trigger`` (and waits for the process to end; SIGKILL after 300 s). Returns (signalled, seconds in all, the
    seconds from the start to the first line with :data:`START_LINE` / :data:`STEP_CKPT_LINE` / ``trigger`` (those
    seen), the process's output).

    :param clock: ``"wall"`` (wall-clock seconds) or ``"cpu"`` (the process's CPU seconds: the moments then follow
        the work done, whatever else runs on the machine)

    :raises RuntimeError: the process failed by itself
    """
    start = time.time()
    part = log_file + ".part"
    with open(part, "w") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=_env(), cwd=REPO)
        if clock == "cpu":
            def now() -> float:
                return cpu_seconds(proc.pid)
        else:
            def now() -> float:
                return time.time() - start
        deadline, seen, last = None, {}, 0.0
        watched = {START_LINE, STEP_CKPT_LINE} | ({trigger} if trigger else set())
        while proc.poll() is None and (deadline is None or last < deadline):
            time.sleep(0.02)
            last = max(last, now())
            if len(seen) < len(watched):
                with open(part) as f:
                    text = f.read()
                for line in watched - set(seen):
                    if line in text:
                        seen[line] = last
                        if line == trigger:
                            deadline = last + delay()
        killed = proc.poll() is None
        if killed:
            os.kill(proc.pid, signum)
            try:
                proc.wait(timeout=300)
            except subprocess.TimeoutExpired:
                os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    with open(part) as f:
        text = f.read()
    os.remove(part)
    with open(log_file, "a") as log:
        log.write(text + (("\n===== signal %s =====\n" % signal.Signals(signum).name) if killed
                          else "\n===== ended, exit code %s =====\n" % proc.returncode))
    if not killed and proc.returncode != 0:
        raise RuntimeError("%s failed with exit code %i, see %s" % (" ".join(cmd), proc.returncode, log_file))
    return killed, last if clock == "cpu" else time.time() - start, seen, text


def read_checkpoint(prefix: str) -> Dict[str, "object"]:
    """Variable name → numpy value of a TF checkpoint."""
    import tensorflow as tf

    reader = tf.train.load_checkpoint(prefix)
    return {name: reader.get_tensor(name) for name in reader.get_variable_to_shape_map()}


def compare_checkpoints(a: str, b: str) -> List[str]:
    """:return: the differences (variable names, shapes, dtypes, values; exact equality)"""
    import numpy as np

    va, vb = read_checkpoint(a), read_checkpoint(b)
    problems = []
    if sorted(va) != sorted(vb):
        problems.append("%s vs %s: variables differ: %s" % (a, b, sorted(set(va) ^ set(vb))))
    for name in sorted(set(va) & set(vb)):
        x, y = np.asarray(va[name]), np.asarray(vb[name])
        if x.dtype != y.dtype or x.shape != y.shape or not np.array_equal(x, y):
            diff = float(np.max(np.abs(x.astype(np.float64) - y.astype(np.float64)))) if x.shape == y.shape else None
            problems.append("%s: %s differs (max abs diff %s)" % (os.path.basename(a), name, diff))
    return problems


def lr_file_text(filename: str) -> str:
    """The learning-rate file with the wall-clock values masked."""
    with open(filename) as f:
        text = f.read()
    return re.sub(r"('?:meta:epoch_train_time_secs'?\s*:\s*)\d+", r"\1<time>", text)


def epoch_checkpoints(workdir: str) -> Dict[int, str]:
    """Epoch → prefix of the complete epoch checkpoints in ``workdir``."""
    out = {}
    for name in os.listdir(workdir):
        match = re.match(r"model\.(\d+)\.index$", name)
        if match:
            out[int(match.group(1))] = os.path.join(workdir, name[: -len(".index")])
    return dict(sorted(out.items()))


def main(argv: Optional[List[str]] = None) -> int:
    """Runs the experiment (see module doc); returns 0 when every comparison holds, else 1."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", default=DEMO, help="training config (default: the 12AX demo)")
    parser.add_argument("--trials", type=int, default=20, help="number of kill -9 + restart trials")
    parser.add_argument("--step-interval", type=int, default=20, help="step_checkpoint_interval")
    parser.add_argument("--small", action="store_true", help="a small 12AX setup (24 seqs, 3 epochs): seconds")
    parser.add_argument("--kill-after-step-checkpoint", action="store_true",
                        help="kill shortly after each restart's first step checkpoint (instead of at a random time)")
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu",
                        help="the kill moments in the process's CPU seconds (default: they follow the work done, on a "
                             "loaded machine too) or in wall-clock seconds")
    parser.add_argument("--window", type=float, default=0.5,
                        help="with --kill-after-step-checkpoint: the signal comes within this many seconds")
    parser.add_argument("--signals", default="KILL",
                        help="comma-separated signals sent in turn, e.g. KILL,TERM (default: KILL, i.e. kill -9); "
                             "TERM/INT let the run write a step checkpoint of its last step and exit")
    parser.add_argument("--seed", type=int, default=None, help="seed of the kill moments (default: random)")
    parser.add_argument("--workdir", default=None, help="keep the runs here (default: a temporary directory)")
    parser.add_argument("extra", nargs="*", help="more ++key value config overrides for both runs")
    args = parser.parse_args(argv)
    signals = [name.strip().upper() for name in args.signals.split(",") if name.strip()]
    seed = args.seed if args.seed is not None else random.randrange(2 ** 31)
    rng = random.Random(seed)
    extra = (SMALL_OVERRIDES if args.small else []) + list(args.extra)
    base = args.workdir or tempfile.mkdtemp(prefix="kill-resume-")
    ref_dir, kill_dir = os.path.join(base, "uninterrupted"), os.path.join(base, "killed")
    for d in (ref_dir, kill_dir):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
    print("kill-resume: config %s, step_checkpoint_interval %i, %i trials, seed %i, in %s"
          % (args.config, args.step_interval, args.trials, seed, base), flush=True)
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    ref_cmd = command(args.config, ref_dir, args.step_interval, extra)
    ref_proc = None
    if args.kill_after_step_checkpoint:  # the kill moments do not depend on its duration: run it alongside
        ref_log = open(os.path.join(ref_dir, "log"), "w")
        ref_proc = subprocess.Popen(ref_cmd, stdout=ref_log, stderr=subprocess.STDOUT, env=_env(), cwd=REPO)
        trigger, window = STEP_CKPT_LINE, args.window
    else:
        _, ref_time, seen, _ = run_watched(ref_cmd, os.path.join(ref_dir, "log"), clock=args.clock)
        train_time = ref_time - seen.get(START_LINE, 0.0)
        first_ckpt = seen.get(STEP_CKPT_LINE, ref_time) - seen.get(START_LINE, 0.0)
        trigger, window = START_LINE, 2.0 * first_ckpt + train_time / args.trials
        print("uninterrupted run (%s seconds): %.1f s, training phase %.1f s, first step checkpoint %.1f s after the "
              "'%s' line: kills at a uniform random moment within %.1f s after each restart's '%s' line"
              % (args.clock, ref_time, train_time, first_ckpt, START_LINE, window, START_LINE), flush=True)
    cmd = command(args.config, kill_dir, args.step_interval, extra)
    log_file = os.path.join(kill_dir, "log")
    problems: List[str] = []
    kills, resumed_mid_epoch, finished = 0, 0, False
    for trial in range(1, args.trials + 1):
        chosen: List[float] = []

        def delay() -> float:
            chosen.append(rng.uniform(0.0, window))
            return chosen[-1]

        sig_name = signals[(trial - 1) % len(signals)]
        killed, _, _, text = run_watched(cmd, log_file, trigger=trigger, delay=delay,
                                         signum=getattr(signal, "SIG" + sig_name),
                                         clock="wall" if args.kill_after_step_checkpoint else args.clock)
        loaded = re.findall(r"Load step checkpoint (\S+):", text)
        resumed_mid_epoch += bool(loaded)
        kills += killed
        last = [line for line in text.splitlines() if line.strip()][-1:] if killed else []
        if ref_proc is None:
            for epoch, prefix in epoch_checkpoints(kill_dir).items():
                problems += compare_checkpoints(os.path.join(ref_dir, os.path.basename(prefix)), prefix)
        clock = "wall" if args.kill_after_step_checkpoint else args.clock
        print("trial %i: %s%s; epoch checkpoints so far %s, %s%s" % (
            trial, ("SIG%s %.2f s (%s) after its '%s' line" % (sig_name, chosen[0], clock, trigger))
            if killed and chosen
            else "SIG" + sig_name if killed else "ended by itself before the signal",
            (", had resumed from %s" % os.path.basename(loaded[0])) if loaded else "",
            list(epoch_checkpoints(kill_dir)), "identical" if not problems else "DIFFERENT",
            (" (last line: %s)" % last[0][:100]) if last else ""), flush=True)
        if not killed:
            finished = True
            break
    if not finished:
        run_watched(cmd, log_file)
    if ref_proc is not None:
        if ref_proc.wait() != 0:
            raise RuntimeError("the uninterrupted run failed, see %s" % os.path.join(ref_dir, "log"))
    ref_ckpts = epoch_checkpoints(ref_dir)
    final = max(ref_ckpts)
    kill_ckpts = epoch_checkpoints(kill_dir)
    if sorted(kill_ckpts) != sorted(ref_ckpts):
        problems.append("epoch checkpoints: %s vs %s" % (sorted(kill_ckpts), sorted(ref_ckpts)))
    for epoch in sorted(set(kill_ckpts) & set(ref_ckpts)):
        problems += compare_checkpoints(ref_ckpts[epoch], kill_ckpts[epoch])
    if lr_file_text(os.path.join(ref_dir, "lr.txt")) != lr_file_text(os.path.join(kill_dir, "lr.txt")):
        problems.append("learning-rate files differ")
    leftovers = [n for n in os.listdir(kill_dir) if ".step" in n or ".tmp-" in n]
    if leftovers:
        problems.append("files left over: %s" % leftovers)
    num_vars = len(read_checkpoint(ref_ckpts[final]))
    print("result: %i kills (%i restarts resumed mid-epoch from a step checkpoint); final checkpoint epoch %i, %i "
          "variables: %s; learning-rate file: %s" % (
              kills, resumed_mid_epoch, final, num_vars,
              "all bit-identical" if not problems else "DIFFERENT",
              "identical (time masked)" if "learning-rate files differ" not in problems else "DIFFERENT"), flush=True)
    for problem in problems:
        print("  " + problem)
    if not args.workdir and not problems:
        shutil.rmtree(base, ignore_errors=True)
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main())

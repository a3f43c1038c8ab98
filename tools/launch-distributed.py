#!/usr/bin/env python3
"""Launches N local worker processes for multi-process data-parallel training on one machine.

Usage::

    tools/launch-distributed.py -n 2 -- python3 rnn.py config.py [++key value ...]

Each worker gets the standard ``TF_CONFIG`` cluster spec (all workers on ``--host``, free ports picked
at start or ``--port-base + rank``) and ``RETURNN_DIST_LOCAL_RANK`` / ``RETURNN_DIST_LOCAL_SIZE``; the
config must enable distribution (``use_horovod = True`` or ``distributed = True``, e.g. ``++distributed 1``).

SIGINT/SIGTERM/SIGHUP are forwarded to all workers. When one worker exits with a non-zero status (or is
killed), the others are sent SIGTERM (SIGKILL after ``--grace`` seconds) and the launcher exits with that
worker's status (128 + signal number for a signal). Exit status 0 when all workers exit with 0.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import time
from typing import List, Optional


def free_ports(count: int, host: str) -> List[int]:
    """``count`` distinct TCP ports that were free on ``host`` a moment ago."""
    socks = []
    try:
        for _ in range(count):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.bind((host, 0))
            socks.append(sock)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def worker_env(rank: int, hosts: List[str], base_env: Optional[dict] = None) -> dict:
    """The environment of worker ``rank``: ``TF_CONFIG`` plus local rank/size."""
    env = dict(os.environ if base_env is None else base_env)
    for key in ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "MV2_COMM_WORLD_SIZE"):
        env.pop(key, None)  # we are the launcher here, not mpirun
    env["TF_CONFIG"] = json.dumps({"cluster": {"worker": hosts}, "task": {"type": "worker", "index": rank}})
    env["RETURNN_DIST_LOCAL_RANK"] = str(rank)
    env["RETURNN_DIST_LOCAL_SIZE"] = str(len(hosts))
    return env


def _exit_status(code: int) -> int:
    return 128 - code if code < 0 else code


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     usage="%(prog)s -n N [options] -- command [args ...]")
    parser.add_argument("-n", "--num-workers", type=int, required=True, help="number of worker processes")
    parser.add_argument("--host", default="127.0.0.1", help="address the workers listen on (default 127.0.0.1)")
    parser.add_argument("--port-base", type=int, default=0, help="worker r listens on port-base + r "
                                                                 "(default: free ports)")
    parser.add_argument("--grace", type=float, default=10.0, help="seconds between SIGTERM and SIGKILL when "
                                                                  "stopping the remaining workers (default 10)")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the worker command, after --")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no worker command given (put it after --)")
    if args.num_workers < 1:
        parser.error(f"-n must be >= 1, got {args.num_workers}")
    ports = ([args.port_base + r for r in range(args.num_workers)] if args.port_base
             else free_ports(args.num_workers, args.host))
    hosts = [f"{args.host}:{p}" for p in ports]
    procs = [subprocess.Popen(command, env=worker_env(r, hosts)) for r in range(args.num_workers)]

    def forward(signum, _frame):
        for p in procs:
            if p.poll() is None:
                p.send_signal(signum)

    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, forward)

    status = 0
    while True:
        codes = [p.poll() for p in procs]
        failed = [(r, c) for r, c in enumerate(codes) if c not in (None, 0)]
        if failed:
            rank, code = failed[0]
            status = _exit_status(code)
            print(f"launch-distributed: worker {rank} exited with status {status}; stopping the other workers.",
                  file=sys.stderr, flush=True)
            break
        if all(c == 0 for c in codes):
            return 0
        time.sleep(0.2)
    for p in procs:
        if p.poll() is None:
            p.terminate()
    deadline = time.monotonic() + args.grace
    for p in procs:
        try:
            p.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    return status


if __name__ == "__main__":
    sys.exit(main())

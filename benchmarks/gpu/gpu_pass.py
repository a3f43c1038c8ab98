#!/usr/bin/env python3
"""The GPU pass (issue 33 item 4): this project's training benchmarks on a GPU in float32 and with ``tf_amp``
(``float16`` with its dynamic loss scale), the LSTM units, and raw TensorFlow on the same models; one table.

Usage (normally through ``benchmarks/gpu/run_gpu_pass.sh``)::

    python3 benchmarks/gpu/gpu_pass.py --out DIR [--budget 450] [--dry-run]

Runs, in this order, until ``--budget`` seconds are used (the rest is listed as skipped):

- ``./rnn.py benchmarks/gpu/bench.config`` (one epoch, ``++device gpu ++log_verbosity 5``): the conformer in
  float32 and float16, the BLSTM with ``nativelstm2`` (float32, float16), ``cudnnlstm``, ``standardlstm``, the
  feed-forward model in float32 and float16, and the conformer in bfloat16;
- ``benchmarks/gpu/raw_tf.py``: the feed-forward and BLSTM models in raw TensorFlow (``BlockLSTMV2``, the fused
  kernel the LSTM units run on here, and cuDNN), float32 and float16.

Per run: the median and minimum of the logged ``sec/step`` (steps 0-2 left out: graph warm-up), the epoch time
(``finished after N steps, H:MM:SS``), the process's wall time and exit status. Written to ``DIR`` (five files,
within what the device tool brings back): ``results.md`` (the table, the card, TensorFlow's version),
``results.json``, ``env.txt`` (``nvidia-smi``, TF's devices) and ``logs.tar.gz`` (each run's log); models and logs
are written under ``--work`` first.

Without an importable TensorFlow, or when it sees no GPU, it stops after the environment probe (seconds) with the
reason in ``results.md`` and exit status 3.

``--dry-run``: the same runs on the CPU with tiny sizes and ``bfloat16`` in place of ``float16`` (float16 training
needs a GPU), to check the script on a machine without one.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time
from typing import Any, Dict, List, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

STEP_RE = re.compile(r"^train epoch \d+, step (\d+), .* ([0-9.]+) sec/step")
EPOCH_RE = re.compile(r"^train epoch \d+, finished after (\d+) steps, (\d+):(\d\d):(\d\d) elapsed")


def ours_runs(dry: bool) -> List[Dict[str, Any]]:
    """The rnn.py runs, in priority order: (name, model, dtype, extra ++ args)."""
    half = "bfloat16" if dry else "float16"
    tiny = {
        "ff": ["++bench_num_seqs", "20", "++bench_dim", "64"],
        "blstm": ["++bench_num_seqs", "20"],
        "conformer": ["++bench_num_seqs", "8", "++bench_seq_len", "30", "++bench_dim", "64", "++bench_num_blocks", "2"],
    }
    runs = [
        ("conformer", "conformer", "float32", []),
        ("conformer", "conformer", half, []),
        ("blstm nativelstm2", "blstm", "float32", ["++lstm_unit", "nativelstm2"]),
        ("ff", "ff", "float32", []),
        ("ff", "ff", half, []),
        ("blstm cudnnlstm", "blstm", "float32", ["++lstm_unit", "cudnnlstm"]),
        ("blstm nativelstm2", "blstm", half, ["++lstm_unit", "nativelstm2"]),
        ("blstm standardlstm", "blstm", "float32", ["++lstm_unit", "standardlstm"]),
        ("conformer", "conformer", "bfloat16", []),
    ]
    if dry:  # one run per code path: the conformer, the cudnnlstm unit, tf_amp, (raw TF: raw_runs)
        runs = [runs[0], runs[5], runs[4]]
        tiny["conformer"] = tiny["conformer"][:-1] + ["1"]
    out = []
    for name, model, dtype, extra in runs:
        args = ["++bench_model", model] + extra + (tiny[model] if dry else [])
        if dtype != "float32":
            args += ["++tf_amp", dtype]
        out.append({"kind": "ours", "name": name, "model": model, "dtype": dtype, "args": args})
    return out


def raw_runs(dry: bool) -> List[Dict[str, Any]]:
    """The raw TensorFlow runs: one process per dtype."""
    half = "bfloat16" if dry else "float16"
    return [{"kind": "raw", "name": "raw TF", "dtype": dtype, "models": "ff,blstm-block,blstm-cudnn"}
            for dtype in (("float32",) if dry else ("float32", half))]


def parse_log(text: str) -> Dict[str, Any]:
    """Step times and the epoch line of an rnn.py log."""
    steps = [(int(m.group(1)), float(m.group(2))) for m in map(STEP_RE.match, text.splitlines()) if m]
    timed = [s for i, s in steps if i >= 3] or [s for _, s in steps]
    res: Dict[str, Any] = {"num_steps": len(steps)}
    if timed:
        res["median_step_s"] = statistics.median(timed)
        res["min_step_s"] = min(timed)
    epoch = [m for m in map(EPOCH_RE.match, text.splitlines()) if m]
    if epoch:
        m = epoch[-1]
        res["epoch_s"] = int(m.group(2)) * 3600 + int(m.group(3)) * 60 + int(m.group(4))
    return res


def run_process(cmd: List[str], log_path: str, timeout: float, env: Dict[str, str]) -> Dict[str, Any]:
    start = time.time()
    with open(log_path, "w") as log:
        try:
            proc = subprocess.run(cmd, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, timeout=timeout, env=env)
            rc: Any = proc.returncode
        except subprocess.TimeoutExpired:
            rc = "timeout"
    return {"rc": rc, "wall_s": round(time.time() - start, 1)}


def last_error_line(text: str) -> str:
    """The last line of a traceback's exception (``SomethingError: ...``), or ""."""
    for line in reversed(text.splitlines()):
        if re.match(r"^\s*[\w.]*(Error|Exception)\b", line) and not line.startswith(("E0000", "W0000", "I0000")):
            return line.strip()[:200]
    return ""


def environment(out_dir: str, dry: bool) -> Dict[str, Any]:
    """``nvidia-smi`` and TensorFlow's view of the devices (written to env.txt)."""
    info: Dict[str, Any] = {}
    lines = []
    try:
        smi = subprocess.run(["nvidia-smi", "--query-gpu=name,memory.total,driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30)
        info["gpu"] = smi.stdout.strip() or smi.stderr.strip()
        full = subprocess.run(["nvidia-smi"], capture_output=True, text=True, timeout=30)
        lines.append(full.stdout)
    except (OSError, subprocess.TimeoutExpired) as exc:
        info["gpu"] = "nvidia-smi not available: %s" % exc
    probe = ("import os; os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '2'); import json, tensorflow as tf; "
             "b = tf.sysconfig.get_build_info(); print(json.dumps({'tf': tf.__version__, "
             "'gpus': [d.name for d in tf.config.list_physical_devices('GPU')], "
             "'cuda': b.get('cuda_version'), 'cudnn': b.get('cudnn_version')}))")
    try:
        res = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=180)
        if res.returncode != 0:
            info["tf_probe_error"] = (res.stderr.strip().splitlines() or ["?"])[-1][:300]
        else:
            info.update(json.loads(res.stdout.strip().splitlines()[-1]))
    except Exception as exc:  # reported; the runs decide what works
        info["tf_probe_error"] = "%s: %s" % (type(exc).__name__, exc)
    lines.insert(0, json.dumps(info, indent=1))
    with open(os.path.join(out_dir, "env.txt"), "w") as f:
        f.write("\n".join(lines))
    return info


def write_table(out_dir: str, info: Dict[str, Any], results: List[Dict[str, Any]], dry: bool,
                note: str = "") -> str:
    raw = {(r["model"], r["dtype"]): r for r in results if r["kind"] == "raw" and "median_step_s" in r}
    raw_of = {"ff": "ff", "blstm nativelstm2": "blstm-block", "blstm cudnnlstm": "blstm-block"}
    lines = ["# GPU pass%s" % (" (DRY RUN: CPU, tiny sizes, bfloat16 for float16)" if dry else ""), "",
             "card: %s; TensorFlow %s (CUDA %s, cuDNN %s); TF's GPUs: %s" % (
                 info.get("gpu"), info.get("tf"), info.get("cuda"), info.get("cudnn"), info.get("gpus")), "",
             *(["**Not measured: %s**" % note, ""] if note else []),
             "| run | dtype | median step (s) | min step (s) | steps | epoch (s) | wall (s) | raw TF median step (s) "
             "| ours / raw TF | status |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        if r["kind"] != "ours":
            continue
        ref = raw.get((raw_of.get(r["name"], ""), r["dtype"]))
        ratio = ""
        if ref and r.get("median_step_s"):
            ratio = "%.2f" % (r["median_step_s"] / ref["median_step_s"])
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["name"], r["dtype"], _fmt(r.get("median_step_s")), _fmt(r.get("min_step_s")), r.get("num_steps", ""),
            r.get("epoch_s", ""), r.get("wall_s", ""), _fmt(ref["median_step_s"]) if ref else "", ratio,
            _status(r)))
    lines += ["", "Raw TensorFlow (benchmarks/gpu/raw_tf.py):", "",
              "| model | dtype | median step (s) | min step (s) | status |", "|---|---|---|---|---|"]
    for r in results:
        if r["kind"] == "raw":
            lines.append("| %s | %s | %s | %s | %s |" % (r["model"], r["dtype"], _fmt(r.get("median_step_s")),
                                                         _fmt(r.get("min_step_s")), _status(r)))
    text = "\n".join(lines) + "\n"
    with open(os.path.join(out_dir, "results.md"), "w") as f:
        f.write(text)
    with open(os.path.join(out_dir, "results.json"), "w") as f:
        json.dump({"env": info, "dry_run": dry, "results": results}, f, indent=1)
    return text


def _fmt(value: Optional[float]) -> str:
    return "" if value is None else "%.4f" % value


def _status(r: Dict[str, Any]) -> str:
    if r.get("skipped"):
        return "skipped: " + r["skipped"]
    if r.get("error"):
        return "failed: " + r["error"]
    if r.get("rc") not in (0, None):
        return "rc %s" % r["rc"]
    return "ok"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=os.environ.get("OUT") or "/tmp/gpu-pass", help="result folder ($OUT)")
    parser.add_argument("--work", default="/tmp/gpu-pass-work", help="models and logs while running")
    parser.add_argument("--budget", type=float, default=450.0, help="seconds for all runs (default 450)")
    parser.add_argument("--run-timeout", type=float, default=90.0, help="limit of one run in seconds (default 90)")
    parser.add_argument("--dry-run", action="store_true", help="CPU, tiny sizes (checks the script)")
    args = parser.parse_args()
    dry = args.dry_run
    out_dir = os.path.abspath(args.out)
    work = os.path.abspath(args.work)
    os.makedirs(out_dir, exist_ok=True)
    import shutil

    shutil.rmtree(work, ignore_errors=True)  # this pass's models and logs only
    os.makedirs(os.path.join(work, "logs"), exist_ok=True)
    start = time.time()
    info = environment(out_dir, dry)
    print("environment: %s" % json.dumps(info), flush=True)
    if "tf" not in info:
        print("TensorFlow cannot be imported by %s: nothing to measure (see env.txt)" % sys.executable, flush=True)
        write_table(out_dir, info, [], dry, note="TensorFlow is not importable here: " + info.get("tf_probe_error", ""))
        return 3
    if not dry and not info.get("gpus"):
        print("TensorFlow sees no GPU: nothing to measure (see env.txt)", flush=True)
        write_table(out_dir, info, [], dry, note="TensorFlow sees no GPU")
        return 3
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="1", TF_FORCE_GPU_ALLOW_GROWTH="true")
    device = "cpu" if dry else "gpu"
    models_dir = os.path.join(work, "models")
    results: List[Dict[str, Any]] = []
    plan = ours_runs(dry)
    plan = plan[:5] + raw_runs(dry) + plan[5:]  # raw TF early: the ratios need it
    for i, run in enumerate(plan):
        used = time.time() - start
        tag = "%02d-%s-%s" % (i, re.sub(r"[^a-z0-9]+", "-", run["name"].lower()).strip("-"), run["dtype"])
        if used + 20 > args.budget:
            for r in ([run] if run["kind"] == "ours" else []):
                results.append(dict(r, skipped="over the time budget (%.0f s used)" % used))
            if run["kind"] == "raw":
                results += [{"kind": "raw", "model": m, "dtype": run["dtype"], "skipped": "over the time budget"}
                            for m in run["models"].split(",")]
            continue
        timeout = min(args.run_timeout * (2 if run["kind"] == "raw" else 1), args.budget - used)
        log_path = os.path.join(work, "logs", tag + ".log")
        if run["kind"] == "ours":
            cmd = [sys.executable, "rnn.py", os.path.join(HERE, "bench.config"), "++device", device,
                   "++bench_out", models_dir + "/" + tag] + run["args"]
            res = dict(run, **run_process(cmd, log_path, timeout, env))
            with open(log_path, errors="replace") as f:
                text = f.read()
            res.update(parse_log(text))
            if res["rc"] == "timeout":
                res["error"] = "stopped after %.0f s (run limit or budget)" % res["wall_s"]
            elif res["rc"] != 0:
                res["error"] = last_error_line(text) or "rc %s, see logs/%s.log" % (res["rc"], tag)
            results.append(res)
        else:
            json_path = os.path.join(work, "logs", tag + ".json")
            cmd = [sys.executable, os.path.join(HERE, "raw_tf.py"), "--models", run["models"], "--dtype",
                   run["dtype"], "--device", device, "--json", json_path]
            if dry:
                cmd += ["--tiny", "--steps", "3", "--warmup", "1"]
            proc = run_process(cmd, log_path, timeout, env)
            if os.path.exists(json_path):
                with open(json_path) as f:
                    for r in json.load(f):
                        results.append(dict(r, kind="raw", wall_s=proc["wall_s"]))
            else:
                results.append({"kind": "raw", "model": run["models"], "dtype": run["dtype"],
                                "error": "rc %s, see logs/%s.log" % (proc["rc"], tag)})
        print("%s: %s" % (tag, json.dumps({k: v for k, v in results[-1].items() if k != "args"})), flush=True)
    text = write_table(out_dir, info, results, dry)
    import tarfile

    with tarfile.open(os.path.join(out_dir, "logs.tar.gz"), "w:gz") as tar:
        tar.add(os.path.join(work, "logs"), arcname="logs")
    print(text)
    print("total %.0f s; results in %s" % (time.time() - start, out_dir), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

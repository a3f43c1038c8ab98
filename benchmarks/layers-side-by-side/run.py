#!/usr/bin/env python3
"""Side by side: each layer case run by the reference and by this project on the same inputs and parameters.

Usage::

    python3 benchmarks/layers-side-by-side/run.py [--ref-python PY] [--ours-python PY] [--only SUBSTR ...]
        [--cases cases/FILE.py ...] [--write-readme]

A case file (``cases/<family>.py``) defines ``CASES``, a list of dicts: ``name``, ``extern_data``, ``network``,
and optionally ``output`` (layer name, default ``"output"``), ``batch``, ``max_len``, ``seed``,
``behavior_version``, ``train`` / ``search`` (build with the train / search flag; default off). For each case,
``case_runner.py`` runs under the reference's Python first (its variables keep their initial values and are written
out), then under ours with those values loaded by name (so the parameter names must agree). Reported per case:
the max abs difference of the output (padded frames zeroed)
and of the gradients (parameters and float inputs). Targets: ≤ 1e-5 forward, ≤ 1e-4 gradients.

By default all selected cases of one side run in one process (``case_runner.py --batch``: TensorFlow is imported
once; the import is most of a single case's time). A case whose result is missing after the batch (the process
crashed or ran past ``--batch-timeout``), and a case that fails in the batch, is run again in a process of its own
(its verdict is that run's), so a case is never judged by state another case left behind. ``--single`` runs every
case in a process of its own.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile
import time
from typing import List, Optional

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
README_BEGIN = "<!-- results: begin (written by run.py --write-readme) -->"
README_END = "<!-- results: end -->"
FWD_TOL, GRAD_TOL = 1e-5, 1e-4


def case_names(cases_file: str) -> List[str]:
    import importlib.util

    spec = importlib.util.spec_from_file_location("layer_cases", cases_file)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return [c["name"] for c in mod.CASES]


def _env() -> dict:
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    env.pop("PYTHONPATH", None)
    return env


def _load(out: str) -> dict:
    with np.load(out) as f:
        return {k: f[k] for k in f.files}


def run_side(python: str, cases_file: str, name: str, out: str, params: Optional[str] = None) -> dict:
    """one case in a process of its own"""
    if os.path.exists(out):
        os.remove(out)
    cmd = [python, os.path.join(HERE, "case_runner.py"), cases_file, name, out]
    if params:
        cmd += ["--params", params]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=_env(), cwd="/")
    if not os.path.exists(out):
        return {"status": "error", "error": f"runner crashed (rc {proc.returncode}): {proc.stderr[-1500:]}"}
    return _load(out)


def run_side_batch(python: str, jobs: List[tuple], tmp: str, tag: str, timeout: float) -> List[dict]:
    """``jobs``: (cases_file, name, out, params); all in one process, then the missing or failed ones singly"""
    for job in jobs:
        if os.path.exists(job[2]):
            os.remove(job[2])
    jobs_file = os.path.join(tmp, f"jobs-{tag}.json")
    with open(jobs_file, "w") as f:
        json.dump([list(j) for j in jobs], f)
    cmd = [python, os.path.join(HERE, "case_runner.py"), "--batch", jobs_file]
    try:
        subprocess.run(cmd, capture_output=True, text=True, env=_env(), cwd="/", timeout=timeout)
    except subprocess.TimeoutExpired:
        print(f"{tag}: the batch ran past {timeout:g} s; the cases without a result run singly", flush=True)
    results = []
    for cases_file, name, out, params in jobs:
        res = _load(out) if os.path.exists(out) else None
        if res is None or str(res.get("status")) != "ok":
            res = run_side(python, cases_file, name, out, params)
        results.append(res)
    return results


def compare(ref: dict, ours: dict) -> dict:
    if str(ref["status"]) != "ok":
        return {"verdict": "reference fails", "detail": str(ref["error"]).splitlines()[0][:200]}
    if str(ours["status"]) != "ok":
        return {"verdict": "fails here", "detail": str(ours["error"]).splitlines()[0][:200]}
    if ref["output"].shape != ours["output"].shape:
        return {"verdict": "output shape differs", "detail": f"{ref['output'].shape} vs {ours['output'].shape}"}
    fwd = float(np.max(np.abs(ref["output"] - ours["output"]))) if ref["output"].size else 0.0
    grad_keys = sorted(k for k in ref if k.startswith("grad_"))
    missing = [k for k in grad_keys if k not in ours]
    grad = 0.0
    for k in grad_keys:
        if k in ours and ref[k].size:
            if ref[k].shape != ours[k].shape:
                return {"verdict": "gradient shape differs", "detail": f"{k}: {ref[k].shape} vs {ours[k].shape}"}
            grad = max(grad, float(np.max(np.abs(ref[k] - ours[k]))))
    ok = fwd <= FWD_TOL and grad <= GRAD_TOL and not missing
    detail = f"missing gradients: {missing}" if missing else ""
    return {"verdict": "equal" if ok else "differs", "fwd": fwd, "grad": grad, "n_grads": len(grad_keys),
            "detail": detail}


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ref-python", default="/work/venv-ref/bin/python")
    ap.add_argument("--ours-python", default=sys.executable)
    ap.add_argument("--cases", nargs="*", default=None, help="case files (default: cases/*.py)")
    ap.add_argument("--only", nargs="*", default=[], help="substrings of case names")
    ap.add_argument("--write-readme", action="store_true")
    ap.add_argument("--single", action="store_true", help="every case in a process of its own (slower)")
    ap.add_argument("--batch-timeout", type=float, default=3600.0, help="seconds for one side's batch process")
    args = ap.parse_args(argv)
    files = args.cases or sorted(glob.glob(os.path.join(HERE, "cases", "*.py")))
    selected = []  # (family, cases_file, name)
    for cases_file in files:
        family = os.path.splitext(os.path.basename(cases_file))[0]
        for name in case_names(cases_file):
            if not args.only or any(s in name for s in args.only):
                selected.append((family, os.path.abspath(cases_file), name))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        outs = [(os.path.join(tmp, f"ref-{i}.npz"), os.path.join(tmp, f"ours-{i}.npz")) for i in range(len(selected))]
        if args.single:
            for (family, cases_file, name), (ref_out, ours_out) in zip(selected, outs):
                ref = run_side(args.ref_python, cases_file, name, ref_out)
                ours = (run_side(args.ours_python, cases_file, name, ours_out, ref_out)
                        if str(ref.get("status")) == "ok" else {"status": "skipped"})
                rows.append((family, name, compare(ref, ours)))
                print(f"{family}/{name}: {format_result(rows[-1][2])}", flush=True)
        else:
            refs = run_side_batch(args.ref_python, [(c, n, o[0], None) for (_, c, n), o in zip(selected, outs)],
                                  tmp, "reference", args.batch_timeout)
            ok = [i for i, r in enumerate(refs) if str(r.get("status")) == "ok"]
            ours_list = run_side_batch(args.ours_python, [(selected[i][1], selected[i][2], outs[i][1], outs[i][0])
                                                          for i in ok], tmp, "ours", args.batch_timeout)
            ours_by_index = dict(zip(ok, ours_list))
            for i, (family, _, name) in enumerate(selected):
                rows.append((family, name, compare(refs[i], ours_by_index.get(i, {"status": "skipped"}))))
                print(f"{family}/{name}: {format_result(rows[-1][2])}", flush=True)
    report = make_report(rows)
    print(report)
    if args.write_readme:
        path = os.path.join(HERE, "README.md")
        text = open(path).read()
        begin, end = text.index(README_BEGIN) + len(README_BEGIN), text.index(README_END)
        stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        text = text[:begin] + f"\n\nRun of {stamp}:\n\n" + report + "\n\n" + text[end:]
        with open(path, "w") as f:
            f.write(text)
    return 0 if all(r[2]["verdict"] == "equal" for r in rows) else 1


def format_result(res: dict) -> str:
    if "fwd" in res:
        return f"{res['verdict']} (fwd {res['fwd']:.2e}, grad {res['grad']:.2e} over {res['n_grads']}) {res['detail']}"
    return f"{res['verdict']}: {res['detail']}"


def make_report(rows) -> str:
    n_equal = sum(1 for r in rows if r[2]["verdict"] == "equal")
    lines = [f"{n_equal} of {len(rows)} cases equal (forward ≤ {FWD_TOL:g}, gradients ≤ {GRAD_TOL:g}).", "",
             "| family | case | verdict | max abs diff forward | max abs diff gradients |", "|---|---|---|---|---|"]
    for family, name, res in rows:
        fwd = f"{res['fwd']:.1e}" if "fwd" in res else ""
        grad = f"{res['grad']:.1e} ({res['n_grads']})" if "grad" in res else ""
        verdict = res["verdict"] + (f": {res['detail']}" if res.get("detail") else "")
        lines.append(f"| {family} | `{name}` | {verdict.replace('|', '/')} | {fwd} | {grad} |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())

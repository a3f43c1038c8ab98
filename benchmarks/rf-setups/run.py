#!/usr/bin/env python3
"""Runs RETURNN-frontend model definitions of the published i6_experiments setups with ours and with the reference,
both on their TF backend (``rf.select_backend_tf()``, graph mode), and compares them.

Per model (see ``models.py``), each side runs ``_side.py`` in its own interpreter: the reference first (its
parameters are saved), then ours on the reference's parameter values. Compared: the parameter names and shapes, the
train step's losses and the gradient of its total loss per parameter (train flag off: no dropout, no SpecAugment),
the forward outputs (graph mode), and the setup's recog def (TF eager mode: beam search decided in Python):
hypotheses, lengths and scores. The setup files are exported from the git mirror into a scratch folder under /tmp at
run time (never into this project); what they import only for sisyphus job construction is stubbed
(``_importer.py``).

Report per model: identical / differs (where, how much) / cannot run (which side, which phase, the error).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from typing import Any, Dict, List, Optional

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import models  # noqa: E402

DEFAULT_MIRROR = "/work/.mirror/rwth-i6+i6_experiments/repo"
RTOL = 1e-4  # relative to the largest magnitude of the compared array (float32, other op orders)
ATOL = 1e-5


def _side(python: str, env_path: Optional[str], model: str, out: str, args, *, phase: str,
          params: Optional[str]) -> Dict[str, Any]:
    cmd = [python, os.path.join(HERE, "_side.py"), "--model", model, "--mirror", args.mirror, "--scratch",
           args.scratch, "--out", out, "--phase", phase]
    if args.no_train_flag:
        cmd.append("--no-train-flag")
    if params:
        cmd += ["--params", params]
    env = dict(os.environ)
    env["TF_CPP_MIN_LOG_LEVEL"] = "3"
    if env_path:
        env["PYTHONPATH"] = env_path
    else:
        env.pop("PYTHONPATH", None)
    t0 = time.time()
    try:
        proc = subprocess.run(cmd, env=env, cwd="/tmp", capture_output=True, text=True, timeout=args.timeout)
        log = proc.stdout + proc.stderr
    except subprocess.TimeoutExpired:
        return {"phases": {phase: {"ok": False, "error": f"timeout after {args.timeout} s"}}}
    path = os.path.join(out, "result.json")
    if not os.path.exists(path):
        lines = [line for line in log.strip().splitlines() if line.strip()]
        return {"phases": {phase: {"ok": False, "error": "no result: " + (lines[-1] if lines else f"rc {proc.returncode}"),
                                   "log": log[-3000:]}}}
    with open(path) as f:
        res = json.load(f)
    res["wall"] = time.time() - t0
    return res


def _cmp_arrays(a: np.ndarray, b: np.ndarray) -> Optional[Dict[str, Any]]:
    """:return: None if equal within tolerance, else what differs"""
    if a.shape != b.shape:
        return {"shape": [list(a.shape), list(b.shape)]}
    if a.dtype.kind in "iub" or b.dtype.kind in "iub":
        n = int((a != b).sum())
        return {"elements": n, "of": int(a.size)} if n else None
    fin_a, fin_b = np.isfinite(a), np.isfinite(b)
    if not (fin_a == fin_b).all() or not np.array_equal(a[~fin_a], b[~fin_b]):
        return {"non_finite": [int((~fin_a).sum()), int((~fin_b).sum())]}
    if not a.size:
        return None
    diff = np.abs(a.astype(np.float64) - b.astype(np.float64))
    diff[~fin_a] = 0.0
    scale = float(np.abs(np.where(fin_a, a, 0)).max())
    tol = ATOL + RTOL * scale
    if float(diff.max()) <= tol:
        return None
    return {"max_abs_diff": float(diff.max()), "scale": scale, "elements": int((diff > tol).sum()),
            "of": int(a.size)}


def _train_on_prefix(key: str) -> bool:
    """:return: whether an array key belongs to the train-flag phase (its gradients, the parameters after a step)"""
    return key.startswith("tgrad:") or key.startswith("step")


def _unchanged_stats(key: str, ref: Dict[str, Any], ref_arr: Dict[str, np.ndarray]) -> bool:
    """:return: whether ``key`` (``step<i>:param:<name>``) is a parameter without gradient (running statistics) that
    the reference left at its initial value: its graph mode creates the update op of ``BatchNorm`` (``use_mask=True``)
    but nothing the fetched loss depends on runs it, so its statistics never change there; ours updates them."""
    name = key.split(":", 2)[2]
    no_grad = ref.get("phases", {}).get("train_on", {}).get("no_grad") or []
    return name in no_grad and np.array_equal(ref_arr[key], ref_arr.get(f"param:{name}"))


def compare(ref: Dict[str, Any], ours: Dict[str, Any], ref_arr: Dict[str, np.ndarray],
            ours_arr: Dict[str, np.ndarray]) -> Dict[str, Any]:
    """:return: of one model: ``verdict`` (identical/differs/cannot run) of the phases build, train (flag off),
    forward and recog; ``train_on``, the same for the train-flag phase and its SGD steps (or "not deterministic");
    ``details``/``cannot``/``notes`` (known differences that do not count)"""
    details: List[str] = []
    cannot: List[str] = []
    on_details: List[str] = []
    on_cannot: List[str] = []
    notes: List[str] = []
    for side, res in (("reference", ref), ("ours", ours)):
        for name, ph in res.get("phases", {}).items():
            if not ph.get("ok"):
                (on_cannot if name == "train_on" else cannot).append(
                    f"{side} {name}: {ph.get('error', '?').splitlines()[0][:300]}")
    if ref.get("params") is not None and ours.get("params") is not None:
        rp, op = ref["params"], ours["params"]
        for k in sorted(set(rp) | set(op)):
            if rp.get(k) != op.get(k):
                details.append(f"param {k}: reference {rp.get(k)}, ours {op.get(k)}")
    rph, oph = ref.get("phases", {}).get("train_on", {}), ours.get("phases", {}).get("train_on", {})
    compare_on = bool(rph.get("ok") and oph.get("ok"))
    deterministic = bool(rph.get("deterministic") and oph.get("deterministic"))
    if compare_on and not deterministic:
        on_details.append(f"not deterministic (reference {rph.get('deterministic')}, ours {oph.get('deterministic')})")
    compare_on = compare_on and deterministic
    if compare_on and rph.get("random_calls") != oph.get("random_calls"):
        on_details.append(f"calls of dropout/specaugment: reference {rph.get('random_calls')}, "
                          f"ours {oph.get('random_calls')}")
    for phase_name, out in (("train", details), ("train_on", on_details)):
        rl = ref.get("phases", {}).get(phase_name, {}).get("losses")
        ol = ours.get("phases", {}).get(phase_name, {}).get("losses")
        if rl and ol and (phase_name == "train" or compare_on):
            for k in sorted(set(rl) | set(ol)):
                a, b = rl.get(k), ol.get(k)
                if a is None or b is None or not np.isclose(a, b, rtol=RTOL, atol=ATOL, equal_nan=True):
                    out.append(f"{phase_name} loss {k}: reference {a}, ours {b}")
    rl = ref.get("phases", {}).get("train", {}).get("losses")
    ol = ours.get("phases", {}).get("train", {}).get("losses")
    for k in sorted(set(ref_arr) | set(ours_arr)):
        if k.startswith("param:"):
            continue
        on = _train_on_prefix(k)
        if on and not compare_on:
            continue
        out = on_details if on else details
        if k not in ref_arr or k not in ours_arr:
            if on or k.split(":")[0] in ("grad", "out") and rl and ol or k.startswith("recog:"):
                out.append(f"{k}: only {'reference' if k in ref_arr else 'ours'} has it")
            continue
        d = _cmp_arrays(ref_arr[k], ours_arr[k])
        if d and on and k.startswith("step") and _unchanged_stats(k, ref, ref_arr):
            notes.append(f"{k}: the reference leaves these statistics unchanged (graph mode), ours updates them")
        elif d:
            out.append(f"{k}: {d}")

    def verdict(cannot_, details_):
        return "cannot run" if cannot_ else "differs" if details_ else "identical"

    on_verdict = None
    if rph or oph:
        on_verdict = "not deterministic" if (rph.get("ok") and oph.get("ok") and not deterministic) else verdict(
            on_cannot, on_details)
    return {"verdict": verdict(cannot, details), "cannot": cannot, "details": details, "train_on": on_verdict,
            "train_on_cannot": on_cannot, "train_on_details": on_details, "notes": notes}


def _load(path: str) -> Dict[str, np.ndarray]:
    return dict(np.load(path)) if os.path.exists(path) else {}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", nargs="*", help=f"model names (default all: {[m.name for m in models.MODELS]})")
    parser.add_argument("--mirror", default=DEFAULT_MIRROR, help="git dir of the i6_experiments mirror")
    parser.add_argument("--ours", default=sys.executable, help="ours' Python (runs with PYTHONPATH=this repo)")
    parser.add_argument("--ref-python", default="/tmp/refvenv/bin/python", help="the reference's Python")
    parser.add_argument("--scratch", default=None, help="scratch folder (default: a new one under /tmp)")
    parser.add_argument("--out", default=None, help="write the report as JSON here")
    parser.add_argument("--timeout", type=int, default=900, help="seconds per side and phase")
    parser.add_argument("--no-recog", action="store_true", help="skip the recog defs (eager beam search)")
    parser.add_argument("--no-train-flag", action="store_true",
                        help="skip the train-flag phase (train def with the train flag on, then SGD steps)")
    args = parser.parse_args()
    if not os.path.isdir(args.mirror):
        parser.error(f"no git mirror at {args.mirror} (fetch github:rwth-i6/i6_experiments)")
    args.scratch = args.scratch or tempfile.mkdtemp(prefix="rf-setups-")
    specs = [models.get(n) for n in args.only] if args.only else models.MODELS
    report = {}
    t_start = time.time()
    for spec in specs:
        base = os.path.join(args.scratch, "out", spec.name)
        t0 = time.time()
        ref = _side(args.ref_python, None, spec.name, f"{base}/ref", args, phase="graph", params=None)
        ref_npz = f"{base}/ref/arrays.npz"
        have_params = bool(ref.get("params"))
        ours = _side(args.ours, REPO, spec.name, f"{base}/ours", args, phase="graph",
                     params=ref_npz if have_params else None)
        ref_arr, ours_arr = _load(ref_npz), _load(f"{base}/ours/arrays.npz")
        if spec.recog_def and not args.no_recog and have_params:
            for side, python, path, res, arr in (("ref", args.ref_python, None, ref, ref_arr),
                                                 ("ours", args.ours, REPO, ours, ours_arr)):
                r = _side(python, path, spec.name, f"{base}/{side}-recog", args, phase="recog", params=ref_npz)
                res.setdefault("phases", {}).update(r.get("phases", {}))
                arr.update(_load(f"{base}/{side}-recog/arrays.npz"))
        cmp = compare(ref, ours, ref_arr, ours_arr)
        cmp["seconds"] = round(time.time() - t0, 1)
        cmp["losses_reference"] = ref.get("phases", {}).get("train", {}).get("losses")
        cmp["losses_ours"] = ours.get("phases", {}).get("train", {}).get("losses")
        for side, res in (("reference", ref), ("ours", ours)):
            on = res.get("phases", {}).get("train_on", {})
            cmp[f"train_on_{side}"] = {k: on.get(k) for k in ("deterministic", "random_calls", "losses")}
        cmp["stubbed_helpers"] = sorted(set(ref.get("stubbed_helpers", {})) | set(ours.get("stubbed_helpers", {})))
        cmp["num_params"] = len(ref.get("params") or {})
        report[spec.name] = cmp
        print(f"{spec.name}: {cmp['verdict']}; train flag: {cmp['train_on']} ({cmp['seconds']} s)", flush=True)
        for line in cmp["cannot"] + cmp["details"][:20]:
            print("   ", line, flush=True)
        for line in cmp["train_on_cannot"] + cmp["train_on_details"][:20]:
            print("    train flag:", line, flush=True)
        if cmp["notes"]:
            print(f"    notes: {len(cmp['notes'])}, e.g. {cmp['notes'][0]}", flush=True)
    counts: Dict[str, int] = {}
    counts_on: Dict[str, int] = {}
    for r in report.values():
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
        if r["train_on"]:
            counts_on[r["train_on"]] = counts_on.get(r["train_on"], 0) + 1
    print("counts:", json.dumps(counts), "train flag:", json.dumps(counts_on),
          f"total {round(time.time() - t_start)} s")
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"counts": counts, "counts_train_flag": counts_on, "models": report}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

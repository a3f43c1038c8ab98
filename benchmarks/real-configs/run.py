#!/usr/bin/env python3
"""Real-config conformance: build the networks of published configs with the reference and with this project.

Usage::

    python3 benchmarks/real-configs/run.py --mirror /work/.mirror/rwth-i6+returnn-experiments/repo \\
        --ref-python /work/venv-ref/bin/python [--jobs 2] [--only SUBSTRING ...] [--write-readme]

``--mirror`` is a git directory of ``rwth-i6/returnn-experiments`` (the ``fetch`` tool gives one). Its files are
extracted into ``--workdir`` (default ``benchmarks/real-configs/.work/``, ignored by git; nothing of that
repository is ever committed: it has no licence). Every ``*.config`` outside the Theano-era ``2016-*`` folders is
built by ``build_network.py`` under both implementations (same stand-ins on both sides); the reference's results
are cached per reference version in the work dir, ours are rebuilt every run.

A config counts when the reference builds its network. For those, this project either builds it with identical
trainable variable names and shapes ("same"), builds it with other variables ("different variables"), or fails
(grouped by cause). ``--write-readme`` replaces the results section of this folder's README.md.

A second list: the configs that the current reference rejects only because they use an API it dropped
(:data:`DROPPED_API_ERRORS`: the reference's error for each old form, and :data:`DROPPED_API_STAND_INS`: forms that
``build_network.py`` gives the reference a stand-in for, which this project accepts itself). This project builds
them with the old meaning and a warning (``returnn.util.dropped_api``); the report counts how many build here.
"""

from __future__ import annotations

import argparse
import collections
import importlib.util
import json
import os
import re
import subprocess
import sys
import threading
import time
from typing import Dict, List, Optional, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DEFAULT_MIRROR = "/work/.mirror/rwth-i6+returnn-experiments/repo"
README_BEGIN = "<!-- results: begin (written by run.py --write-readme) -->"
README_END = "<!-- results: end -->"


#: (regex on the first line of the reference's error, the old form): the reference rejects the config only because
#: the form was removed (observed: an older release of the reference accepts it; see README.md).
DROPPED_API_ERRORS: List[Tuple[str, str]] = [
    (r"'RecStepInfoLayer' object has no attribute 'get_end_flag'",
     "`RecStepInfoLayer.get_end_flag(target_search_choices)` (release 1.20201223 has it, 1.20211229 not)"),
]

#: Old forms the reference gets a stand-in for in ``build_network.py`` (it rejects them itself) and this project
#: accepts natively: key of ``returnn.util.dropped_api.DROPPED_APIS`` (reported by our side) -> the old form.
DROPPED_API_STAND_INS: Dict[str, str] = {
    "dim_without_dimension": "`DimensionTag(kind=..., description=...)` without `dimension` (the reference builds"
                             " these only with the stand-in of build_network.py)",
}

#: ``--values``: generated data a config needs beyond the runner's defaults, per config (a path suffix): the
#: worker's ``--key-lens`` (per extern-data key its sequence length; see ``../real-configs-speed/run.py``).
VALUES_KEY_LENS: Dict[str, List[str]] = {
    # the speaker embedding squeezes the label's time axis: one speaker label per sequence
    "2021-tts-asr-librispeech100h/tacotron2-tts/tts-phonemes-lookup.config": ["speaker_label=1"],
    # the alignment is on the encoder's frames, downsampled by 3 * 2 (`time_reduction`)
    "2021-transducer-thesis-merboldt/switchboard/compare.ctc-vit.config": ["alignment=/6"],
}


def values_key_lens(config: str) -> List[str]:
    """The ``--key-lens`` of ``config`` (:data:`VALUES_KEY_LENS`), or none."""
    return next((lens for suffix, lens in VALUES_KEY_LENS.items() if config.endswith(suffix)), [])


def dropped_api_cause(ref: Optional[dict], ours: Optional[dict]) -> Optional[str]:
    """The old form for which the reference rejects a config (None: not a dropped-API case)."""
    if ref is None:
        return None
    if ref["status"] != "ok":
        first = (ref.get("message") or "").splitlines()[0] if ref.get("message") else ""
        for pattern, cause in DROPPED_API_ERRORS:
            if re.search(pattern, first):
                return cause
        return None
    for key in (ours or {}).get("dropped_apis", []):
        if key in DROPPED_API_STAND_INS:
            return DROPPED_API_STAND_INS[key]
    return None


def extract_mirror(mirror: str, workdir: str) -> str:
    """Extracts the mirror's HEAD tree into ``workdir/tree`` once per commit; returns the tree path."""
    commit = subprocess.check_output(["git", "--git-dir", mirror, "rev-parse", "HEAD"], text=True).strip()
    tree = os.path.join(workdir, "tree")
    stamp = os.path.join(workdir, "tree.commit")
    if os.path.exists(stamp) and open(stamp).read().strip() == commit:
        return tree
    if os.path.exists(tree):
        subprocess.check_call(["rm", "-rf", tree])
    os.makedirs(tree)
    archive = subprocess.Popen(["git", "--git-dir", mirror, "archive", "HEAD"], stdout=subprocess.PIPE)
    subprocess.check_call(["tar", "-x", "-C", tree], stdin=archive.stdout)
    if archive.wait() != 0:
        raise SystemExit(f"git archive failed in {mirror}")
    with open(stamp, "w") as f:
        f.write(commit + "\n")
    return tree


def list_configs(tree: str) -> List[str]:
    out = []
    for dirpath, _dirnames, filenames in os.walk(tree):
        rel_dir = os.path.relpath(dirpath, tree)
        if rel_dir.split(os.sep)[0].startswith("2016-"):
            continue
        for fn in filenames:
            if fn.endswith(".config"):
                out.append(os.path.normpath(os.path.join(rel_dir, fn)))
    return sorted(out)


def python_version_key(python: str) -> str:
    code = "import returnn; print(getattr(returnn, '__version__', 'unknown'))"
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    env.pop("PYTHONPATH", None)  # as the workers: a PYTHONPATH to this checkout would make the reference's key ours
    out = subprocess.run([python, "-c", code], capture_output=True, text=True, cwd="/", env=env)
    return out.stdout.strip().splitlines()[-1] if out.stdout.strip() else "unknown"


class Workers:
    """``jobs`` long-lived ``build_network.py --serve`` processes of one Python; builds a list of configs."""

    def __init__(self, python: str, jobs: int, env: Dict[str, str]):
        self.procs = [subprocess.Popen([python, os.path.join(HERE, "build_network.py"), "--serve"],
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env, cwd="/")
                      for _ in range(jobs)]

    def run(self, requests: List[dict], label: str) -> None:
        queue = list(requests)
        lock = threading.Lock()
        done = [0]

        def loop(proc):
            while True:
                with lock:
                    if not queue:
                        return
                    req = queue.pop(0)
                proc.stdin.write(json.dumps(req) + "\n")
                proc.stdin.flush()
                line = proc.stdout.readline()
                if not line:
                    raise RuntimeError(f"{label} worker died")
                with lock:
                    done[0] += 1
                    print(f"[{label} {done[0]}/{len(requests)}] {req['name']}: {summarize(load(req['out']))}",
                          flush=True)

        threads = [threading.Thread(target=loop, args=(p,)) for p in self.procs]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    def close(self) -> None:
        for p in self.procs:
            p.stdin.close()
            p.wait()


def load(path: str) -> Optional[dict]:
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def summarize(result: Optional[dict]) -> str:
    if result is None:
        return "missing"
    if result["status"] == "ok":
        return f"ok, {len(result['params'])} params, {result.get('seconds', 0):.1f}s"
    first = result["message"].splitlines()[0] if result.get("message") else ""
    return f"{result['stage']} error: {first[:160]}"


def cause_of(result: dict) -> str:
    """A short key that groups failures with the same cause (numbers and quoted names removed)."""
    msg = result.get("message", "")
    first = msg.splitlines()[0] if msg else ""
    first = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", first)
    first = re.sub(r"\d+", "N", first)
    return f"{result.get('stage')}: {first[:140]}"


def compare(ref: dict, ours: Optional[dict]) -> str:
    if ours is None:
        return "missing"
    if ours["status"] != "ok":
        return "error"
    return "same" if ours["params"] == ref["params"] else "different variables"


def param_diff(ref: dict, ours: dict, limit: int = 4) -> str:
    r, o = ref["params"], ours["params"]
    only_r = sorted(set(r) - set(o))
    only_o = sorted(set(o) - set(r))
    shape = sorted(k for k in set(r) & set(o) if r[k] != o[k])
    parts = []
    if only_r:
        parts.append("only in reference: " + ", ".join(only_r[:limit]) + (" ..." if len(only_r) > limit else ""))
    if only_o:
        parts.append("only here: " + ", ".join(only_o[:limit]) + (" ..." if len(only_o) > limit else ""))
    if shape:
        parts.append("shape: " + ", ".join(f"{k} {r[k]} vs {o[k]}" for k in shape[:limit]))
    return "; ".join(parts)


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mirror", default=DEFAULT_MIRROR, help="git dir of rwth-i6/returnn-experiments")
    ap.add_argument("--ref-python", default="/tmp/refvenv/bin/python", help="Python of the reference's venv")
    ap.add_argument("--ours-python", default=sys.executable, help="Python with this project installed")
    ap.add_argument("--workdir", default=os.path.join(HERE, ".work"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=300, help="seconds per config and side")
    ap.add_argument("--only", nargs="*", default=[], help="substrings of config paths to build")
    ap.add_argument("--rerun-ref", action="store_true", help="ignore the cached reference results")
    ap.add_argument("--skip-ours", action="store_true")
    ap.add_argument("--tag", default="ours", help="results folder name of this project's side (one per checkout)")
    ap.add_argument("--write-readme", action="store_true")
    ap.add_argument("--values", action="store_true",
                    help="compare values instead of variables: per config the reference's evaluation network (train"
                         " flag False: no dropout, no SpecAugment) stores its initial params, a seeded batch and its"
                         " outputs (cached in WORKDIR/values/ref-<version>/); ours loads the same params by name,"
                         " feeds the same batch; compared: the objective, total loss, constraints, every loss and"
                         " every top-level layer output of both sides (1e-4 of the output's scale); writes"
                         " WORKDIR/values/<tag>/<config>/result.json and a summary")
    ap.add_argument("--grads", action="store_true", help="with --values: also the objective's gradient per param"
                                                         " (norm and sum, 1e-3 of the norm)")
    ap.add_argument("--newest-first", action="store_true",
                    help="with --values: the configs in reverse path order (the newest folders first)")
    ap.add_argument("--values-summary", action="store_true",
                    help="with --values: run nothing, summarize the stored results (WORKDIR/values/<tag>/) of the"
                         " selected configs")
    ap.add_argument("--keep-values", action="store_true",
                    help="with --values: keep ours' arrays of identical configs too (default: only of differing)")
    args = ap.parse_args(argv)

    os.makedirs(args.workdir, exist_ok=True)
    tree = extract_mirror(args.mirror, args.workdir)
    configs = list_configs(tree)
    if args.only:
        configs = [c for c in configs if any(s in c for s in args.only)]
    ref_key = "ref-" + python_version_key(args.ref_python)
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", CUDA_VISIBLE_DEVICES="", PYTHONDONTWRITEBYTECODE="1")
    env.pop("PYTHONPATH", None)

    def out_path(side: str, cfg: str) -> str:
        path = os.path.join(args.workdir, "results", side, cfg + ".json")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        return path

    def requests_for(side: str, todo: List[str]) -> List[dict]:
        return [{"name": c, "config": os.path.join(tree, c), "out": out_path(side, c), "timeout": args.timeout}
                for c in todo]

    ref_todo = [c for c in configs if args.rerun_ref or load(out_path(ref_key, c)) is None]
    t0 = time.time()
    if ref_todo:
        for c in ref_todo:
            if os.path.exists(out_path(ref_key, c)):
                os.remove(out_path(ref_key, c))
        workers = Workers(args.ref_python, args.jobs, env)
        workers.run(requests_for(ref_key, ref_todo), "reference")
        workers.close()
    ref_results = {c: load(out_path(ref_key, c)) for c in configs}
    counted = [c for c in configs if ref_results[c] and ref_results[c]["status"] == "ok"]
    rejected = [c for c in configs if ref_results[c] and ref_results[c]["status"] != "ok"
                and dropped_api_cause(ref_results[c], None)]
    if args.values:
        return values_main(args, tree, ref_key, counted[::-1] if args.newest_first else counted, t0)
    if not args.skip_ours:
        for c in counted + rejected:
            if os.path.exists(out_path(args.tag, c)):
                os.remove(out_path(args.tag, c))
        workers = Workers(args.ours_python, args.jobs, env)
        workers.run(requests_for(args.tag, counted + rejected), args.tag)
        workers.close()
    ours_results = {c: load(out_path(args.tag, c)) for c in counted + rejected}
    report = make_report(configs, ref_results, ours_results, ref_key, time.time() - t0)
    print(report)
    if args.write_readme:
        write_readme(report)
    return 0


def make_report(configs: List[str], ref: Dict[str, dict], ours: Dict[str, dict], ref_key: str,
                seconds: float) -> str:
    counted = [c for c in configs if ref[c] and ref[c]["status"] == "ok"]
    outcome = {c: compare(ref[c], ours.get(c)) for c in counted}
    n_same = sum(1 for c in counted if outcome[c] == "same")
    lines = [f"Configs (outside `2016-*`): {len(configs)}; the reference ({ref_key}) builds {len(counted)}.",
             f"Built here with identical trainable variable names and shapes: **{n_same} of {len(counted)}"
             f" ({100.0 * n_same / max(1, len(counted)):.1f} %)**.", ""]
    by_cause: Dict[str, List[str]] = collections.defaultdict(list)
    for c in counted:
        if outcome[c] == "error":
            by_cause[cause_of(ours[c])].append(c)
        elif outcome[c] != "same":
            by_cause[outcome[c]].append(c)
    if by_cause:
        lines += ["| cause | configs | example |", "|---|---|---|"]
        for cause, cs in sorted(by_cause.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            example = cs[0]
            detail = ""
            if cause == "different variables" and ours.get(example):
                detail = " — " + param_diff(ref[example], ours[example])
            cause_md = cause.replace("|", "\\|")
            lines.append(f"| {cause_md} | {len(cs)} | `{example}`{detail.replace('|', '/')} |")
        lines.append("")
    ref_fail: Dict[str, int] = collections.Counter(cause_of(ref[c]) for c in configs
                                                   if ref[c] and ref[c]["status"] != "ok")
    lines += dropped_api_report(configs, ref, ours)
    lines.append(f"Not counted: {len(configs) - len(counted)} configs whose network the reference does not build"
                 " here (most: corpus files or RASR needed while the config runs, or a dataset to derive the data"
                 " shapes from). Most common reasons:")
    lines.append("")
    for cause, n in ref_fail.most_common(8):
        lines.append(f"- {n}× {cause}")
    lines.append("")
    lines.append(f"({seconds:.0f} s for this run.)")
    return "\n".join(lines)


def dropped_api_report(configs: List[str], ref: Dict[str, dict], ours: Dict[str, dict]) -> List[str]:
    """The section "rejected by the reference for a dropped API": per old form, the configs and how many build
    here (status ok; for those the reference builds with a stand-in also: with identical variables)."""
    by_cause: Dict[str, List[str]] = collections.defaultdict(list)
    for c in configs:
        cause = dropped_api_cause(ref[c], ours.get(c))
        if cause:
            by_cause[cause].append(c)
    if not by_cause:
        return []
    n_all = sum(len(cs) for cs in by_cause.values())
    built = {c for cs in by_cause.values() for c in cs if ours.get(c) and ours[c]["status"] == "ok"}
    lines = [f"Rejected by the reference for a dropped API (an old form, accepted here with its old meaning and a"
             f" warning): {n_all} configs; built here: **{len(built)} of {n_all}**.", "",
             "| old form | configs | built here | not built here (first cause) |", "|---|---|---|---|"]
    for cause, cs in sorted(by_cause.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        ok = [c for c in cs if c in built]
        same = [c for c in ok if ref[c]["status"] == "ok" and compare(ref[c], ours[c]) == "same"]
        ok_text = str(len(ok)) + (f" ({len(same)} with the reference's variables)" if ref[cs[0]]["status"] == "ok"
                                  else "")
        failed = [c for c in cs if c not in built]
        fail_text = ""
        if failed:
            first = ours.get(failed[0])
            fail_text = (cause_of(first) if first else "not built") + f" (e.g. `{failed[0]}`)"
        lines.append(f"| {cause.replace('|', '/')} | {len(cs)} | {ok_text} | {fail_text.replace('|', '/')} |")
    lines.append("")
    return lines


# ---------------------------------------------------------------------------------------------- --values


def _speed_runner():
    """The worker of ``../real-configs-speed/run.py`` (its ``--values`` machinery), loaded as a module."""
    path = os.path.join(ROOT, "benchmarks", "real-configs-speed", "run.py")
    spec = importlib.util.spec_from_file_location("real_configs_speed_run", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _worker_args(args, out_dir: str, target_lens: str, key_lens: List[str] = ()) -> argparse.Namespace:
    """The options of one ``real-configs-speed/run.py --worker CONFIG --values out_dir`` run."""
    return argparse.Namespace(key_lens=list(key_lens),
        steps=0, warmup=1, trace=0, trace_nodes=0, trace_dump="", input_lens="auto", target_lens=target_lens,
        batch="small", first_noop=False, epoch=1, grads=args.grads, stage="train", values=out_dir, set=[],
        set_ours=[], list_ops=None, session_opts=None, ours=args.ours_python, sides=["ours", "ref"],
        timeout=args.timeout)


def _run_side(speed, python: str, config: str, args, out_dir: str, target_lens: str) -> Optional[str]:
    """One side's ``--values`` worker. :return: None, or why it failed"""
    try:
        result = speed._run_one(python, config, _worker_args(args, out_dir, target_lens, values_key_lens(config)))
    except subprocess.TimeoutExpired:
        return f"timeout ({args.timeout} s)"
    if "error" in result:
        return result.get("message") or result["error"]
    return None


def _clear(path: str) -> None:
    if os.path.isdir(path):
        subprocess.check_call(["rm", "-rf", path])
    os.makedirs(path)


def reference_values(speed, args, config: str, ref_dir: str, targets: tuple = ("auto", "same")) -> dict:
    """The reference's side of ``--values`` for ``config``, cached in ``ref_dir`` (``status.json``; with ``ok``:
    ``params.npz``, ``feed.npz``, ``ref.npz``). Data shapes: ``auto`` (see the speed runner's ``--input-lens``),
    retried with frame-level targets when the reference fails with label targets (e.g. a hybrid)."""
    status_path = os.path.join(ref_dir, "status.json")
    cached = load(status_path)
    if cached and not args.rerun_ref and (cached.get("grads") or not args.grads) and cached["target_lens"] in targets \
            and cached.get("key_lens", []) == values_key_lens(config):
        return cached
    error = None
    for target_lens in targets:
        _clear(ref_dir)
        error = _run_side(speed, args.ref_python, config, args, ref_dir, target_lens)
        if error is None:
            break
    status = {"status": "ok" if error is None else "error", "message": error, "target_lens": target_lens,
              "grads": args.grads, "key_lens": values_key_lens(config)}
    with open(status_path, "w") as f:
        json.dump(status, f)
    return status


def values_of_config(speed, numpy, args, config: str, ref_dir: str, ours_dir: str) -> dict:
    """Both sides' values of ``config`` compared. :return: ``{"outcome": "identical" | "differs" | "ours fails" |
    "not comparable", "detail": text, ...}`` (also written to ``ours_dir/result.json``)"""
    ref = reference_values(speed, args, config, ref_dir)
    _clear(ours_dir)
    if ref["status"] != "ok":
        result = {"outcome": "not comparable", "detail": "the reference fails: " + (ref["message"] or "")}
    else:
        for name in ("params.npz", "feed.npz", "ref.npz"):
            os.symlink(os.path.join(ref_dir, name), os.path.join(ours_dir, name))
        error = _run_side(speed, args.ours_python, config, args, ours_dir, ref["target_lens"])
        if error is not None and ref["target_lens"] == "auto":  # e.g. a hybrid given label targets (the
            # reference computes its frame-wise loss on them without a check): both sides on frame-level targets
            ref = reference_values(speed, args, config, ref_dir, targets=("same",))
            _clear(ours_dir)
            if ref["status"] == "ok":
                for name in ("params.npz", "feed.npz", "ref.npz"):
                    os.symlink(os.path.join(ref_dir, name), os.path.join(ours_dir, name))
                error = _run_side(speed, args.ours_python, config, args, ours_dir, ref["target_lens"])
            else:
                error = "the reference fails with frame-level targets: " + (ref["message"] or "")
        if error is not None:
            result = {"outcome": "ours fails", "detail": error}
        else:
            result = compare_stored(speed, numpy, ours_dir)
            if result["outcome"] == "identical" and not args.keep_values:
                os.remove(os.path.join(ours_dir, "ours.npz"))
    with open(os.path.join(ours_dir, "result.json"), "w") as f:
        json.dump(result, f)
    return result


def compare_stored(speed, numpy, ours_dir: str) -> dict:
    """The comparison of the arrays stored in ``ours_dir`` (``ours.npz``, ``ref.npz``) as a result dict."""
    found = speed.value_differences(numpy, ours_dir)
    return {"outcome": "differs" if found["differences"] else "identical",
            "detail": "; ".join(text for _, text in found["differences"][:6]),
            "first": found["differences"][0][0] if found["differences"] else None,
            "objective": found["scalars"].get("objective", (None, None)), "layers": found["layers"],
            "losses": found["losses"], "grads": found["grads"]}


def values_main(args, tree: str, ref_key: str, configs: List[str], t0: float) -> int:
    """``--values``: each config the reference builds, compared by values; prints one line per config and the
    summary (identical / differing / ours fails / not comparable)."""
    import numpy

    os.environ["REAL_CONFIGS_TREE"] = tree  # the speed runner's workers read their configs there
    speed = _speed_runner()
    results = {}
    if args.values_summary:
        for config in configs:
            ours_dir = os.path.join(args.workdir, "values", args.tag, config)
            stored = load(os.path.join(ours_dir, "result.json"))
            if stored and os.path.exists(os.path.join(ours_dir, "ours.npz")):  # compared again (this runner's
                stored = compare_stored(speed, numpy, ours_dir)  # comparison may have changed since)
            if stored:
                results[config] = stored
        configs = []
    for i, config in enumerate(configs):
        t = time.time()
        results[config] = values_of_config(
            speed, numpy, args, config, os.path.join(args.workdir, "values", ref_key, config),
            os.path.join(args.workdir, "values", args.tag, config))
        r = results[config]
        objective = r.get("objective") or (None, None)
        objective_text = f" (objective {objective[0]:.6g})" if objective[0] is not None else ""
        print(f"[values {i + 1}/{len(configs)}] {config}: {r['outcome']}{objective_text}"
              f"{': ' + r['detail'][:300] if r['outcome'] != 'identical' else ''} ({time.time() - t:.0f} s)",
              flush=True)
    print(values_report(results, ref_key, time.time() - t0, args.grads))
    return 0


def values_report(results: Dict[str, dict], ref_key: str, seconds: float, grads: bool) -> str:
    """The summary of ``--values``: the counts, then each config that is not identical with its first difference or
    its error."""
    counts = collections.Counter(r["outcome"] for r in results.values())
    what = "objective, losses, layer outputs" + (", gradients" if grads else "")
    lines = [f"Values ({what}) of {len(results)} configs that the reference ({ref_key}) builds: "
             f"**{counts['identical']} identical**, {counts['differs']} differ, {counts['ours fails']} fail here, "
             f"{counts['not comparable']} not comparable (the reference fails on the generated data).", ""]
    rows = [(c, r) for c, r in results.items() if r["outcome"] != "identical"]
    if rows:
        lines += ["| config | outcome | first difference / error |", "|---|---|---|"]
        for config, r in sorted(rows, key=lambda cr: (cr[1]["outcome"], cr[0])):
            detail = (r["detail"] or "")[:240].replace("|", "/").replace("\n", " ")
            lines.append(f"| `{config}` | {r['outcome']} | {detail} |")
        lines.append("")
    lines.append(f"({seconds:.0f} s for this run.)")
    return "\n".join(lines)


def write_readme(report: str) -> None:
    path = os.path.join(HERE, "README.md")
    text = open(path).read()
    begin, end = text.index(README_BEGIN) + len(README_BEGIN), text.index(README_END)
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    text = text[:begin] + f"\n\nRun of {stamp}:\n\n" + report + "\n\n" + text[end:]
    with open(path, "w") as f:
        f.write(text)


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Per-epoch network schedules of published configs (``pretrain``, ``get_network``): the reference vs. this project.

Usage::

    python3 benchmarks/real-configs/pretrain_schedule.py --tag TAG [--only SUBSTRING ...] [--params N]
        [--write-readme]

For every config under ``.work/tree`` (see ``run.py``) that the reference builds (``.work/results/ref-*/`` status
ok) and that sets ``pretrain`` or defines ``get_network``, both implementations compute the network of each
training epoch with their public API only, so this file runs under either Python:

- ``returnn.pretrain.pretrain_from_config(config)``: ``str()`` of the result, ``get_train_num_epochs()``,
  ``get_network_json_for_epoch(epoch)`` for every pretrain epoch, ``get_final_network_json()``;
- after the pretrain epochs, or without ``pretrain``: ``get_network(epoch=epoch)`` where the config defines it
  (observed: the reference calls it with the keyword ``epoch`` only), else the final network. Here this project's
  engine decides (``returnn.tf.engine.epoch_network.get_net_dict_for_epoch``, the function training uses); the
  reference's engine has no such public function, so its side follows the rule observed from its training logs.

Per epoch it records the top-level layer names (in dict order), the ``#config`` overrides and a hash of the whole
net dict (keys sorted; functions, classes and other objects by their name, never by address). The reference's
results are cached per reference version in ``.work/results/<ref-key>-schedule/``; ours go to
``.work/results/<tag>-schedule/``. ``--params SUBSTRING ...`` also builds each distinct network of the schedule of
the matching configs (in a new graph, train flag on, as ``build_network.py``) and compares the trainable variable
names and shapes per epoch (slow: minutes per config on 2 cores).

The stand-ins are ``build_network.py``'s (``os.path.exists`` answers true while the config file runs; TF1 names on
``tensorflow``). ``--write-readme`` replaces the section between this file's markers in this folder's README.md.
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import os
import re
import signal
import sys
import time
from typing import Any, Dict, List, Optional, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import build_network as bn  # noqa: E402  (same folder; side-agnostic helpers)

README_BEGIN = "<!-- pretrain-schedule: begin (written by pretrain_schedule.py --write-readme) -->"
README_END = "<!-- pretrain-schedule: end -->"
#: get_network configs: epochs compared (the schedules of the published configs change within the first ~100)
MAX_GET_NETWORK_EPOCHS = 120
_ADDR = re.compile(r" at 0x[0-9a-fA-F]+")


# ---------------------------------------------------------------------------------------------------- worker side

def canonical(value: Any) -> Any:
    """A JSON-able form of a net dict value that is the same under both implementations."""
    if isinstance(value, dict):
        return {_key(k): canonical(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [canonical(v) for v in value] + ([] if isinstance(value, list) else ["<tuple>"])
    if isinstance(value, (set, frozenset)):
        return sorted((canonical(v) for v in value), key=repr)
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return repr(value)
    if callable(value) and hasattr(value, "__qualname__"):
        return "<callable %s>" % value.__qualname__
    type_name = type(value).__name__
    if type_name in ("WrapEpochValue",):
        return "<WrapEpochValue>"
    desc = getattr(value, "description", None)
    if isinstance(desc, str):
        return "<%s %s>" % (type_name, desc)
    try:
        import numpy

        if isinstance(value, numpy.generic):
            return canonical(value.item())
        if isinstance(value, numpy.ndarray):
            return canonical(value.tolist())
    except ImportError:
        pass
    return "<%s>" % type_name


def _key(key: Any) -> str:
    return key if isinstance(key, str) else "<%s %r>" % (type(key).__name__, key)


def digest(net_dict: Any) -> str:
    text = json.dumps(canonical(net_dict), sort_keys=True)
    return hashlib.sha1(text.encode("utf8")).hexdigest()[:16]


def epoch_record(net_dict: Dict[str, Any]) -> dict:
    return {"layers": [_key(k) for k in net_dict], "config": canonical(net_dict.get("#config")),
            "hash": digest(net_dict)}


def num_epochs_of(config) -> int:
    try:
        return int(config.int("num_epochs", 5))
    except Exception:  # noqa: BLE001 (a config with an odd value: compare a few)
        return 5


def schedule(config_path: str, with_params: bool = False) -> dict:
    """Loads the config and computes its per-epoch networks (see module doc)."""
    start = time.time()
    config_path = os.path.abspath(config_path)
    os.chdir(os.path.dirname(config_path))
    sys.argv = ["rnn.py", config_path]
    from returnn.config import Config

    config = Config()
    try:
        with bn._PathsExist():
            config.load_file(config_path)
    except BaseException as exc:  # noqa: BLE001 (reported)
        return {"status": "error", "stage": "config", "exc_type": type(exc).__name__, "message": bn._message(exc),
                "seconds": time.time() - start}
    import returnn.config as config_mod

    if hasattr(config_mod, "set_global_config"):
        config_mod.set_global_config(config)
    try:
        from returnn.util.basic import BehaviorVersion

        if config.has("behavior_version"):
            BehaviorVersion.set(config.int("behavior_version", 0))
    except Exception:  # noqa: BLE001
        pass
    out: Dict[str, Any] = {"status": "ok", "epochs": []}
    try:
        from returnn.pretrain import pretrain_from_config

        with bn._PathsExist():  # construction functions are config code too
            pretrain = pretrain_from_config(config)
        get_network = config.typed_value("get_network", None)
        num_pretrain = pretrain.get_train_num_epochs() if pretrain else 0
        out["pretrain"] = _ADDR.sub("", str(pretrain)) if pretrain else None
        out["num_pretrain_epochs"] = num_pretrain
        nets: List[Dict[str, Any]] = []
        for epoch in range(1, num_pretrain + 1):
            nets.append(pretrain.get_network_json_for_epoch(epoch))
        try:  # this project: the engine's own choice
            from returnn.tf.engine.epoch_network import get_net_dict_for_epoch
        except ImportError:  # the reference: the observed rule
            def get_net_dict_for_epoch(config_, pretrain_, epoch_):
                if callable(get_network):
                    return get_network(epoch=epoch_)
                return pretrain_.get_final_network_json() if pretrain_ else config_.typed_value("network")
        last = num_pretrain + 1
        if callable(get_network):
            last = min(max(num_epochs_of(config), num_pretrain + 1), MAX_GET_NETWORK_EPOCHS)
        with bn._PathsExist():
            for epoch in range(num_pretrain + 1, last + 1):
                nets.append(get_net_dict_for_epoch(config, pretrain, epoch))
        out["epochs"] = [epoch_record(d) for d in nets]
    except BaseException as exc:  # noqa: BLE001 (reported)
        return {"status": "error", "stage": "schedule", "exc_type": type(exc).__name__,
                "message": bn._message(exc), "where": bn._innermost_frame(exc), "seconds": time.time() - start}
    if with_params:
        out["params"] = _params_per_net(config, nets, out["epochs"], pretrain)
    out["seconds"] = time.time() - start
    return out


def _params_per_net(config, nets: List[Dict[str, Any]], records: List[dict], pretrain=None) -> Dict[str, Any]:
    """hash → {name: shape} or an error, for each distinct net of the schedule; ``"<copy from H>"`` in a net's
    entry: the lines logged when the params of the previous distinct net (hash H) are carried into it."""
    import tensorflow as tf

    result: Dict[str, Any] = {}
    previous = None  # (hash, graph, network, session) of the previous distinct network
    for net_dict, rec in zip(nets, records):
        if rec["hash"] in result:
            continue
        try:
            graph = tf.Graph()
            with graph.as_default():
                network = _build_net(config, net_dict)
                result[rec["hash"]] = {v.name[:-2] if v.name.endswith(":0") else v.name: v.shape.as_list()
                                       for v in tf.compat.v1.trainable_variables()}
                step = network.global_train_step  # params serialized with it (the reference)
                session = tf.compat.v1.Session(graph=graph)
                session.run(tf.compat.v1.global_variables_initializer())
                session.run(step.initializer)  # not in the global variables of the reference
            if previous is not None:
                mode = net_dict.get("#copy_param_mode", getattr(pretrain, "copy_param_mode", None))
                result[rec["hash"]]["<copy from %s>" % previous[0]] = _copy_lines(previous, graph, network, session,
                                                                                 mode)
                previous[3].close()
            previous = (rec["hash"], graph, network, session)
        except BaseException as exc:  # noqa: BLE001 (reported)
            result[rec["hash"]] = {"<error>": bn._message(exc)[:300]}
            if previous is not None:
                previous[3].close()
            previous = None
    return result


def _build_net(config, net_dict):
    from returnn.tf.network import TFNetwork

    network = TFNetwork(config=config, train_flag=True, eval_flag=True)
    network.construct_from_dict(net_dict)
    return network


def _copy_lines(previous, graph, network, session, mode) -> List[str]:
    """The log lines of carrying the previous network's params into ``network``: here with the engine's
    ``param_copy`` (what training runs), in the reference with ``TFNetwork.get_params_serialized`` /
    ``set_params_by_serialized`` (observed to log the same lines as its training)."""
    import io

    from returnn.log import log

    _, old_graph, old_network, old_session = previous
    buf, saved = io.StringIO(), sys.stdout
    sys.stdout = buf
    log.initialize(verbosity=[3])
    try:
        try:
            from returnn.tf.engine.param_copy import ParamSnapshot, copy_params
        except ImportError:
            with old_graph.as_default():
                serialized = old_network.get_params_serialized(old_session)
            with graph.as_default():
                network.set_params_by_serialized(serialized, session, copy_param_mode=mode, ignore_wrong_shape=True)
        else:
            snapshot = ParamSnapshot(old_network, old_session)
            copy_params(snapshot, network, session, mode)
    finally:
        sys.stdout = saved
        log.initialize(verbosity=[0])
    return [_ADDR.sub("", line) for line in buf.getvalue().splitlines()
            if line.startswith("Param <") or line.startswith("Will not set param")]


def _child(request: dict) -> None:
    signal.alarm(int(request.get("timeout", 300)))
    log_fd = os.open(request["out"] + ".log", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(log_fd, 1)
    os.dup2(log_fd, 2)
    try:
        result = schedule(request["config"], with_params=bool(request.get("params")))
    except BaseException as exc:  # noqa: BLE001
        result = {"status": "error", "stage": "worker", "exc_type": type(exc).__name__, "message": bn._message(exc)}
    tmp = request["out"] + ".tmp"
    with open(tmp, "w") as f:
        json.dump(result, f)
    os.replace(tmp, request["out"])
    os._exit(0)


def serve() -> None:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow as tf

    tf.compat.v1.disable_eager_execution()
    bn._install_tf1_aliases(tf)
    import returnn.config  # noqa: F401
    import returnn.pretrain  # noqa: F401
    import returnn.tf.network  # noqa: F401
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            _child(request)
        _, status = os.waitpid(pid, 0)
        if not os.path.exists(request["out"]):
            reason = "timeout" if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGALRM else (
                "exit status %r" % status)
            with open(request["out"], "w") as f:
                json.dump({"status": "error", "stage": "worker", "exc_type": "Crash", "message": reason}, f)
        print("done", flush=True)


# ---------------------------------------------------------------------------------------------------- driver side

def sets_pretrain_or_get_network(path: str) -> bool:
    text = open(path, errors="replace").read()
    return bool(re.search(r"^\s*pretrain\s*=", text, re.M) or re.search(r"^def get_network\b", text, re.M))


def summarize(result: Optional[dict]) -> str:
    if result is None:
        return "missing"
    if result["status"] == "ok":
        return f"ok, {result.get('num_pretrain_epochs')} pretrain epochs, {len(result['epochs'])} in all, " \
               f"{result.get('seconds', 0):.1f}s"
    first = result["message"].splitlines()[0] if result.get("message") else ""
    return f"{result['stage']} error: {first[:160]}"


def compare(ref: dict, ours: Optional[dict]) -> str:
    """"same" or a short cause."""
    if ours is None:
        return "missing"
    if ours["status"] != "ok":
        return "error here (%s): %s" % (ours.get("stage"), (ours.get("message") or "").splitlines()[0][:120])
    if ref.get("pretrain") != ours.get("pretrain"):
        return "pretrain description: %r vs %r" % (ref.get("pretrain"), ours.get("pretrain"))
    r, o = ref["epochs"], ours["epochs"]
    if len(r) != len(o):
        return "number of epochs: %d vs %d" % (len(r), len(o))
    for i, (a, b) in enumerate(zip(r, o)):
        if a["layers"] != b["layers"]:
            only_r = [x for x in a["layers"] if x not in b["layers"]]
            only_o = [x for x in b["layers"] if x not in a["layers"]]
            what = "only in reference %s, only here %s" % (only_r[:3], only_o[:3]) if (only_r or only_o) \
                else "layer order"
            return "epoch %d layers: %s" % (i + 1, what)
        if a["config"] != b["config"]:
            return "epoch %d #config: %r vs %r" % (i + 1, a["config"], b["config"])
        if a["hash"] != b["hash"]:
            return "epoch %d: same layers, other layer options" % (i + 1)
    return "same"


def compare_params(ref: dict, ours: dict) -> Tuple[str, int, int, int]:
    """(outcome, number of network changes compared, of those with identical copy lines, of those with the same
    lines in another order)"""
    rp, op = ref.get("params"), ours.get("params")
    if rp is None or op is None:
        return "n/a", 0, 0, 0
    bad, changes, same_changes, reordered = [], 0, 0, 0
    for i, rec in enumerate(ref["epochs"]):
        a, b = rp.get(rec["hash"]), op.get(ours["epochs"][i]["hash"])
        if a is None or b is None or "<error>" in a:
            continue
        if "<error>" in b:
            bad.append("epoch %d: does not build here" % (i + 1))
            continue
        params_a = {k: v for k, v in a.items() if not k.startswith("<")}
        params_b = {k: v for k, v in b.items() if not k.startswith("<")}
        if params_a != params_b:
            bad.append("epoch %d: other variables" % (i + 1))
        copy_a = [v for k, v in a.items() if k.startswith("<copy")]
        copy_b = [v for k, v in b.items() if k.startswith("<copy")]
        if copy_a and copy_b and (i == 0 or ref["epochs"][i - 1]["hash"] != rec["hash"]):
            changes += 1
            if copy_a == copy_b:
                same_changes += 1
            elif sorted(copy_a[0]) == sorted(copy_b[0]):
                reordered += 1
            else:
                diff = [line for line in copy_a[0] if line not in copy_b[0]]
                name = diff[0].split("'")[1] if diff else "?"
                mine = [line for line in copy_b[0] if line.split("'")[1:2] == [name]]
                bad.append("epoch %d: reference `%s`, here `%s`" % (
                    i + 1, diff[0][diff[0].find("shape parts"):] if diff else "-",
                    mine[0][mine[0].find("shape parts"):] if mine else "-"))
    return ("same" if not bad else bad[0]), changes, same_changes, reordered


def main(argv: Optional[List[str]] = None) -> int:
    import subprocess

    import run as conformance

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ref-python", default="/work/venv-ref/bin/python")
    ap.add_argument("--ours-python", default=sys.executable)
    ap.add_argument("--workdir", default=os.path.join(HERE, ".work"))
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--only", nargs="*", default=[])
    ap.add_argument("--tag", default="ours")
    ap.add_argument("--rerun-ref", action="store_true")
    ap.add_argument("--params", nargs="*", default=[], help="substrings: also compare the params of these configs")
    ap.add_argument("--skip-ours", action="store_true")
    ap.add_argument("--write-readme", action="store_true")
    args = ap.parse_args(argv)

    tree = os.path.join(args.workdir, "tree")
    ref_key = "ref-" + conformance.python_version_key(args.ref_python)
    build_dir = os.path.join(args.workdir, "results", ref_key)
    configs = [c for c in conformance.list_configs(tree)
               if (conformance.load(os.path.join(build_dir, c + ".json")) or {}).get("status") == "ok"
               and sets_pretrain_or_get_network(os.path.join(tree, c))]
    if args.only:
        configs = [c for c in configs if any(s in c for s in args.only)]
    with_params = {c for c in configs if any(p in c for p in args.params)}
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", CUDA_VISIBLE_DEVICES="", PYTHONDONTWRITEBYTECODE="1")
    env.pop("PYTHONPATH", None)

    def out_path(side: str, cfg: str) -> str:
        path = os.path.join(args.workdir, "results", side + "-schedule", cfg + ".json")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        return path

    def requests_for(side: str, todo: List[str]) -> List[dict]:
        return [{"name": c, "config": os.path.join(tree, c), "out": out_path(side, c), "timeout": args.timeout,
                 "params": c in with_params} for c in todo]

    def run_side(python: str, side: str, todo: List[str]) -> None:
        if not todo:
            return
        for c in todo:
            if os.path.exists(out_path(side, c)):
                os.remove(out_path(side, c))
        proc = subprocess.Popen([python, os.path.abspath(__file__), "--serve"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, text=True, env=env, cwd="/")
        try:
            for i, req in enumerate(requests_for(side, todo)):
                proc.stdin.write(json.dumps(req) + "\n")
                proc.stdin.flush()
                if not proc.stdout.readline():
                    raise RuntimeError(f"{side} worker died")
                print(f"[{side} {i + 1}/{len(todo)}] {req['name']}: {summarize(conformance.load(req['out']))}",
                      flush=True)
        finally:
            proc.stdin.close()
            proc.wait()

    t0 = time.time()
    ref_todo = [c for c in configs if args.rerun_ref or conformance.load(out_path(ref_key, c)) is None
                or (c in with_params and "params" not in conformance.load(out_path(ref_key, c)))]
    run_side(args.ref_python, ref_key, ref_todo)
    if not args.skip_ours:
        run_side(args.ours_python, args.tag, configs)
    ref = {c: conformance.load(out_path(ref_key, c)) for c in configs}
    ours = {c: conformance.load(out_path(args.tag, c)) for c in configs}
    report = make_report(configs, ref, ours, ref_key, with_params, time.time() - t0)
    print(report)
    if args.write_readme:
        write_readme(report)
    return 0


def make_report(configs: List[str], ref: Dict[str, dict], ours: Dict[str, dict], ref_key: str,
                with_params: set, seconds: float) -> str:
    counted = [c for c in configs if ref[c] and ref[c]["status"] == "ok"]
    outcome = {c: compare(ref[c], ours[c]) for c in counted}
    n_same = sum(1 for c in counted if outcome[c] == "same")
    n_pretrain = sum(1 for c in counted if ref[c].get("pretrain"))
    n_epochs = sum(len(ref[c]["epochs"]) for c in counted)
    lines = [f"Configs that the reference builds and that set `pretrain` or define `get_network`: {len(configs)}; "
             f"the reference ({ref_key}) computes the schedule of {len(counted)} ({n_pretrain} with a pretrain "
             f"phase, {n_epochs} epoch networks in all).",
             f"Identical schedule here (number of pretrain epochs, `str(pretrain)`, per epoch: layer names, `#config`"
             f" and the whole net dict): **{n_same} of {len(counted)} ({100.0 * n_same / max(1, len(counted)):.1f} %)**.",
             ""]
    by_cause: Dict[str, List[str]] = collections.defaultdict(list)
    for c in counted:
        if outcome[c] != "same":
            by_cause[re.sub(r"\d+", "N", outcome[c])[:150]].append(c)
    if by_cause:
        lines += ["| difference | configs | example |", "|---|---|---|"]
        for cause, cs in sorted(by_cause.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            lines.append(f"| {cause.replace('|', '/')} | {len(cs)} | `{cs[0]}`: {outcome[cs[0]].replace('|', '/')} |")
        lines.append("")
    params = [c for c in counted if c in with_params and ours[c] and ours[c].get("status") == "ok"]
    if params:
        res = {c: compare_params(ref[c], ours[c]) for c in params}
        same = sum(1 for c in params if res[c][0] == "same")
        n_nets = sum(len([k for k in ref[c].get("params", {})]) for c in params)
        changes, same_changes = sum(res[c][1] for c in params), sum(res[c][2] for c in params)
        reordered = sum(res[c][3] for c in params)
        n_same_vars = sum(1 for c in params if "other variables" not in res[c][0] and "build" not in res[c][0])
        lines.append(f"Parameters compared for a sample of {len(params)} configs ({n_nets} distinct epoch networks): "
                     f"trainable variable names and shapes of every network identical in {n_same_vars} configs; "
                     f"the lines logged when the params of one network are carried into the next (`Param ...: "
                     f"transform old values ...`, `Will not set param ...`): {same_changes} of {changes} network "
                     f"changes identical, {reordered} with the same lines in another order (the repeated lines of "
                     f"the layers inside a `rec` unit), {changes - same_changes - reordered} with other lines:")
        for c in params:
            if res[c][0] != "same":
                lines.append(f"- `{c}`: {res[c][0]}")
        lines.append("")
    failed = [c for c in configs if not (ref[c] and ref[c]["status"] == "ok")]
    if failed:
        lines.append(f"Not counted: {len(failed)} configs whose schedule the reference does not compute here.")
        lines.append("")
    lines.append(f"({seconds:.0f} s for this run.)")
    return "\n".join(lines)


def write_readme(report: str) -> None:
    path = os.path.join(HERE, "README.md")
    text = open(path).read()
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    section = f"{README_BEGIN}\n\nRun of {stamp}:\n\n{report}\n\n{README_END}"
    if README_BEGIN in text:
        begin, end = text.index(README_BEGIN), text.index(README_END) + len(README_END)
        text = text[:begin] + section + text[end:]
    else:
        text = text.rstrip("\n") + "\n\n## Per-epoch networks (pretrain, get_network)\n\n`pretrain_schedule.py` " \
            "compares the network of every training epoch (see its docstring).\n\n" + section + "\n"
    with open(path, "w") as f:
        f.write(text)


if __name__ == "__main__":
    if sys.argv[1:] == ["--serve"]:
        serve()
    else:
        sys.exit(main())

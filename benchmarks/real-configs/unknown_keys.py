#!/usr/bin/env python3
"""The start-up warning about misspelled config keys (:mod:`returnn.options.unknown_keys`) over the published configs.

Usage::

    python3 benchmarks/real-configs/unknown_keys.py [--only SUBSTRING ...] [--write-readme]

Loads every config of the real-config runner (``.work/tree``, see ``run.py``; Theano-era ``2016-*`` folders left
out) with the stand-ins of ``build_network.py`` (paths exist, TF1 names on ``tensorflow``; no network is built) and
runs the check each config would get at start-up. Every warning is listed with its config. A warning on a name that
the config uses correctly (a key the reference reads, or a helper global) is a false alarm; the goal is none.
``--write-readme`` replaces this check's section of the folder's README.md.
"""

from __future__ import annotations

import argparse
import collections
import io
import os
import sys
import time
from contextlib import redirect_stderr, redirect_stdout
from typing import Dict, List, Optional, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
README_BEGIN = "<!-- unknown-keys: begin (written by unknown_keys.py --write-readme) -->"
README_END = "<!-- unknown-keys: end -->"

#: warnings on names that are true misspellings in the published config (the reference ignores them too): name -> why
TRUE_MISSPELLINGS: Dict[str, str] = {
    "optimizer_epsiloon": "optimizer_epsilon was meant; the reference ignores the name, so the default epsilon is used",
    "num_input": "the reference reads num_inputs only (observed); these configs describe the data by extern_data, so "
                 "the value is unused",
}


def check_config(path: str) -> Tuple[str, List[Tuple[str, str, bool]]]:
    """Loads one config (stand-ins as build_network.py) and returns ``(status, warnings)``."""
    sys.path.insert(0, HERE)
    import build_network  # noqa: E402  (the runner's stand-ins)
    from returnn.config import Config
    from returnn.options.unknown_keys import find_misspelled_keys

    cwd = os.getcwd()
    config = Config()
    try:
        os.chdir(os.path.dirname(path))
        sink = io.StringIO()
        with build_network._PathsExist(), redirect_stdout(sink), redirect_stderr(sink):
            config.load_file(path)
    except BaseException as exc:  # noqa: BLE001 (reported)
        return "config error: %s" % type(exc).__name__, []
    finally:
        os.chdir(cwd)
    return "ok", find_misspelled_keys(config)


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workdir", default=os.path.join(HERE, ".work"))
    ap.add_argument("--only", nargs="*", default=[], help="substrings of config paths")
    ap.add_argument("--write-readme", action="store_true")
    args = ap.parse_args(argv)
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    sys.path.insert(0, HERE)
    import tensorflow as tf

    import build_network
    from run import list_configs

    tf.compat.v1.disable_eager_execution()
    build_network._install_tf1_aliases(tf)
    tree = os.path.join(args.workdir, "tree")
    configs = [c for c in list_configs(tree) if not args.only or any(s in c for s in args.only)]
    start = time.time()
    loaded, failed = 0, 0
    warnings: Dict[str, List[Tuple[str, str]]] = collections.defaultdict(list)  # name -> [(config, match)]
    for cfg in configs:
        status, found = check_config(os.path.join(tree, cfg))
        if status != "ok":
            failed += 1
            continue
        loaded += 1
        for name, match, _from_cmd in found:
            warnings[name].append((cfg, match))
    false_alarms = sum(len(v) for k, v in warnings.items() if k not in TRUE_MISSPELLINGS)
    lines = [f"Run of {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}: the start-up check of "
             "`returnn/options/unknown_keys.py` over the published configs (`unknown_keys.py`).",
             "",
             f"Configs: {len(configs)}; loaded: {loaded} ({failed} fail to load without their cluster files, as with "
             "the reference).",
             f"Warnings: {sum(len(v) for v in warnings.values())} in all; on names the configs use correctly "
             f"(false alarms): **{false_alarms}**."]
    for name in sorted(warnings):
        where = warnings[name]
        kind = ("true misspelling: " + TRUE_MISSPELLINGS[name]) if name in TRUE_MISSPELLINGS else "false alarm"
        lines.append(f"- `{name}` (did you mean `{where[0][1]}`?), {kind}: {len(where)} config(s), e.g. "
                     f"`{where[0][0]}`")
    lines.append(f"\n({time.time() - start:.0f} s for this run.)")
    report = "\n".join(lines)
    print(report)
    if args.write_readme:
        path = os.path.join(HERE, "README.md")
        with open(path) as f:
            text = f.read()
        block = README_BEGIN + "\n\n" + report + "\n\n" + README_END
        if README_BEGIN in text:
            begin, end = text.index(README_BEGIN), text.index(README_END) + len(README_END)
            text = text[:begin] + block + text[end:]
        else:
            text = text.rstrip("\n") + "\n\n" + block + "\n"
        with open(path, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

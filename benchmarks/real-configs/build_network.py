#!/usr/bin/env python3
"""Builds the training network of one RETURNN config and reports its trainable variables, as JSON.

Side-agnostic: it only uses the public API that the reference and this project share (``returnn.config.Config``,
``returnn.tf.network.TFNetwork``), so the same file runs under either implementation's Python
(whichever ``returnn`` that interpreter imports).

Two modes:

- ``build_network.py CONFIG`` prints one JSON result line for CONFIG;
- ``build_network.py --serve`` imports TensorFlow and ``returnn`` once, then reads one JSON request per line on
  stdin (``{"config": PATH, "out": PATH, "timeout": SECONDS}``), forks a child per request that writes the
  result to ``out``, and answers each request with one line ``done`` on stdout.

Stand-ins, the same on both sides, so that configs written for a cluster load here: while the config file runs,
``os.path.exists``/``os.path.isfile`` answer true (many configs assert that their corpus files exist); the
``tensorflow`` module gets the TF1 names it lacks from ``tf.compat.v1`` (``tf.random_uniform`` ...), which old
helper functions call during network construction; ``DimensionTag(kind=..., description=...)`` without
``dimension`` (the transducer configs' time tags) means ``dimension=None`` (only where the implementation does not
accept that old form itself: this project does, see ``returnn.util.dropped_api``).

The result: ``{"status": "ok", "params": {name: shape}, "seconds": s, "dropped_apis": [...]}`` or
``{"status": "error", "stage": "config"|"network", "exc_type": ..., "message": ..., "seconds": s, ...}``;
``dropped_apis``: the old forms this project accepted while building (keys of
``returnn.util.dropped_api.DROPPED_APIS``; always empty for the reference).
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
import traceback


def _install_tf1_aliases(tf) -> None:
    v1 = tf.compat.v1
    for name in dir(v1):
        if name.startswith("_") or hasattr(tf, name):
            continue
        try:
            setattr(tf, name, getattr(v1, name))
        except Exception:  # noqa: BLE001 (a name that cannot be loaded stays missing)
            pass


def _dim_without_dimension() -> None:
    """``DimensionTag(kind=..., description=...)`` without ``dimension`` means ``dimension=None`` (a dynamic axis),
    as in the RETURNN the configs were written for; the current reference requires the argument. This project
    accepts the old form itself (with a warning, ``returnn.util.dropped_api``), so it gets no stand-in."""
    try:
        import returnn.util.dropped_api  # noqa: F401 (this project: old forms accepted natively)
        return
    except ImportError:
        pass
    try:
        from returnn.tensor import Dim
    except ImportError:  # an old release (before 2023): its DimensionTag still takes ``dimension=None`` by default
        return

    init = Dim.__init__

    def __init__(self, dimension=None, *args, **kwargs):
        init(self, dimension, *args, **kwargs)

    Dim.__init__ = __init__


class _PathsExist:
    """``os.path.exists``/``isfile`` answer True inside the ``with`` block."""

    def __enter__(self):
        self._saved = os.path.exists, os.path.isfile
        os.path.exists = lambda path: True
        os.path.isfile = lambda path: True
        return self

    def __exit__(self, *exc):
        os.path.exists, os.path.isfile = self._saved
        return False


def _message(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}"
    return text if len(text) <= 2000 else text[:2000] + " ..."


def _innermost_frame(exc: BaseException) -> str:
    tb = traceback.extract_tb(exc.__traceback__)
    for frame in reversed(tb):
        if "/returnn/" in frame.filename or frame.filename.endswith(".config"):
            return f"{frame.filename.split('/returnn/')[-1]}:{frame.lineno} {frame.name}"
    return f"{tb[-1].filename}:{tb[-1].lineno}" if tb else ""


def build(config_path: str) -> dict:
    """Loads ``config_path`` and builds its network (train flag on) in a new graph."""
    import tensorflow as tf

    start = time.time()
    config_path = os.path.abspath(config_path)
    os.chdir(os.path.dirname(config_path))
    sys.argv = ["rnn.py", config_path]
    from returnn.config import Config

    config = Config()
    try:
        with _PathsExist():
            config.load_file(config_path)
    except BaseException as exc:  # noqa: BLE001 (reported)
        return {"status": "error", "stage": "config", "exc_type": type(exc).__name__, "message": _message(exc),
                "where": _innermost_frame(exc), "seconds": time.time() - start}
    try:
        import returnn.config as config_mod
        if hasattr(config_mod, "set_global_config"):
            config_mod.set_global_config(config)
        if config.has("behavior_version"):
            from returnn.util.basic import BehaviorVersion
            BehaviorVersion.set(config.int("behavior_version", 0))
        from returnn.tf.network import TFNetwork

        get_network = config.typed_value("get_network", None)
        if config.has("network") and isinstance(config.typed_value("network"), dict):
            net_dict = config.typed_value("network")
        elif callable(get_network):
            net_dict = get_network(epoch=1)
        else:
            raise ValueError("config has neither 'network' nor 'get_network'")
        with tf.Graph().as_default():
            network = TFNetwork(config=config, train_flag=True, eval_flag=True)
            network.construct_from_dict(net_dict)
            params = {v.name[:-2] if v.name.endswith(":0") else v.name: v.shape.as_list()
                      for v in tf.compat.v1.trainable_variables()}
    except BaseException as exc:  # noqa: BLE001 (reported)
        return {"status": "error", "stage": "network", "exc_type": type(exc).__name__, "message": _message(exc),
                "where": _innermost_frame(exc), "seconds": time.time() - start, "dropped_apis": _dropped_api_uses()}
    return {"status": "ok", "params": params, "seconds": time.time() - start, "dropped_apis": _dropped_api_uses()}


def _dropped_api_uses() -> list:
    """The old forms this project accepted while building (``returnn.util.dropped_api``); [] elsewhere."""
    try:
        from returnn.util.dropped_api import dropped_api_uses
    except ImportError:
        return []
    return dropped_api_uses()


def _child(request: dict) -> None:
    timeout = int(request.get("timeout", 300))
    signal.alarm(timeout)
    devnull = os.open(os.devnull, os.O_WRONLY)
    log_path = request["out"] + ".log"
    log_fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(log_fd, 1)
    os.dup2(log_fd, 2)
    os.close(devnull)
    try:
        result = build(request["config"])
    except BaseException as exc:  # noqa: BLE001
        result = {"status": "error", "stage": "worker", "exc_type": type(exc).__name__, "message": _message(exc)}
    tmp = request["out"] + ".tmp"
    with open(tmp, "w") as f:
        json.dump(result, f)
    os.replace(tmp, request["out"])
    os._exit(0)


def serve() -> None:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow as tf

    tf.compat.v1.disable_eager_execution()
    _install_tf1_aliases(tf)
    import returnn  # noqa: F401
    import returnn.config  # noqa: F401

    _dim_without_dimension()
    import returnn.tf.network  # noqa: F401
    try:
        import returnn.tf.layers.basic  # noqa: F401
    except ImportError:
        pass
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            _child(request)
        _, status = os.waitpid(pid, 0)
        if not os.path.exists(request["out"]):
            reason = f"killed by signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status) else f"exit {status}"
            if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGALRM:
                reason = "timeout"
            with open(request["out"], "w") as f:
                json.dump({"status": "error", "stage": "worker", "exc_type": "Crash", "message": reason}, f)
        print("done", flush=True)


def main() -> None:
    if sys.argv[1:] == ["--serve"]:
        serve()
        return
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow as tf

    tf.compat.v1.disable_eager_execution()
    _install_tf1_aliases(tf)
    _dim_without_dimension()
    print(json.dumps(build(sys.argv[1])))


if __name__ == "__main__":
    main()

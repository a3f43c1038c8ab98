#!/usr/bin/env python3
"""Runs one layer case (a small network) and writes its output and gradients; side-agnostic.

Runs under either implementation's Python (whichever ``returnn`` it imports), using only the API both share
(``returnn.config.Config``, ``returnn.tf.network.TFNetwork``)::

    case_runner.py CASES_FILE CASE_NAME OUT.npz [--params PARAMS.npz]
    case_runner.py --batch JOBS.json

``--batch``: runs several cases in this one process (TensorFlow and ``returnn`` are imported once, which is most of
the time of a single case), each in a graph of its own; ``JOBS.json`` is a list of ``[CASES_FILE, CASE_NAME,
OUT.npz, PARAMS.npz or null]``. Each case file is loaded once per process (a case file may register layer classes).

- Builds ``case["network"]`` with ``extern_data = case["extern_data"]`` (train flag off: no dropout; eval flag
  on, so layers reading targets are built). ``"train": True`` in a case sets the train flag (for networks without
  dropout or other randomness: e.g. rec loops, which the reference builds without gradients otherwise);
  ``"search": True`` sets the search flag (beam search in rec loops; the eval flag is then off unless the case sets
  ``"eval": True``, as for losses on the beam, which are only collected with the eval or train flag).
- Feeds inputs drawn from a fixed seed: dense extern data ~ N(0, 1), sparse ones uniform in ``[0, dim)``,
  sequence lengths in ``[1, max_len]`` with the longest sequence full length (batch 3, max_len 7 unless the
  case sets ``batch``/``max_len``).
- Without ``--params``: initializes the variables and writes their values into OUT.npz (``param:<name>``).
  With ``--params``: loads the variables by name from that file (the other side's values); a variable that is
  missing there is an error (reported, so the names must agree).
- Fetches the case's ``output`` layer (default ``"output"``), zeroed on padded frames of its dynamic axes
  (batch-major), and the gradients of ``sum(y * R)`` (R: stateless normal noise of y's shape, the same in both
  processes) with respect to every trainable variable and every float input.

The result file holds ``output``, ``grad_param:<name>``, ``grad_input:<key>``, and ``status`` / ``error``.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import traceback

import numpy as np


_LOADED = {}


def load_case(cases_file: str, name: str) -> dict:
    mod = _LOADED.get(cases_file)
    if mod is None:
        spec = importlib.util.spec_from_file_location("layer_cases", cases_file)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        _LOADED[cases_file] = mod
    for case in mod.CASES:
        if case["name"] == name:
            return case
    raise KeyError(f"no case {name!r} in {cases_file}")


def make_feed(network, case: dict, rng: np.random.RandomState) -> dict:
    batch = case.get("batch", 3)
    max_len = case.get("max_len", 7)
    feed = {}
    lengths_by_dim = {}
    for key, data in sorted(network.extern_data.data.items()):
        if data.placeholder is None:  # not used by the network (the reference creates no placeholder then)
            continue
        shape = []
        for axis, size in enumerate(data.batch_shape):
            if axis == data.batch_dim_axis:
                shape.append(batch)
            elif size is None:
                shape.append(max_len)
            else:
                shape.append(size)
        if data.sparse:
            values = rng.randint(0, data.dim, size=shape).astype(data.dtype)
        elif data.dtype.startswith("int"):
            values = rng.randint(0, 5, size=shape).astype(data.dtype)
        else:
            values = rng.normal(size=shape).astype(data.dtype)
        feed[data.placeholder] = values
        for axis_wo_b, size_ph in sorted((data.size_placeholder or {}).items()):
            tag = (axis_wo_b, id(size_ph))
            if tag not in lengths_by_dim:
                lens = rng.randint(1, max_len + 1, size=(batch,)).astype("int32")
                lens[0] = max_len
                lengths_by_dim[tag] = lens
            feed[size_ph] = lengths_by_dim[tag]
    return feed


def masked_batch_major(tf, out):
    data = out.copy_as_batch_major() if out.batch_dim_axis not in (None, 0) else out
    y = data.placeholder
    if not y.dtype.is_floating:
        y = tf.cast(y, tf.float32)
    for axis_wo_b, size in sorted((data.size_placeholder or {}).items()):
        axis = data.get_batch_axis(axis_wo_b)
        mask = tf.sequence_mask(size, maxlen=tf.shape(y)[axis], dtype=y.dtype)  # [B, T]
        shape = [1] * len(data.batch_shape)
        shape[data.batch_dim_axis] = -1
        shape[axis] = tf.shape(y)[axis]
        if data.batch_dim_axis > axis:
            mask = tf.transpose(mask)
        y = y * tf.reshape(mask, shape)
    return y


def run(cases_file: str, name: str, out_file: str, params_file: str = None) -> dict:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow as tf

    tf.compat.v1.disable_eager_execution()
    from returnn.config import Config
    from returnn.tf.network import TFNetwork

    case = load_case(cases_file, name)
    result = {}
    config = Config({"extern_data": case["extern_data"], "behavior_version": case.get("behavior_version", 12),
                     "debug_print_layer_output_template": False})
    with tf.Graph().as_default() as graph:
        tf.compat.v1.set_random_seed(42)
        search = bool(case.get("search", False))
        network = TFNetwork(config=config, train_flag=bool(case.get("train", False)),
                            eval_flag=bool(case.get("eval", not search)),
                            search_flag=search)
        network.construct_from_dict(case["network"])
        out = network.get_layer(case.get("output", "output")).output
        y = masked_batch_major(tf, out)
        params = {v.name[:-2]: v for v in tf.compat.v1.trainable_variables()}
        r = tf.random.stateless_normal(tf.shape(y), seed=[1, 2], dtype=y.dtype)
        objective = tf.reduce_sum(y * r)
        float_inputs = {k: d.placeholder for k, d in network.extern_data.data.items()
                        if not d.sparse and d.placeholder is not None and d.placeholder.dtype.is_floating}
        targets = list(params.values()) + list(float_inputs.values())
        grads = tf.gradients(objective, targets) if targets and y.dtype.is_floating else [None] * len(targets)
        with tf.compat.v1.Session(graph=graph) as session:
            session.run(tf.compat.v1.global_variables_initializer())
            if params_file:
                given = np.load(params_file)
                for pname, var in params.items():
                    key = "param:" + pname
                    if key not in given.files:
                        raise KeyError(f"variable {pname!r} is not in the other side's params "
                                       f"({sorted(f[6:] for f in given.files if f.startswith('param:'))})")
                    var.load(given[key], session)
            else:
                for pname, var in params.items():
                    result["param:" + pname] = session.run(var)
            feed = make_feed(network, case, np.random.RandomState(case.get("seed", 1)))
            fetches = {"output": y}
            for target, grad in zip(list(params) + ["input:" + k for k in float_inputs], grads):
                if grad is not None:
                    key = ("grad_" + target) if target.startswith("input:") else ("grad_param:" + target)
                    fetches[key] = tf.convert_to_tensor(grad)
            result.update(session.run(fetches, feed_dict=feed))
    return result


def run_and_save(cases_file: str, name: str, out_file: str, params_file: str = None) -> None:
    try:
        result = run(cases_file, name, out_file, params_file)
        result["status"] = np.array("ok")
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # noqa: BLE001 (reported in the result file)
        result = {"status": np.array("error"),
                  "error": np.array(f"{type(exc).__name__}: {exc}\n{traceback.format_exc()[-3000:]}")}
    np.savez(out_file, **result)


def main() -> None:
    args = sys.argv[1:]
    if args[:1] == ["--batch"]:
        import json

        with open(args[1]) as f:
            jobs = json.load(f)
        for cases_file, name, out_file, params_file in jobs:
            print(f"case {name}", flush=True)
            run_and_save(cases_file, name, out_file, params_file)
        return
    params_file = None
    if "--params" in args:
        i = args.index("--params")
        params_file = args[i + 1]
        del args[i:i + 2]
    cases_file, name, out_file = args
    run_and_save(cases_file, name, out_file, params_file)


if __name__ == "__main__":
    main()

"""One side of the rf-setups runner: run by ``run.py`` in ours' interpreter and in the reference's (``/tmp/refvenv``),
each with its own ``returnn`` on ``sys.path``. Builds one model of :mod:`models` with ``rf.select_backend_tf()`` in
a TF graph, and writes ``<out>/result.json`` (parameter names and shapes, losses, what failed where) and
``<out>/arrays.npz`` (parameter values, gradients, forward outputs).

With ``--params`` (an ``arrays.npz`` of the other side), the parameters get those values before anything runs.
Phases: ``build`` (model def, parameters), ``train`` (the train def with train_flag False, so no dropout or
SpecAugment: the marked losses, the total loss and its gradient per parameter), ``forward`` (graph mode: the
encoder's output or the LM's log-probs), ``train_on`` (the train def with the train flag on, dropout and SpecAugment
made the identity, then a few SGD steps: losses per step, parameters after each), ``recog`` (the setup's recog def, in TF eager mode: its loop is decided
in Python).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback
from typing import Any, Dict

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _importer  # noqa: E402
import models  # noqa: E402


def _record_error(ph: dict, exc: BaseException) -> None:
    """Stores a phase's failure: the exception's type and message, and the tail of its traceback."""
    ph["error"] = f"{type(exc).__name__}: {exc}"
    ph["traceback"] = traceback.format_exc()[-3000:]


def _rf_tensors(obj: Any, prefix: str, out: Dict[str, Any]) -> None:
    """Collects the ``Tensor`` leaves of a nested structure (dicts, lists, tuples, objects with ``__dict__``)."""
    from returnn.tensor import Tensor
    if isinstance(obj, Tensor):
        out[prefix] = obj
    elif isinstance(obj, dict):
        for k in sorted(obj, key=str):
            _rf_tensors(obj[k], f"{prefix}.{k}", out)
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            _rf_tensors(v, f"{prefix}.{i}", out)
    elif hasattr(obj, "__dict__") and not isinstance(obj, type) and type(obj).__module__.startswith("i6_"):
        for k, v in sorted(vars(obj).items()):
            _rf_tensors(v, f"{prefix}.{k}", out)


class _Skip(Exception):
    """a phase the spec does not have"""


class _NoRandom:
    """Within the context, the frontend's ``dropout`` and ``audio.specaugment`` functions are the identity wherever
    they are bound (``rf.dropout``, the defining module, every loaded ``returnn.frontend``/``i6_experiments`` module
    that imported the name): the train flag's other effects stay (batch norm statistics, label smoothing, aux losses)
    and the result is deterministic. :attr:`calls` counts the calls with a non-zero drop probability per function."""

    def __init__(self):
        self.calls = {"dropout": 0, "specaugment": 0}
        self._undo = []

    def _dropout(self, source, drop_prob=0.0, *_args, **_kwargs):
        if not (isinstance(drop_prob, (int, float)) and drop_prob == 0):
            self.calls["dropout"] += 1
        return source

    def _specaugment(self, x, *_args, **_kwargs):
        self.calls["specaugment"] += 1
        return x

    def __enter__(self):
        import returnn.frontend as rf
        originals = {id(rf.dropout): self._dropout, id(rf.audio.specaugment): self._specaugment}
        for name, mod in list(sys.modules.items()):
            if mod is None or not (name.startswith("returnn.frontend") or name.startswith("i6_experiments")):
                continue
            for attr, val in list(vars(mod).items()):
                if id(val) in originals:
                    self._undo.append((mod, attr, val))
                    setattr(mod, attr, originals[id(val)])
        return self

    def __exit__(self, *exc):
        for mod, attr, val in reversed(self._undo):
            setattr(mod, attr, val)
        self._undo.clear()
        return False


def _train_fetches(ctx, variables):
    """:return: (losses fetch dict, total loss, {param name: gradient or None}) of the marked losses of ``ctx``"""
    import tensorflow as tf
    fetch = {}
    for name, loss in ctx.losses.items():
        fetch[f"{name}:summed"] = loss.get_summed_loss().raw_tensor
        fetch[f"{name}:mean"] = loss.get_mean_loss().raw_tensor
    total = ctx.total_loss()
    fetch["total_loss"] = total.raw_tensor
    names = sorted(variables)
    grads = tf.gradients(total.raw_tensor, [variables[k] for k in names])
    return fetch, dict(zip(names, grads))


def _train_steps(spec, mod, model, d, variables, session, arrays, ph) -> None:
    """The train def with the train flag on (dropout and SpecAugment the identity, see :class:`_NoRandom`), then
    ``spec.train_steps`` steps of plain SGD (``p - lr * grad`` in numpy, float32, on every parameter with a gradient):
    the losses before each step, the gradients of the first, and every parameter after each step."""
    import tensorflow as tf
    import returnn.frontend as rf
    rf.init_train_step_run_ctx(train_flag=True, step=0, epoch=1)
    with _NoRandom() as no_random:
        _func(mod, spec.train_def)(model=model, data=d["data"], data_spatial_dim=d["data_spatial_dim"],
                                     targets=d["targets"], targets_spatial_dim=d["targets_spatial_dim"])
    ph["random_calls"] = no_random.calls
    fetch, grads = _train_fetches(rf.get_run_ctx(), variables)
    grad_fetch = {k: tf.convert_to_tensor(g) for k, g in grads.items() if g is not None}
    ph["no_grad"] = sorted(k for k, g in grads.items() if g is None)
    # the same parameters twice: anything random left makes the side not deterministic (then not compared)
    first = session.run(fetch)
    again = session.run(fetch)
    ph["deterministic"] = all(np.array_equal(first[k], again[k]) for k in first)
    ph["losses"] = {}
    for step in range(spec.train_steps):
        out = session.run({"losses": fetch, "grads": grad_fetch})
        ph["losses"].update({f"step{step}:{k}": float(v) for k, v in out["losses"].items()})
        if step == 0:
            arrays.update({f"tgrad:{k}": np.asarray(v) for k, v in out["grads"].items()})
        values = session.run(variables)
        for k, g in out["grads"].items():
            new = (values[k] - np.float32(spec.train_lr) * np.asarray(g)).astype(values[k].dtype)
            variables[k].load(new, session)
        for k, v in session.run(variables).items():
            arrays[f"step{step}:param:{k}"] = v


def make_data(spec: models.ModelSpec, raw_fn):
    """:return: dims and Tensors of the seeded random batch (2 sequences), raw tensors made by ``raw_fn(numpy)``"""
    from returnn.tensor import Tensor, Dim, batch_dim
    from returnn.datasets.util.vocabulary import Vocabulary
    rnd = np.random.RandomState(42)
    n_batch = 2
    batch_dim.dyn_size_ext = Tensor("batch_size", dims=(), dtype="int32",
                                    raw_tensor=raw_fn(np.array(n_batch, np.int32)))
    target_dim = Dim(spec.vocab, name="target", kind=Dim.Types.Feature)
    target_dim.vocab = Vocabulary.create_vocab_from_labels([str(i) for i in range(spec.vocab)], eos_label=0,
                                                           bos_label=0)
    tgt_lens = np.array([5, 3], np.int32)
    tgt_time = Dim(Tensor("targets_len", dims=[batch_dim], dtype="int32", raw_tensor=raw_fn(tgt_lens)),
                   name="targets_time")
    tgt = rnd.randint(1, spec.vocab, size=(n_batch, tgt_lens.max())).astype(np.int32)
    tgt = tgt * (np.arange(tgt_lens.max())[None, :] < tgt_lens[:, None])
    targets = Tensor("targets", dims=[batch_dim, tgt_time], dtype="int32", sparse_dim=target_dim,
                     raw_tensor=raw_fn(tgt))
    d = {"target_dim": target_dim, "targets": targets, "targets_spatial_dim": tgt_time}
    if spec.data == "audio":
        lens = np.array([8000, 6400], np.int32)  # 0.5 s and 0.4 s at 16 kHz
        audio = (rnd.randn(n_batch, lens.max()) * 0.1).astype(np.float32)
        audio = audio * (np.arange(lens.max())[None, :] < lens[:, None])
        time_dim = Dim(Tensor("data_len", dims=[batch_dim], dtype="int32", raw_tensor=raw_fn(lens)), name="time")
        in_dim = Dim(1, name="audio", kind=Dim.Types.Feature)
        data = Tensor("data", dims=[batch_dim, time_dim, in_dim], dtype="float32", feature_dim=in_dim,
                      raw_tensor=raw_fn(audio[:, :, None]))
        d.update(data=data, data_spatial_dim=time_dim, in_dim=in_dim)
    else:
        d.update(data=targets, data_spatial_dim=tgt_time, in_dim=target_dim)
    return d


def _config(spec: models.ModelSpec, mod):
    import importlib
    from returnn.config import Config
    import returnn.frontend as rf
    def build(cls_path, kwargs):
        if cls_path.startswith("."):
            cls = getattr(mod, cls_path[1:])
        else:
            m, name = cls_path.rsplit(".", 1)
            cls = getattr(importlib.import_module(m), name)
        kwargs = {k: (build(*v) if isinstance(v, tuple) and len(v) == 2 and isinstance(v[0], str)
                      and isinstance(v[1], dict) else v) for k, v in kwargs.items()}
        return rf.build_dict(cls, **kwargs)

    opts = dict(spec.config)
    if spec.model_def_dict is not None:
        opts["_model_def_dict"] = build(*spec.model_def_dict)
    for key, (cls_path, kwargs) in spec.build_dicts.items():
        opts[key] = build(cls_path, kwargs)
    return Config(opts)


def _func(mod, name: str):
    """:return: the function ``name`` of the setup module, or of another module for ``"dotted.module:name"``"""
    if ":" in name:
        import importlib
        mod_name, name = name.split(":")
        mod = importlib.import_module(mod_name)
    return getattr(mod, name)


def _set_kwdefaults(spec, mod) -> None:
    """Replaces keyword defaults of functions of the setup module (``spec.kwdefaults``)."""
    for path, kwargs in spec.kwdefaults.items():
        obj = mod
        for part in path.split("."):
            obj = getattr(obj, part)
        func = getattr(obj, "__func__", obj)
        missing = set(kwargs) - set(func.__kwdefaults__ or {})
        if missing:
            raise TypeError(f"{path} has no keyword-only defaults {sorted(missing)}")
        func.__kwdefaults__ = {**func.__kwdefaults__, **kwargs}


def _build(spec, mod, d):
    import returnn.frontend as rf
    from returnn.util.basic import BehaviorVersion
    model_def = _func(mod, spec.model_def)
    bv = getattr(model_def, "behavior_version", None)
    if bv is not None and not BehaviorVersion.is_set():
        BehaviorVersion.set(bv)
    model = model_def(epoch=1, in_dim=d["in_dim"], target_dim=d["target_dim"])
    assert isinstance(model, rf.Module), f"model def returned {type(model).__name__}"
    return model, bv


def _zero_padding(x):
    """:return: ``x`` with its frames beyond the lengths of each dynamic dim set to 0 (padding is not compared)"""
    import returnn.frontend as rf
    for dim in x.dims:
        if dim.dimension is None and not dim.is_batch_dim() and dim.dyn_size_ext is not None:
            x = rf.where(rf.sequence_mask(dim), x, rf.zeros_like(x))
    return x


def _forward_outputs(spec, model, d) -> Dict[str, Any]:
    import returnn.frontend as rf
    outs: Dict[str, Any] = {}
    if spec.forward == "ctc":
        res = model.encode_and_get_ctc_log_probs(d["data"], in_spatial_dim=d["data_spatial_dim"])
        _rf_tensors(res[0], "ctc_log_probs", outs)
    elif spec.forward == "aed":
        data = d["data"]
        res = model.encode(data, in_spatial_dim=d["data_spatial_dim"])
        _rf_tensors(res[0], "enc", outs)
    elif spec.forward == "lm":
        batch_dims = [d["data"].dims[0]]
        logits, _ = model(d["targets"], spatial_dim=d["targets_spatial_dim"], encoder=None,
                          state=model.default_initial_state(batch_dims=batch_dims))
        outs["log_probs"] = rf.log_softmax(logits, axis=model.vocab_dim)
    else:
        raise ValueError(f"forward {spec.forward!r}")
    return outs


def run(args) -> Dict[str, Any]:
    spec = models.get(args.model)
    res: Dict[str, Any] = {"model": spec.name, "phases": {}}
    arrays: Dict[str, np.ndarray] = {}
    finder = _importer.install(args.mirror, args.scratch, strict=[spec.module])
    import tensorflow as tf
    import returnn
    import returnn.frontend as rf
    from returnn.config import global_config_ctx
    from returnn.tf.frontend_low_level import TFBackend
    res["returnn"] = os.path.dirname(returnn.__file__)
    loaded = dict(np.load(args.params)) if args.params else None

    def phase(name):
        res["phases"][name] = {"ok": False}
        return res["phases"][name]

    config = None
    ph = phase("import")
    t0 = time.time()
    try:
        import importlib
        mod = importlib.import_module(spec.module)
        _set_kwdefaults(spec, mod)
        config = _config(spec, mod)
        ph["ok"] = True
    except Exception as exc:
        _record_error(ph, exc)
        res["stubbed_helpers"] = finder.notes
        return _finish(args, res, arrays)
    ph["time"] = time.time() - t0

    rf.select_backend_tf()
    if args.phase == "recog":
        if not tf.executing_eagerly():
            tf.compat.v1.enable_eager_execution()  # an import may have switched it off; nothing is built yet
        return _recog(args, spec, mod, config, res, arrays, loaded, phase, finder)
    graph = tf.Graph()
    with global_config_ctx(config), graph.as_default(), tf.compat.v1.Session(graph=graph) as session:
        ph = phase("build")
        t0 = time.time()
        try:
            d = make_data(spec, lambda a: tf.constant(a))
            with TFBackend.deferred_parameter_creation():
                model, bv = _build(spec, mod, d)
            ph["behavior_version"] = bv
            TFBackend.create_parameters(model)
            params = dict(model.named_parameters())
            res["params"] = {k: [p.dims[i].dimension for i in range(len(p.dims))] for k, p in params.items()}
            variables = {k: TFBackend.get_parameter_variable(p) for k, p in params.items()}
            session.run(tf.compat.v1.global_variables_initializer())
            if loaded is not None:
                for k, var in variables.items():
                    if f"param:{k}" in loaded:
                        var.load(loaded[f"param:{k}"], session)
            for k, v in session.run(variables).items():
                arrays[f"param:{k}"] = v
            ph["ok"] = True
        except Exception as exc:
            _record_error(ph, exc)
            if finder.notes:  # the likely cause: a helper module that failed to import is a stub
                ph["error"] += f" (stubbed after their import failed: {finder.notes})"
            res["stubbed_helpers"] = finder.notes
            return _finish(args, res, arrays)
        ph["time"] = time.time() - t0

        ph = phase("train")
        t0 = time.time()
        try:
            rf.init_train_step_run_ctx(train_flag=False, step=0, epoch=1)
            train_def = _func(mod, spec.train_def)
            train_def(model=model, data=d["data"], data_spatial_dim=d["data_spatial_dim"], targets=d["targets"],
                      targets_spatial_dim=d["targets_spatial_dim"])
            fetch, grads = _train_fetches(rf.get_run_ctx(), variables)
            grad_fetch = {k: (tf.convert_to_tensor(g) if g is not None else tf.constant(0.0))
                          for k, g in grads.items()}
            ph["no_grad"] = sorted(k for k, g in grads.items() if g is None)
            out = session.run({"losses": fetch, "grads": grad_fetch})
            ph["losses"] = {k: float(v) for k, v in out["losses"].items()}
            for k, v in out["grads"].items():
                arrays[f"grad:{k}"] = np.asarray(v)
            ph["ok"] = True
        except Exception as exc:
            _record_error(ph, exc)
        ph["time"] = time.time() - t0

        ph = phase("forward") if spec.forward else {}
        t0 = time.time()
        try:
            if not spec.forward:
                raise _Skip()
            rf.init_forward_step_run_ctx(epoch=1, step=0)
            outs = {k: _zero_padding(v) for k, v in _forward_outputs(spec, model, d).items()}
            vals = session.run({k: v.raw_tensor for k, v in outs.items()})
            ph["outputs"] = {}
            for k, v in vals.items():
                arrays[f"out:{k}"] = np.asarray(v)
                ph["outputs"][k] = {"dims": [str(dim.name) for dim in outs[k].dims], "shape": list(np.shape(v))}
            ph["ok"] = True
        except _Skip:
            pass
        except Exception as exc:
            _record_error(ph, exc)
        ph["time"] = time.time() - t0

        if spec.train_steps and not args.no_train_flag:
            ph = phase("train_on")
            t0 = time.time()
            try:
                _train_steps(spec, mod, model, d, variables, session, arrays, ph)
                ph["ok"] = True
            except Exception as exc:
                _record_error(ph, exc)
            ph["time"] = time.time() - t0

    res["stubbed_helpers"] = finder.notes
    return _finish(args, res, arrays)


def _as_dims(x, dims) -> np.ndarray:
    """:return: the raw value of ``x`` in the order ``dims``, broadcast over those of ``dims`` it lacks"""
    have = [d for d in dims if d in x.dims]
    v = np.asarray(x.copy_transpose(have).raw_tensor)
    shape = [v.shape[have.index(d)] if d in have else 1 for d in dims]
    return v.reshape(shape)


def _recog(args, spec, mod, config, res, arrays, loaded, phase, finder):
    """The recog def in TF eager mode, on the parameter values of ``--params``."""
    import tensorflow as tf
    import returnn.frontend as rf
    from returnn.config import global_config_ctx
    from returnn.tf.frontend_low_level import TFBackend
    ph = phase("recog")
    t0 = time.time()
    try:
        with global_config_ctx(config):
            d = make_data(spec, lambda a: tf.constant(a))
            with TFBackend.deferred_parameter_creation():
                model, _ = _build(spec, mod, d)
            TFBackend.create_parameters(model)
            for k, p in model.named_parameters():
                TFBackend.get_parameter_variable(p).assign(loaded[f"param:{k}"])
            rf.init_forward_step_run_ctx(epoch=1, step=0)
            recog_def = _func(mod, spec.recog_def)
            hyps, scores, out_dim, beam_dim = recog_def(model=model, data=d["data"], **spec.recog_kwargs,
                                                        data_spatial_dim=d["data_spatial_dim"])
            b_dim = d["data"].dims[0]
            arrays["recog:hyps"] = _as_dims(hyps, [b_dim, beam_dim, out_dim])
            arrays["recog:scores"] = _as_dims(scores, [b_dim, beam_dim])
            if out_dim.dyn_size_ext is not None:
                arrays["recog:lens"] = _as_dims(out_dim.dyn_size_ext, [b_dim, beam_dim])
            ph["dims"] = {"hyps": [str(x.name) for x in hyps.dims], "scores": [str(x.name) for x in scores.dims]}
            ph["ok"] = True
    except Exception as exc:
        _record_error(ph, exc)
    ph["time"] = time.time() - t0
    res["stubbed_helpers"] = finder.notes
    return _finish(args, res, arrays)


def _finish(args, res, arrays):
    os.makedirs(args.out, exist_ok=True)
    np.savez(os.path.join(args.out, "arrays.npz"), **arrays)
    with open(os.path.join(args.out, "result.json"), "w") as f:
        json.dump(res, f, indent=1, default=str)
    return res


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True)
    parser.add_argument("--mirror", required=True)
    parser.add_argument("--scratch", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--params", help="arrays.npz of the other side: its parameter values are loaded")
    parser.add_argument("--phase", choices=["graph", "recog"], default="graph",
                        help="graph: build, train, forward in a TF graph; recog: the recog def in eager mode")
    parser.add_argument("--no-train-flag", action="store_true", help="skip the train-flag phase (train_on)")
    args = parser.parse_args()
    res = run(args)
    for name, ph in res["phases"].items():
        print(name, "ok" if ph["ok"] else "FAILED: " + ph.get("error", "")[:300])


if __name__ == "__main__":
    main()

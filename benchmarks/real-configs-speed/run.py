#!/usr/bin/env python3
"""Training speed of published RETURNN configs, this project vs the reference, on generated data.

For each benchmark (a config of rwth-i6/returnn-experiments, read at run time from the extracted tree in
``benchmarks/real-configs/.work/tree/``; none of its files is part of this repository), the same worker script
(``--worker``) runs under each implementation's Python, alternating (ours, reference, ours, reference, ...):

1. ``import tensorflow`` and ``returnn`` (``returnn.config``, ``returnn.tf.network``, ``returnn.tf.updater``);
2. loads the config (``Config.load_file``, with the stand-ins of ``../real-configs/build_network.py``: paths
   exist, TF1 names on ``tensorflow``; and ``DimensionTag(...)`` without ``dimension`` means a dynamic axis);
3. builds its training network (``TFNetwork(train_flag=True)``, ``construct_from_dict`` of ``network``, or of
   ``get_network(epoch=1)``, or of ``--epoch``; never the pretrain stages);
4. the gradients and the optimizer: ``Updater(config, network, learning_rate)``, ``set_trainable_vars``,
   ``get_optim_op`` (the public API both implementations share, as in their own engines);
5. the session: ours as its engine makes it (``returnn.tf.engine.session.new_session``: on CPU, Grappler off for
   graphs with loops), the reference a plain ``tf.compat.v1.Session`` (TensorFlow's default options); then the
   variable initializer;
6. training steps on random data of the config's ``extern_data`` shapes (a fixed seed; random lengths per
   sequence; sparse inputs are random class indices): ``--warmup`` steps, then ``--steps`` timed steps, each a
   ``Session.run`` of the optimizer op with the data fed to the extern-data placeholders and their lengths.

The worker prints one JSON line: the start-up parts (seconds) and the step times. The parent prints each run and a
table of ours / reference (best of ``--reps``): per-step time (median of the timed steps) and start-up (process
start to the end of the first step).

    python3 benchmarks/real-configs-speed/run.py                   # all benchmarks, best of 2
    python3 benchmarks/real-configs-speed/run.py --only conformer --reps 1
"""

from __future__ import annotations

import argparse
import json
import re
import os
import subprocess
import sys
import time
from typing import Optional

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
# the extracted tree of returnn-experiments (benchmarks/real-configs/run.py extracts it); --tree or the environment
# variable REAL_CONFIGS_TREE (which the workers inherit) point to another copy
TREE = os.environ.get("REAL_CONFIGS_TREE") or os.path.join(REPO, "benchmarks", "real-configs", ".work", "tree")

# name -> (config path in the tree, input length range (frames), target length range or "same" (frame-level
# targets on the input's time axis), batch size (sequences))
BENCHMARKS = {
    "blstm-attention": ("2019-asr-e2e-trafo-vs-lstm/switchboard/base2.conv2l.specaug4a.config",
                        (40, 60), (3, 6), 2),
    "conformer-hybrid": ("2021-swb-conformer-hybrid/tab2_num_layers/baseline_6l.config", (100, 150), "same", 2),
    "transformer-attention": ("2019-asr-e2e-trafo-vs-lstm/switchboard/"
                              "trafo.specaug4.12l.ffdim4.pretrain3a.lr0008.ctc.dr0.3.wu8.config",
                              (40, 60), (3, 6), 2),
    # the engine benchmark of ../../../shared/bench (not a published config): the same worker, for a side-by-side
    # trace of one training step (--trace)
    "ff-train": (os.path.join(os.path.dirname(REPO), "shared", "bench", "ff-train.config"), (100, 100), "same", 50),
    "ctcalign-attention": ("2020-rnn-transducer/configs/base2.conv2l.specaug4a.ctc.devtrain.config",
                           (40, 60), (3, 6), 2),
    # the RNN-T paper's model (RNA topology, trained on a fixed alignment): the alignment has one label per
    # encoder frame (time downsampled by 6: max-pooling by 3 and 2, padding "same", i.e. ceil(T / 6)), each the
    # blank (index 1030) or, on about a third of the frames, a BPE label
    "rnnt-alignment": ("2020-rnn-transducer/configs/rna3c-lm4a.convtrain.l2a_1e_4.nohdf.encbottle256."
                       "attwb5_am.dec1la-n128.decdrop03.decwdrop03.pretrain_less2_rep6.mlr50.emit2.fl2.rep.fixmask."
                       "ctcalignfix-ctcalign-p0-6l.chunk60.encctc.devtrain.config",
                       (120, 180), ("alignment", 6, 1030), 2),
    # the same with switchout of the alignment labels (most rna3c configs): random labels, some of which reach the
    # encoder CTC's target as the blank index (not in the default set: the random switchout varies the steps)
    "rnnt-alignment-switchout": ("2020-rnn-transducer/configs/rna3c-lm4a.convtrain.switchout6.l2a_1e_4.nohdf."
                                 "encbottle256.attwb5_am.dec1la-n128.decdrop03.decwdrop03.pretrain_less2_rep6.mlr50."
                                 "emit2.fl2.rep.fixmask.ctcalignfix-ctcalign-p0-6l.chunk60.encctc.devtrain.config",
                                 (120, 180), ("alignment", 6, 1030), 2),
}
DEFAULT = ["blstm-attention", "conformer-hybrid", "transformer-attention", "rnnt-alignment"]

# --batch config: the batch each published config trains with (what its user waits for per step), instead of the
# small batches above (2 sequences: a step bound by the weights, not by the frames). name -> (input length range,
# target length range or "same", sequences per batch):
# - conformer-hybrid: chunking = "500:250" cuts the sequences into chunks of 500 frames; batch_size = 16000 frames
#   of them: 32 chunks of 500 frames (a sequence's last chunk is shorter; almost every batch is full chunks).
# - blstm-attention: batch_size = 10000 frames, max_seqs = 200, batching "random": Switchboard utterances of 2-8 s
#   (200-800 frames of 10 ms) padded to the longest: 10000 // 800 = 12 sequences; BPE targets of 8-32 labels
#   (max_seq_length 75).
# - transformer-attention: batch_size = 15000 frames, otherwise as blstm-attention: 15000 // 800 = 18 sequences.
# - rnnt-alignment: batch_size = 10000 (its config), as blstm-attention: 12 sequences, the alignment as above.
CONFIG_BATCH = {
    "conformer-hybrid": ((500, 500), "same", 32),
    "blstm-attention": ((200, 800), (8, 32), 12),
    "transformer-attention": ((200, 800), (8, 32), 18),
    "ctcalign-attention": ((200, 800), (8, 32), 12),
    "rnnt-alignment": ((200, 800), ("alignment", 6, 1030), 12),
    "rnnt-alignment-switchout": ((200, 800), ("alignment", 6, 1030), 12),
}


# ---------------------------------------------------------------------------------------------- the worker


def _worker(args) -> None:
    t_main = time.time()
    times = {"interpreter": t_main - args.t0}
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    sys.path.insert(0, os.path.join(REPO, "benchmarks", "real-configs"))
    import numpy
    import returnn.tf  # noqa: F401  # TensorFlow as each implementation imports it in its rnn.py
    import tensorflow as tf

    times["returnn"] = os.path.dirname(os.path.dirname(os.path.abspath(returnn.tf.__file__)))

    tf.compat.v1.disable_eager_execution()
    from build_network import _dim_without_dimension, _install_tf1_aliases, _PathsExist

    _install_tf1_aliases(tf)
    # The configs were written for TF 1, whose tf.where selects whole rows by a vector condition (specaug's
    # random_mask relies on it); TF 2's tf.where broadcasts instead. The same stand-in on both sides: TF 1's
    # where for a vector condition with higher-rank values, else TF 2's.
    where_v2 = tf.where

    def where(condition, x=None, y=None, name=None):
        cond = tf.convert_to_tensor(condition)
        if x is not None and cond.shape.rank == 1 and tf.convert_to_tensor(x).shape.rank not in (None, 0, 1):
            return tf.compat.v1.where(cond, x, y, name=name)
        return where_v2(condition, x, y, name=name)

    tf.where = where
    _dim_without_dimension()
    t = time.time()
    times["import_tf"] = t - t_main
    from returnn.config import Config
    import returnn.config as config_mod
    from returnn.tf.network import TFNetwork
    from returnn.tf.updater import Updater
    from returnn.util.basic import BehaviorVersion

    times["import_returnn"] = time.time() - t
    t = time.time()

    config_path = os.path.join(TREE, BENCHMARKS[args.worker][0]) if args.worker in BENCHMARKS \
        else os.path.join(TREE, args.worker)  # --config: a config path in the tree
    in_range, tgt_range, batch = BENCHMARKS[args.worker][1:] if args.worker in BENCHMARKS \
        else _custom_shapes(args)
    if args.batch.split(":")[0] == "config" and args.worker in CONFIG_BATCH:  # --batch config: the config's own
        in_range, tgt_range, batch = CONFIG_BATCH[args.worker]
        if ":" in args.batch:  # --batch config:N: N sequences of the config's lengths (a smaller step, same shapes)
            batch = int(args.batch.split(":")[1])
    elif args.batch != "small" and not args.batch.startswith("config"):  # --batch N: N sequences of the benchmark's lengths
        batch = int(args.batch)
    os.chdir(os.path.dirname(config_path))
    sys.argv = ["rnn.py", config_path]
    config = Config()
    with _PathsExist():
        config.load_file(config_path)
    config.set("device", "cpu")  # the published configs say "gpu"
    for item in args.set or ():  # --set KEY=JSON, e.g. tf_amp='"bfloat16"'
        key, value = item.split("=", 1)
        config.set(key, json.loads(value))
    if hasattr(config_mod, "set_global_config"):
        config_mod.set_global_config(config)
    if config.has("behavior_version"):
        BehaviorVersion.set(config.int("behavior_version", 0))
    if config.has("network") and isinstance(config.typed_value("network"), dict):
        net_dict = config.typed_value("network")
    else:
        net_dict = config.typed_value("get_network")(epoch=args.epoch)
    if args.values:  # dropout with its own random masks in evaluation too: off on both sides
        net_dict = _without_dropout_on_forward(net_dict)
    times["config"] = time.time() - t
    t = time.time()

    graph = tf.Graph()
    with graph.as_default():
        tf.compat.v1.set_random_seed(42)
        # --values: the network in evaluation (no dropout, no SpecAugment), no optimizer; the train flag a tensor
        # (False), as the engines' networks for training and evaluation: with a Python False the reference builds
        # no rec unit of a decoder (its objective is then 0)
        train_flag = tf.compat.v1.placeholder_with_default(False, (), name="train_flag") if args.values else True
        network = TFNetwork(config=config, train_flag=train_flag, eval_flag=True)
        network.construct_from_dict(net_dict)
        times["network"] = time.time() - t
        t = time.time()
        if hasattr(network, "declare_train_params"):
            network.declare_train_params()
        train_vars = network.get_trainable_params()
        times["num_params"] = len(train_vars)
        times["param_elements"] = int(sum(numpy.prod(v.shape.as_list()) for v in train_vars))
        if args.values:
            optim_op = None
        else:
            updater = Updater(config=config, network=network,
                              initial_learning_rate=config.float("learning_rate", 1.0))
            updater.set_trainable_vars(train_vars)
            optim_op = updater.get_optim_op()
        if args.stage != "train":  # --stage: time a part of the training step (both sides the same way)
            objective = network.get_objective()
            if args.stage == "forward":
                optim_op = objective
            else:
                grads = tf.compat.v1.gradients(objective, train_vars)
                # a sum of all gradients (TensorFlow prunes the stateless ops of a tf.group fetch)
                optim_op = tf.add_n([tf.reduce_sum(tf.convert_to_tensor(g)) for g in grads if g is not None])
        times["updater"] = time.time() - t
        t = time.time()
        try:  # this project: the session its engine makes (Grappler off for graphs with loops on CPU)
            from returnn.tf.engine.session import new_session
        except ImportError:  # the reference: TensorFlow's default session options
            new_session = None
        session_opts = _paired_opts(args.session_opts, args.alt_session_opts)

        def make_session(opts: Optional[str]):
            if opts:
                config.set("tf_session_opts", json.loads(opts))
            if not new_session:
                return tf.compat.v1.Session(config=_session_proto(tf, opts))
            try:  # the session options parsed once (RunOptions), since dc321ef; the Config before
                from returnn.options import RunOptions

                return new_session(RunOptions.from_config(config), graph)
            except ImportError:
                return new_session(config, graph)

        session = make_session(session_opts)
        times["session_create"] = time.time() - t
        times["graph_ops"] = len(graph.get_operations())
        for op in graph.get_operations() if args.list_ops else ():  # --list-ops TYPE...: where those ops come from
            if op.type in args.list_ops:
                print(f"OP {op.type} {op.name} " + ",".join(str(o.shape) for o in op.outputs), flush=True)
        if args.first_noop:  # a trivial first run: what TensorFlow does once for the whole graph
            t1 = time.time()
            session.run(tf.constant(0))
            times["first_noop_run"] = time.time() - t1
        if args.trace:
            _print_trace(tf, session, tf.compat.v1.global_variables_initializer(), None, args.trace, "variable init",
                         args.trace_nodes)
        else:
            t1 = time.time()
            init_op = tf.compat.v1.global_variables_initializer()
            times["init_op"] = time.time() - t1
            session.run(init_op)
            times["global_init"] = time.time() - t1
        t1 = time.time()
        session.run(tf.compat.v1.local_variables_initializer())
        times["local_init"] = time.time() - t1
        # The reference's global step variable is in no collection: its initializer by name.
        inits = [op for op in graph.get_operations() if op.name.endswith("global_step/Assign")]
        if inits:
            session.run(inits)
        times["session"] = time.time() - t

        if args.worker not in BENCHMARKS:  # --config with "auto" shapes: decided from the built network
            in_range, tgt_range, batch = _custom_shapes(args, network)
        declared = config.typed_value("extern_data") or {}
        if not isinstance(declared, dict) or not declared:  # num_inputs / num_outputs: "data" and "classes"
            declared = dict(network.extern_data.data)
        rng = numpy.random.RandomState(42)
        key_lens = _key_lens(numpy, args.key_lens)

        def make_feed() -> dict:
            feed = {}
            in_lens = rng.randint(in_range[0], in_range[1] + 1, size=batch)
            for key in sorted(declared):
                data = network.extern_data.data[key]
                if key in key_lens:  # --key-lens: a length the config needs for this key
                    lens = key_lens[key](in_lens)
                elif tgt_range == "same" or key == "data" or not data.sparse:
                    lens = in_lens
                elif tgt_range[0] == "alignment":  # one label per downsampled input frame
                    lens = -(-in_lens // tgt_range[1])
                else:
                    lens = rng.randint(tgt_range[0], tgt_range[1] + 1, size=batch)
                shape = []
                for axis, dim in enumerate(data.batch_shape):
                    if axis == data.batch_dim_axis:
                        shape.append(batch)
                    elif dim is None:
                        shape.append(int(lens.max()))
                    else:
                        shape.append(dim)
                if data.sparse and tgt_range[0] == "alignment" and key != "data":
                    blank = tgt_range[2]
                    values = numpy.where(rng.uniform(size=shape) < 0.7, blank, rng.randint(1, blank, size=shape))
                    values[numpy.arange(shape[1])[None, :] >= lens[:, None]] = blank  # padding
                    values = values.astype(data.dtype)
                elif data.sparse:
                    values = rng.randint(1, data.dim, size=shape).astype(data.dtype)
                else:
                    values = rng.standard_normal(size=shape).astype(data.dtype)
                if args.values and data.batch_dim_axis == 0 and data.time_dim_axis == 1 and len(shape) >= 2:
                    # as a dataset's batches: zeros after each sequence's end (convolutions and pooling read the
                    # padded frames next to a sequence's end, on both sides)
                    pad = numpy.arange(shape[1])[None, :] >= lens[:, None]
                    if data.sparse and tgt_range[0] == "alignment" and key != "data":
                        pad = numpy.zeros_like(pad)  # the alignment's padding is blank (see above)
                    values[pad] = 0
                feed[data.placeholder] = values
                for size in (data.size_placeholder or {}).values():
                    feed[size] = lens.astype("int32")
            return feed

        feeds = [make_feed() for _ in range(args.warmup + args.steps)]
        if args.values:
            feeds[0] = _shared_feed(numpy, network, declared, feeds[0], os.path.join(args.values, "feed.npz"))
            _compute_values(tf, numpy, session, network, train_vars, feeds[0], args.values,
                            "ref" if new_session is None else "ours", grads=args.grads)
            print("RESULT " + json.dumps(times), flush=True)
            return
        t = time.time()
        session.run(optim_op, feed_dict=feeds[0])
        times["first_step"] = time.time() - t
        times["startup"] = time.time() - args.t0
        for feed in feeds[1:args.warmup]:
            session.run(optim_op, feed_dict=feed)
        if args.alt_session_opts:  # a paired A/B of session options: the same graph, steps alternating
            alt = make_session(_paired_opts(args.alt_session_opts, args.alt_session_opts))
            alt.run(tf.compat.v1.global_variables_initializer())
            alt.run(tf.compat.v1.local_variables_initializer())
            if inits:
                alt.run(inits)
            for feed in feeds[:args.warmup]:
                alt.run(optim_op, feed_dict=feed)
            (steps, cpu), alt_times = _time_alternating([session, alt], optim_op, feeds[args.warmup:])
            times.update({"alt_" + key: value for key, value in _step_figures(*alt_times).items()})
        else:
            (steps, cpu), = _time_alternating([session], optim_op, feeds[args.warmup:])
        if args.trace:
            _print_trace(tf, session, optim_op, feeds[-1], args.trace, "training step", args.trace_nodes,
                         dump=os.path.join(args.trace_dump, ("ours" if new_session else "ref") + ".json")
                         if args.trace_dump else None)
    times.update(_step_figures(steps, cpu))
    print("RESULT " + json.dumps(times), flush=True)


def _step_figures(steps: list, cpu: list) -> dict:
    """``step_median``, ``step_min`` (wall seconds) and ``step_cpu`` (median CPU seconds) of the timed steps"""
    steps_sorted = sorted(steps)
    return {"step_median": steps_sorted[len(steps) // 2], "step_min": steps_sorted[0],
            "step_cpu": sorted(cpu)[len(cpu) // 2]}  # median: steadier than the wall time on a loaded machine


def _time_alternating(sessions: list, fetch, feeds: list) -> list:
    """Runs ``fetch`` on each feed in each session, the sessions' order reversed every step (A B, B A, ...).

    :return: per session (wall seconds per step, CPU seconds of the whole process per step)
    """
    out = [([], []) for _ in sessions]
    for i, feed in enumerate(feeds):
        order = list(range(len(sessions)))
        for k in order if i % 2 == 0 else order[::-1]:
            t, c = time.time(), time.process_time()
            sessions[k].run(fetch, feed_dict=feed)
            out[k][0].append(time.time() - t)
            out[k][1].append(time.process_time() - c)  # CPU seconds of all the process's threads
    return out


def _paired_opts(opts: Optional[str], alt: Optional[str]) -> Optional[str]:
    """``--alt-session-opts``: both sessions with their own inter-op thread pool (``use_per_session_threads``;
    TensorFlow's global pool takes the first session's size), else ``opts`` unchanged"""
    if not alt:
        return opts
    parsed = json.loads(opts) if opts else {}
    parsed.setdefault("use_per_session_threads", True)
    return json.dumps(parsed)


def _shared_feed(numpy, network, keys, feed: dict, path: str) -> dict:
    """``--values``: the batch both sides compute on. The first side to run stores its generated ``feed`` in
    ``path`` (per extern-data key its values and its sequence lengths, ``<key>`` and ``<key>:lens``); the other
    side feeds those arrays to its own placeholders of the same keys (keys only one side has keep their own
    generated values). :return: the feed to use"""
    if not os.path.exists(path):
        stored = {}
        for key in sorted(keys):
            data = network.extern_data.data[key]
            stored[key] = feed[data.placeholder]
            sizes = list((data.size_placeholder or {}).values())
            if sizes:
                stored[key + ":lens"] = feed[sizes[0]]
        numpy.savez(path, **stored)
        return feed
    stored = numpy.load(path)
    feed = dict(feed)
    for key in sorted(keys):
        if key not in stored.files:
            continue
        data = network.extern_data.data[key]
        for placeholder in list(feed):  # the generated values of this key out, the stored ones in
            if placeholder is data.placeholder or any(placeholder is s for s in (data.size_placeholder or {}).values()):
                del feed[placeholder]
        feed[data.placeholder] = stored[key]
        for size in (data.size_placeholder or {}).values():
            feed[size] = stored[key + ":lens"]
    return feed


def _without_dropout_on_forward(value):
    """``--values``: a copy of the network dict ``value`` with every ``"dropout_on_forward": True`` set to False (the
    layer's dropout then applies in training only: both sides compute without their different random masks)."""
    if isinstance(value, dict):
        return {k: False if k == "dropout_on_forward" and v is True else _without_dropout_on_forward(v)
                for k, v in value.items()}
    return value


def _key_lens(numpy, specs) -> dict:
    """``--key-lens KEY=SPEC ...``: per extern-data key a function of the input lengths (an int array) giving the
    key's lengths. SPEC ``N``: every sequence N long (e.g. a speaker label of length 1); ``/F``: the input's length
    divided by F, rounded up (e.g. an alignment on frames downsampled by F)."""
    out = {}
    for spec in specs or ():
        key, _, value = spec.partition("=")
        if value.startswith("/"):
            out[key] = lambda lens, factor=int(value[1:]): -(-lens // factor)
        elif value.isdigit():
            out[key] = lambda lens, n=int(value): numpy.full_like(lens, n)
        else:
            raise SystemExit(f"--key-lens: expected KEY=N or KEY=/F, got {spec!r}")
    return out


def _default_input(network):
    """The network's default input data (``extern_data``'s ``default_input`` key), or where a config has no such
    key (e.g. ``audio_features`` and ``bpe_labels`` only) its first dense data, else its first data."""
    data = network.extern_data.data
    key = getattr(network.extern_data, "default_input", "data")
    if key in data:
        return data[key]
    dense = [d for _, d in sorted(data.items()) if not d.sparse]
    return dense[0] if dense else next(iter(data.values()), None)


def _custom_shapes(args, network=None):
    """``--config``'s data shapes: (input length range, ``"same"`` or target length range, batch size).

    ``auto`` (decided from the network's default input, once it is built): token input (an LM) 10-20 tokens
    with targets of the same length; raw audio (feature dim 1) 8000-12000 samples; features 60-90 frames;
    targets 5-10 labels."""
    inp = _default_input(network) if network is not None else None
    if args.input_lens != "auto":
        in_range = tuple(int(v) for v in args.input_lens.split("-"))
    elif inp is None:
        in_range = None  # decided once the network is built
    else:
        in_range = (10, 20) if inp.sparse else (8000, 12000) if inp.dim == 1 else (60, 90)
    if args.target_lens == "same" or (args.target_lens == "auto" and inp is not None and inp.sparse):
        tgt = "same"
    elif args.target_lens == "auto":
        tgt = (5, 10)
    else:
        tgt = tuple(int(v) for v in args.target_lens.split("-"))
    return in_range, tgt, 2


def _compute_values(tf, numpy, session, network, train_vars, feed, out_dir: str, side: str,
                    grads: bool = False) -> None:
    """``--values``: the first side to run (ours) stores its initial parameters in ``out_dir/params.npz``, the
    other loads them by name; each stores the objective, the total loss and constraints and the outputs of the
    top-level layers (batch-major, with their lengths) of the evaluation network on the first generated batch in
    ``out_dir/<side>.npz``."""
    fetches = {key: tf.convert_to_tensor(value, tf.float32)  # (0 without any constraint, in the reference)
               for key, value in (("objective", network.get_objective()), ("total_loss", network.get_total_loss()),
                                  ("constraints", network.get_total_constraints()))}
    for name, layer in network.layers.items():  # every layer of the top level with a dense float output
        out = layer.output
        if out.placeholder is None or out.sparse or out.dtype != "float32":
            continue
        if out.batch_dim_axis is None:  # e.g. relative positional encodings [T, T, F]
            fetches["layer:" + name] = out.placeholder
            continue
        out = out.copy_as_batch_major()
        fetches["layer:" + name] = out.placeholder
        if out.time_dim_axis == 1:  # padded frames are left out of the comparison
            fetches["lens:" + name] = out.get_sequence_lengths()
    losses, _, _ = network.get_losses_initialized()
    for loss_name, holder in losses.items():  # each loss (unscaled sum): a loop's losses too
        value = holder.get_loss_value()
        if value is not None:
            fetches["loss:" + loss_name] = tf.cast(value, tf.float32)
    if grads:  # --grads: per param the norm and the sum of the objective's gradient
        for var, grad in zip(train_vars, tf.compat.v1.gradients(fetches["objective"], train_vars)):
            if grad is not None:
                grad = tf.convert_to_tensor(grad)
                fetches["grad:" + var.name.split(":")[0]] = tf.stack([tf.norm(grad), tf.reduce_sum(grad)])
    # the objective may create variables (the reference's rec unit of the evaluation network)
    session.run(tf.compat.v1.global_variables_initializer())
    params_file = os.path.join(out_dir, "params.npz")
    by_name = {v.name.split(":")[0]: v for v in tf.compat.v1.global_variables()}
    if not os.path.exists(params_file):  # all params, also those of layers with "trainable": False
        params = list({id(v): v for v in list(train_vars) + list(network.get_params_list())}.values())
        names = [v.name.split(":")[0] for v in params]
        numpy.savez(params_file, **dict(zip(names, session.run(params))))
    else:
        stored = numpy.load(params_file)
        missing = sorted(set(stored.files) - set(by_name))
        if missing:
            raise SystemExit(f"--values: parameters of the side that ran first not in this graph: {missing[:6]}")
        for name in stored.files:
            by_name[name].load(stored[name], session)
        own = {v.name.split(":")[0] for v in list(train_vars) + list(network.get_params_list())}
        with open(os.path.join(out_dir, "params_only_in_" + side), "w") as f:  # keep their own initial values
            f.write("".join(f"{name}\n" for name in sorted(own - set(stored.files))))
    values = session.run(fetches, feed_dict=feed)
    values["__order__"] = numpy.array(list(fetches))  # the network's construction order (session.run sorts keys)
    numpy.savez(os.path.join(out_dir, f"{side}.npz"), **values)


def value_differences(numpy, out_dir: str, with_padding: bool = False) -> dict:
    """Compares the stored values of the two sides (``out_dir/ours.npz``, ``out_dir/ref.npz``).

    Layer outputs differ when ``max|ours - ref| > 1e-4 * max(max|ref|, 1)`` over the valid frames (the padded
    ones too with ``with_padding``); losses when the difference exceeds ``1e-5 * max(|ref|, 1)``; a gradient
    ([norm, sum]) when its difference exceeds 1e-3 of its norm (or of 1e-5 of the largest norm: gradients that are
    0 but for rounding). :return: ``{"differences": [(key, text)] in the network's construction order,
    "scalars": {key: (ours, ref)}, "layers"/"losses"/"grads": how many were compared}``"""
    ours, ref = numpy.load(os.path.join(out_dir, "ours.npz")), numpy.load(os.path.join(out_dir, "ref.npz"))
    order = [str(k) for k in ref["__order__"]] if "__order__" in ref.files else sorted(ref.files)
    order += [k for k in sorted(ref.files) if k not in order and k != "__order__"]
    differences, scalars = [], {}
    grad_scale = max([abs(float(ref[k][0])) for k in ref.files if k.startswith("grad:")] or [0.0])
    for key in [k for k in order if k in ours.files]:
        if key.startswith("lens:"):
            continue
        a, b = ours[key], ref[key]
        lens_key = "lens:" + key[len("layer:"):]
        if lens_key in ref.files and a.shape == b.shape and not with_padding:
            mask = numpy.arange(a.shape[1])[None, :] < ref[lens_key][:, None]
            a, b = a[mask], b[mask]
        if a.shape != b.shape:
            differences.append((key, f"{key}: shapes {a.shape} vs {b.shape}"))
            continue
        diff = float(numpy.max(numpy.abs(a - b))) if a.size else 0.0
        scale = float(numpy.max(numpy.abs(b))) if b.size else 0.0
        finite = numpy.isfinite(a) & numpy.isfinite(b)
        if not numpy.isfinite(diff) and numpy.array_equal(numpy.isfinite(a), numpy.isfinite(b)) \
                and numpy.array_equal(a[~finite], b[~finite], equal_nan=True):
            # the same infinities / NaNs on both sides: the finite entries compared
            diff = float(numpy.max(numpy.abs(a[finite] - b[finite]))) if finite.any() else 0.0
            scale = float(numpy.max(numpy.abs(b[finite]))) if finite.any() else 0.0
        if a.ndim == 0:
            scalars[key] = (float(a), float(b))
            if diff > 1e-5 * max(scale, 1.0) or not numpy.isfinite(diff):
                differences.append((key, f"{key}: ours {float(a):.6g} ref {float(b):.6g}"))
        elif key.startswith("grad:"):
            if not diff <= 1e-3 * max(abs(float(b[0])), 1e-5 * grad_scale, 1e-12) or not numpy.isfinite(diff):
                differences.append((key, f"{key}: ours {a.tolist()} ref {b.tolist()} (norm, sum)"))
        elif not diff <= 1e-4 * max(scale, 1.0):  # layers (NaN differences count)
            differences.append((key, f"{key} {tuple(ours[key].shape)}: max|diff| {diff:.3g} (max|ref| {scale:.3g})"))
    common = set(ours.files) & set(ref.files)
    both_grads = any(k.startswith("grad:") for k in ours.files) and any(k.startswith("grad:") for k in ref.files)
    only = sorted(k for k in set(ours.files) ^ set(ref.files)  # (gradients: when both sides computed them)
                  if k.startswith("loss:") or (both_grads and k.startswith("grad:")))
    if only:
        differences.append(("only", f"on one side only: {only[:5]}"))
    for side in ("ref", "ours"):
        path = os.path.join(out_dir, "params_only_in_" + side)
        extra = open(path).read().split() if os.path.exists(path) else []
        if extra:
            differences.append(("params", f"params only in {side} ({len(extra)}, their own initial values): "
                                          f"{extra[:4]}"))
    return {"differences": differences, "scalars": scalars,
            "layers": sum(1 for k in common if k.startswith("layer:")),
            "losses": sum(1 for k in common if k.startswith("loss:")),
            "grads": sum(1 for k in common if k.startswith("grad:"))}


def _compare_values(numpy, out_dir: str, name: str, with_padding: bool = False) -> str:
    """:return: a line with the objective and the values that differ between the two sides (``value_differences``)"""
    result = value_differences(numpy, out_dir, with_padding=with_padding)
    parts = [f"{key}: ours {a:.6g} ref {b:.6g} max|diff| {abs(a - b):.3g}" for key, (a, b) in result["scalars"].items()
             if not key.startswith("loss:")]
    parts += [text for key, text in result["differences"] if not (key in result["scalars"] and
                                                                  not key.startswith("loss:"))]
    what = f"{result['layers']} layers, {result['losses']} losses" + (
        f", {result['grads']} gradients" if result["grads"] else "")
    return f"VALUES {name} ({what} compared, listed if they differ): " + "; ".join(parts)


def _session_proto(tf, session_opts):
    """``tf_session_opts`` (JSON) as a ``ConfigProto`` for the reference's plain session (``None``: defaults)."""
    if not session_opts:
        return None
    from google.protobuf import json_format

    return json_format.ParseDict(json.loads(session_opts), tf.compat.v1.ConfigProto())


def _print_trace(tf, session, fetch, feed, top: int, what: str, nodes: int = 0, dump: str = None) -> None:
    """Runs ``fetch`` with a full trace; prints the ``top`` op types by summed kernel time (ms), their kernel
    count and the elements of their outputs (millions: the work of element-wise kernels, independent of the load),
    then the ``nodes`` single kernels with the most time (name, output shapes); ``dump``: a JSON file with every
    kernel (name, type, ms, output shapes)."""
    meta = tf.compat.v1.RunMetadata()
    opts = tf.compat.v1.RunOptions(trace_level=tf.compat.v1.RunOptions.FULL_TRACE)
    session.run(fetch, feed_dict=feed, options=opts, run_metadata=meta)
    by_type, by_node, count, kernels, per_type = {}, {}, 0, [], {}
    for dev in meta.step_stats.dev_stats:
        for node in dev.node_stats:
            kind = node.timeline_label.split("(")[0].split(" = ")[-1].strip() or node.node_name
            ms = (node.all_end_rel_micros or 0) / 1000.0
            by_type[kind] = by_type.get(kind, 0.0) + ms
            count += 1
            dims = [[int(d.size) for d in out.tensor_description.shape.dim] for out in node.output]
            elements = sum(int(numpy_prod(d)) for d in dims)
            n, e = per_type.get(kind, (0, 0))
            per_type[kind] = (n + 1, e + elements)
            if dump:
                kernels.append({"name": node.node_name, "type": kind, "ms": ms, "shapes": dims})
            if nodes:  # the single kernels, with their output shapes
                shapes = ",".join("x".join(str(d) for d in dim) for dim in dims)
                key = (f"{node.node_name} [{shapes}]", kind)
                by_node[key] = by_node.get(key, 0.0) + ms
    total = sum(by_type.values())
    print(f"TRACE {what}: {count} kernels, {total:.1f} ms summed", flush=True)
    for kind, ms in sorted(by_type.items(), key=lambda kv: -kv[1])[:top]:
        n, e = per_type[kind]
        print(f"TRACE {kind:40s} {ms:9.1f} ms {n:6d} kernels {e / 1e6:9.1f} M elements", flush=True)
    if dump:
        os.makedirs(os.path.dirname(dump), exist_ok=True)
        with open(dump, "w") as f:
            json.dump(kernels, f)
    for (name, kind), ms in sorted(by_node.items(), key=lambda kv: -kv[1])[:nodes]:
        print(f"TRACE NODE {ms:8.2f} ms {kind:30s} {name}", flush=True)


def numpy_prod(dims) -> int:
    """:return: the product of ``dims`` (1 for a scalar)"""
    result = 1
    for d in dims:
        result *= max(d, 0)
    return result


# ---------------------------------------------------------------------------------------------- the parent


def _set_args(python: str, args) -> list:
    """``--set`` for both sides, ``--set-ours`` for ours only, as the worker's ``--set``."""
    items = list(args.set or []) + (list(args.set_ours or []) if python == args.ours else [])
    return ["--set"] + items if items else []


def _run_one(python: str, name: str, args) -> dict:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # both sides read their bytecode caches
    # ours: the returnn of this checkout (ahead of an installed one); the reference: its venv's own
    env["PYTHONPATH"] = REPO if python == args.ours and "ours" in args.sides else ""
    env["CUDA_VISIBLE_DEVICES"] = ""
    if args.alt_session_opts:  # each session its own intra-op pool (by default the first session's is global)
        env["TF_OVERRIDE_GLOBAL_THREADPOOL"] = "1"
    t0 = time.time()
    proc = subprocess.run(
        [python, os.path.abspath(__file__), "--worker", name, "--t0", repr(t0), "--steps", str(args.steps),
         "--warmup", str(args.warmup), "--trace", str(args.trace), "--trace-nodes", str(args.trace_nodes),
         "--trace-dump", args.trace_dump or "",
         "--input-lens", args.input_lens, "--target-lens", args.target_lens, "--batch", args.batch]
        + (["--key-lens"] + list(args.key_lens) if getattr(args, "key_lens", None) else [])
        + (["--first-noop"] if args.first_noop else [])
        + (["--epoch", str(args.epoch)] if args.epoch != 1 else [])
        + (["--grads"] if args.grads else [])
        + (["--stage", args.stage] if args.stage != "train" else [])
        + (["--values", args.values] if args.values else [])
        + _set_args(python, args)
        + (["--list-ops"] + args.list_ops if args.list_ops else [])
        + (["--session-opts", args.session_opts] if args.session_opts else [])
        + (["--alt-session-opts", args.alt_session_opts] if args.alt_session_opts else []),
        cwd="/tmp", env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=args.timeout)
    wall = time.time() - t0
    for line in proc.stdout.splitlines():
        if line.startswith(("TRACE ", "OP ")):
            print(line, flush=True)
        if line.startswith("RESULT "):
            result = json.loads(line[len("RESULT "):])
            result["wall"] = wall
            return result
    sys.stderr.write(proc.stdout[-4000:])
    # TensorFlow appends the op's creation traceback to its error message: name the exception lines too
    errors = [line for line in proc.stdout.splitlines() if re.match(r"^[\w.]*(Error|Exception)\b", line)]
    sys.stderr.write("".join(f"ERROR LINE: {line[:1000]}\n" for line in errors[-3:]))
    tail = [line for line in proc.stdout.splitlines() if line.strip()][-1:]
    # the most telling line: TensorFlow's "Graph execution error:" follows the op's own message
    telling = [line for line in errors if not line.rstrip().endswith("Graph execution error:")] or errors
    return {"error": f"rc {proc.returncode}", "wall": wall, "message": (telling or tail or [""])[-1][:1000]}


PARTS = ["interpreter", "import_tf", "import_returnn", "config", "network", "updater", "session", "first_step",
         "startup", "step_median", "step_min", "step_cpu"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--t0", type=float, help=argparse.SUPPRESS)
    parser.add_argument("--only", nargs="*", help="benchmark names (substrings); default: " + " ".join(DEFAULT))
    parser.add_argument("--reps", type=int, default=2)
    parser.add_argument("--batch", default="small",
                        help="'small' (default: the sequences of BENCHMARKS, 2 per step for the published configs), "
                             "'config' (the batch the published config trains with: CONFIG_BATCH), 'config:N' (N "
                             "sequences of the config's lengths), or a number of sequences (of the benchmark's "
                             "lengths)")
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--timeout", type=int, default=900)
    parser.add_argument("--session-opts", help="tf_session_opts (JSON) for both sides, e.g. "
                                                 "'{\"intra_op_parallelism_threads\": 1}'")
    parser.add_argument("--alt-session-opts", metavar="JSON",
                        help="a second session on the same graph with these tf_session_opts (the reference: its "
                             "ConfigProto); the timed steps alternate between the two in one process (A B, B A, "
                             "...): a paired A/B of session options under a changing load; columns alt_step_median, "
                             "alt_step_min, alt_step_cpu. Both sessions get their own thread pools "
                             "(TF_OVERRIDE_GLOBAL_THREADPOOL=1, use_per_session_threads)")
    parser.add_argument("--trace", type=int, default=0,
                        help="after the timed steps, one traced step: print this many op types by kernel time")
    parser.add_argument("--trace-dump", metavar="DIR", default="",
                        help="with --trace: write every traced kernel (name, type, ms, output shapes) of the "
                             "training step to DIR/ours.json and DIR/ref.json")
    parser.add_argument("--trace-nodes", type=int, default=0,
                        help="with --trace: also print this many single kernels by time (name, output shapes)")
    parser.add_argument("--stage", default="train", choices=["train", "forward", "gradients"],
                        help="what the timed steps run: the optimizer step (default), only the forward pass to the "
                             "network's objective, or the objective's gradients without the update")
    parser.add_argument("--values", metavar="DIR",
                        help="instead of timing: the evaluation network's objective and top-level layer outputs on "
                             "the first generated batch (zero-padded), with the same parameters on both sides (ours' "
                             "initial ones, stored in DIR/<benchmark>/params.npz); prints the differences")
    parser.add_argument("--config", nargs="*", metavar="PATH",
                        help="configs of the tree (paths in benchmarks/real-configs/.work/tree) instead of the named "
                             "benchmarks, with generated data of --input-lens frames and --target-lens labels")
    parser.add_argument("--input-lens", default="40-60",
                        help="with --config: input length range (frames), or 'auto' (from the default input: "
                             "tokens 10-20, raw audio 8000-12000 samples, features 60-90 frames)")
    parser.add_argument("--target-lens", default="3-6",
                        help="with --config: target length range, 'same' for frame-level targets, or 'auto' (5-10 "
                             "labels, the input's length for token input; with --values: 'same' when ours fails "
                             "with labels, e.g. a hybrid)")
    parser.add_argument("--key-lens", nargs="*", default=[], metavar="KEY=SPEC",
                        help="with --config: per extern-data key its sequence length: N (each sequence N long, e.g. "
                             "a speaker label of length 1) or /F (the input's length divided by F, rounded up, e.g. "
                             "an alignment on downsampled frames)")
    parser.add_argument("--with-padding", action="store_true",
                        help="with --values: compare the padded frames of the layer outputs too (convolutions and "
                             "pooling read them)")
    parser.add_argument("--keep-values", action="store_true",
                        help="with --values: keep the stored arrays (DIR/<config>/*.npz) after the comparison")
    parser.add_argument("--grads", action="store_true",
                        help="with --values: also compare the gradient of the objective (norm and sum per param)")
    parser.add_argument("--epoch", type=int, default=1,
                        help="configs with get_network(epoch): the network of this epoch (default 1)")
    parser.add_argument("--first-noop", action="store_true", help="time a trivial first Session.run (own column)")
    parser.add_argument("--set", nargs="*", metavar="KEY=JSON",
                        help="config values for both sides, e.g. tf_amp='\"bfloat16\"' (with --sides ours)")
    parser.add_argument("--list-ops", nargs="*", metavar="TYPE",
                        help="print the graph's ops of these types (name, output shapes), e.g. Transpose")
    parser.add_argument("--set-ours", nargs="*", default=[], metavar="KEY=JSON",
                        help="config values for ours only, e.g. tf_amp='\"bfloat16\"' against the reference's float32")
    parser.add_argument("--sides", nargs="*", default=["ours", "ref"], help="which sides to run (ours, ref)")
    parser.add_argument("--ours", default=sys.executable,
                        help="Python for this project (its worker imports the returnn of this checkout first)")
    parser.add_argument("--ref", default="/tmp/refvenv/bin/python", help="Python of the reference's venv")
    parser.add_argument("--tree", default=TREE,
                        help="the extracted tree of returnn-experiments (default: $REAL_CONFIGS_TREE, else "
                             "benchmarks/real-configs/.work/tree, which benchmarks/real-configs/run.py extracts)")
    args = parser.parse_args()
    if args.worker:
        _worker(args)
        return
    if not os.path.isdir(args.tree):
        raise SystemExit(f"no config tree at {args.tree}: extract it with benchmarks/real-configs/run.py (see its "
                         "README), or pass --tree DIR / set REAL_CONFIGS_TREE")
    os.environ["REAL_CONFIGS_TREE"] = os.path.abspath(args.tree)  # the workers' TREE
    names = [n for n in BENCHMARKS if any(s in n for s in args.only)] if args.only else DEFAULT
    if args.config:
        names = list(args.config)
    if args.values:
        _values_main(args, names)
        return
    table = []
    for name in names:
        best = {}
        for rep in range(args.reps):
            for side, python in (("ours", args.ours), ("ref", args.ref)):
                if side not in args.sides:
                    continue
                load = os.getloadavg()[0]
                result = _run_one(python, name, args)
                result["load"] = load
                print(f"{name} {side} rep {rep}: " + json.dumps({k: round(v, 3) if isinstance(v, float) else v
                                                                 for k, v in result.items()}), flush=True)
                if "error" in result:
                    continue
                for key in PARTS:
                    if key in result:
                        best.setdefault(side, {})[key] = min(best.get(side, {}).get(key, 1e9), result[key])
        table.append((name, best))
    print("\n| benchmark | side | " + " | ".join(PARTS) + " |")
    print("|---|---|" + "---|" * len(PARTS))
    for name, best in table:
        for side in ("ours", "ref"):
            if side in best:
                print(f"| {name} | {side} | " + " | ".join(f"{best[side].get(k, float('nan')):.2f}" for k in PARTS)
                      + " |")
        if "ours" in best and "ref" in best:
            print(f"| {name} | ratio | " + " | ".join(
                f"{best['ours'][k] / best['ref'][k]:.2f}" if best["ref"].get(k) else "" for k in PARTS) + " |")


def _values_main(args, names) -> None:
    """``--values DIR``: per benchmark, ours then the reference in evaluation with the same parameters; prints the
    objective, total loss and constraints of both sides and the top-level layers whose outputs differ."""
    import numpy

    base = os.path.abspath(args.values)
    for name in names:
        out_dir = os.path.join(base, name.lstrip(os.sep))  # a config outside the tree: its absolute path
        os.makedirs(out_dir, exist_ok=True)
        failed = _values_sides(args, name, out_dir)
        if failed and failed[0] == args.ours and args.target_lens == "auto":  # e.g. a hybrid: frame-level targets
            print(f"VALUES {name}: retried with targets of the input's length", flush=True)
            failed = _values_sides(argparse.Namespace(**{**vars(args), "target_lens": "same"}), name, out_dir)
        if failed:
            print(f"VALUES {name}: {failed[0]} failed ({failed[1]})", flush=True)
        else:
            print(_compare_values(numpy, out_dir, name, with_padding=args.with_padding), flush=True)
        if not args.keep_values:  # the arrays of a large model take gigabytes
            for old in ("params.npz", "feed.npz", "ours.npz", "ref.npz"):
                if os.path.exists(os.path.join(out_dir, old)):
                    os.remove(os.path.join(out_dir, old))


def _values_sides(args, name: str, out_dir: str):
    """Runs ``--values`` for ours, then the reference. :return: None, or (the Python that failed, its error)"""
    for old in ("params.npz", "feed.npz", "ours.npz", "ref.npz", "params_only_in_ref", "params_only_in_ours"):
        if os.path.exists(os.path.join(out_dir, old)):
            os.remove(os.path.join(out_dir, old))
    for python in (args.ours, args.ref):
        sub = argparse.Namespace(**{**vars(args), "values": out_dir, "steps": 0, "warmup": 1, "trace": 0})
        result = _run_one(python, name, sub)
        if "error" in result:
            return python, result["error"]
    return None


if __name__ == "__main__":
    main()

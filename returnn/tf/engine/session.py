"""TF session setup: device selection (``device``), ``tf_session_opts``, thread counts.

Config keys (as the reference):

* ``device``: ``"cpu"`` or ``"gpu"`` (also ``"gpu0"`` ...); unset → GPU when TensorFlow sees one, else CPU.
  The environment variable ``TF_DEVICE`` overrides it. ``gpu`` without a visible GPU raises
  :class:`~returnn.errors.ConfigValueError`.
* ``tf_session_opts``: dict for ``tf.compat.v1.ConfigProto`` (e.g. ``{"gpu_options": {"allow_growth": True},
  "intra_op_parallelism_threads": 2}``); unknown fields raise :class:`~returnn.errors.ConfigValueError`.

On CPU, for graphs with time loops and unless ``tf_session_opts`` has ``graph_options``, Grappler (TensorFlow's
graph rewriter, run at the first ``Session.run`` of every fetch set) is switched off: measured on 2 cores it
costs 0.6 s of the first step of ``blstm-train`` (1.17 s -> 0.53 s) and 0.25 s of the 12AX demo, with no
change in the time per step of ``blstm-train``, the 12AX demo or ``search-train`` (see benchmarks/README.md).
Graphs without loops keep it: it costs little there, and its remapper fuses ``MatMul`` + ``BiasAdd`` + ``Relu``
of the ``linear`` layers into one oneDNN kernel (``ff-train`` ~1 % faster). Pass
``tf_session_opts = {"graph_options": {}}`` to keep TensorFlow's default rewrites in any case.

On CPU, unless ``tf_session_opts`` has ``graph_options``, TensorFlow's classic graph optimizer runs without
constant folding (``OptimizerOptions`` level ``L0`` with common subexpression elimination, which the default level
``L1`` also does): at the first run of each fetch set, constant folding evaluates every constant subgraph,
among them the initial values of all zero-initialized variables (biases, and the optimizer's slots: Adam's two per
trainable variable) to replace them by constants of the full size. Measured on 2 cores (benchmarks/real-configs-
speed/README.md): the variable initialization of the published BLSTM-attention config (6 BLSTM layers of 1024
per direction, Adam) 6.7-8.4 s -> 0.73-0.75 s, with the same time per step; 24 zero-initialized 3072x4096
variables alone 3.55 -> 0.76 s.

Thread pools on CPU: TensorFlow's default splits every op over all cores (``intra_op_parallelism_threads`` =
cores). When the graph has time loops (``tf.while_loop`` s with a product, convolution or LSTM cell per iteration:
recurrent layers, rec units, search; :func:`count_time_loops`; a loop of element-wise ops only, such as the
SpecAugment masking of published configs, is none) and
``tf_session_opts`` sets neither thread count, each op runs on one core instead and independent ops run side
by side (``intra_op_parallelism_threads = 1``, ``inter_op_parallelism_threads`` = cores): the many small
per-step ops of a loop do not gain from being split, while the two directions of a BLSTM, the gradient ops
and the steps of :mod:`~returnn.tf.engine.runner`'s inference passes run in parallel. Measured on 2 cores
(benchmarks/README.md): ``blstm-train`` 8.2 -> 6.9 s per epoch, a unidirectional variant 7.9 -> 6.6 s,
``search`` 24 -> 18 s; ``ff-train`` (no loop; large matmuls) keeps the default, it would lose 30 %.
"""

from __future__ import annotations

import os
from typing import Any, Dict, Optional

import tensorflow as tf

from returnn.errors import ConfigValueError
from returnn.log import log
from returnn.options import RunOptions

tf1 = tf.compat.v1


def get_device_kind(run: RunOptions) -> str:
    """``"cpu"`` or ``"gpu"``: what the run uses (the environment variable ``TF_DEVICE``, else config ``device``).

    :raises ConfigValueError: ``device`` is not cpu/gpu, or ``gpu`` requested but no GPU is visible
    """
    device = os.environ.get("TF_DEVICE") or run.device
    has_gpu = bool(tf.config.list_physical_devices("GPU"))
    if not device:
        if not has_gpu:
            print("Device not set explicitly, and no GPU found.", file=log.v2)
        return "gpu" if has_gpu else "cpu"
    device = str(device).lower()
    if device.startswith("cpu"):
        return "cpu"
    if device.startswith("gpu") or device.startswith("cuda"):
        if not has_gpu:
            raise ConfigValueError("device", expected="'cpu' on this machine: TensorFlow sees no GPU "
                                                      "(CUDA_VISIBLE_DEVICES=%r)" % os.environ.get("CUDA_VISIBLE_DEVICES"),
                                   got=device, suggestions=["cpu"])
        return "gpu"
    raise ConfigValueError("device", expected="'cpu' or 'gpu'", got=device)


_THREAD_KEYS = ("intra_op_parallelism_threads", "inter_op_parallelism_threads")


_HEAVY_LOOP_OPS = ("MatMul", "BatchMatMul", "BatchMatMulV2", "BatchMatMulV3", "Einsum", "Conv2D", "Conv3D",
                   "DepthwiseConv2dNative", "BlockLSTM", "BlockLSTMV2", "LSTMBlockCell", "GRUBlockCell")


def count_while_loops(graph: Optional["tf.Graph"]) -> int:
    """:return: number of ``tf.while_loop`` s in ``graph`` (v1 control flow: ``LoopCond`` ops; v2: ``While``)"""
    if graph is None:
        return 0
    return sum(1 for op in graph.get_operations() if op.type in ("LoopCond", "While", "StatelessWhile"))


def count_time_loops(graph: Optional["tf.Graph"]) -> int:
    """:return: the number of loops of ``graph`` that compute a product or convolution (or an LSTM/GRU cell) per
    iteration: recurrent layers, rec units, search over frames or labels. Not counted: loops of small element-wise
    ops only, e.g. the SpecAugment of published configs (a few masking iterations over a whole batch). v1 loops:
    the ops reachable from a loop frame's ``Enter`` ops up to its ``Exit`` ops; v2 ``While`` ops always count."""
    if graph is None:
        return 0
    frames: Dict[str, list] = {}
    count = 0
    for op in graph.get_operations():
        if op.type in ("While", "StatelessWhile"):
            count += 1
        elif op.type in ("Enter", "RefEnter"):
            frames.setdefault(op.get_attr("frame_name"), []).append(op)
    for enters in frames.values():
        seen, todo = set(), list(enters)
        heavy = False
        while todo and not heavy:
            op = todo.pop()
            if op.name in seen:
                continue
            seen.add(op.name)
            if op.type in _HEAVY_LOOP_OPS:
                heavy = True
            elif op.type not in ("Exit", "RefExit"):
                todo.extend(c for out in op.outputs for c in out.consumers())
        count += heavy
    return count


def make_session_config(run: RunOptions, device_kind: str, graph: Optional["tf.Graph"] = None) -> "tf1.ConfigProto":
    """The ``ConfigProto`` for the session from ``tf_session_opts``, the device and (CPU thread pools, see the
    module docstring) the graph.

    :raises ConfigValueError: ``tf_session_opts`` is not a dict or has unknown fields
    """
    from google.protobuf import json_format

    opts: Dict[str, Any] = dict(run.tf_session_opts or {})
    opts.setdefault("log_device_placement", False)
    loops = count_time_loops(graph) if device_kind == "cpu" else 0
    if device_kind == "cpu":
        opts.setdefault("device_count", {"GPU": 0})
        if loops and not any(key in opts for key in _THREAD_KEYS):
            cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
            opts.update(intra_op_parallelism_threads=1, inter_op_parallelism_threads=cores)
            print(f"CPU threads: one per op, {cores} ops side by side (the graph has {loops} time loops).",
                  file=log.v4)
    try:
        proto = json_format.ParseDict(_camel_keys(opts), tf1.ConfigProto())
    except json_format.ParseError as exc:
        raise ConfigValueError("tf_session_opts", expected="fields of tf.compat.v1.ConfigProto "
                                                           "(e.g. gpu_options, intra_op_parallelism_threads)",
                               got=opts, hint=str(exc)) from exc
    print(f"Setup TF session with options {opts} ...", file=log.v2)
    if device_kind == "cpu" and "graph_options" not in opts:
        # No constant folding by the classic graph optimizer: it evaluates every constant subgraph at the first
        # run of each fetch set, i.e. the zeros of all optimizer slots at the variable initialization (see the
        # module docstring). Common subexpression elimination stays on, as at TensorFlow's default level L1.
        proto.graph_options.optimizer_options.opt_level = tf1.OptimizerOptions.L0
        proto.graph_options.optimizer_options.do_common_subexpression_elimination = True
        if loops:
            proto.graph_options.rewrite_options.disable_meta_optimizer = True
    return proto


def _camel_keys(value: Any) -> Any:
    # json_format accepts the proto field names as written (snake_case) too; keep as-is but copy dicts
    if isinstance(value, dict):
        return {str(k): _camel_keys(v) for k, v in value.items()}
    return value


def new_session(run: RunOptions, graph: "tf.Graph", device_kind: Optional[str] = None, *,
                strategy=None) -> "tf1.Session":
    """A new ``tf.compat.v1.Session`` on ``graph`` configured from ``run`` (``tf_session_opts``, ``device``), made by ``strategy`` (in multi-process
    training it connects to this worker's TensorFlow server; default: :func:`returnn.tf.distributed.get_strategy`)."""
    from returnn.tf.distributed.strategy import get_strategy

    if device_kind is None:
        device_kind = get_device_kind(run)
    proto = make_session_config(run, device_kind, graph)
    return (strategy or get_strategy()).new_session(graph, proto)

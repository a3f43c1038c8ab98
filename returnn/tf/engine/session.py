"""TF session setup: device selection (``device``), ``tf_session_opts``, thread counts.

Config keys (as the reference):

* ``device``: ``"cpu"`` or ``"gpu"`` (also ``"gpu0"`` ...); unset → GPU when TensorFlow sees one, else CPU.
  The environment variable ``TF_DEVICE`` overrides it. ``gpu`` without a visible GPU raises
  :class:`~returnn.errors.ConfigValueError`.
* ``tf_session_opts``: dict for ``tf.compat.v1.ConfigProto`` (e.g. ``{"gpu_options": {"allow_growth": True},
  "intra_op_parallelism_threads": 2}``); unknown fields raise :class:`~returnn.errors.ConfigValueError`.

On CPU, unless ``tf_session_opts`` has ``graph_options``, Grappler (TensorFlow's graph rewriter, run at the
first ``Session.run`` of every fetch set) is switched off: measured on 2 cores it costs 0.6 s of the first
step of ``blstm-train`` (1.17 s -> 0.53 s) and 0.25 s of the 12AX demo, with no change in the time per step
of ``blstm-train``, ``ff-train``, the 12AX demo or ``search-train`` (see benchmarks/README.md). Pass
``tf_session_opts = {"graph_options": {}}`` to keep TensorFlow's default rewrites.
"""

from __future__ import annotations

import os
from typing import Any, Dict, Optional

import tensorflow as tf

from returnn.errors import ConfigValueError
from returnn.log import log

tf1 = tf.compat.v1


def get_device_kind(config) -> str:
    """``"cpu"`` or ``"gpu"``: what the run uses.

    :raises ConfigValueError: ``device`` is not cpu/gpu, or ``gpu`` requested but no GPU is visible
    """
    device = os.environ.get("TF_DEVICE") or config.value("device", None)
    has_gpu = bool(tf.config.list_physical_devices("GPU"))
    if not device:
        if not has_gpu:
            print("Device not set explicitly, and no GPU found.", file=log.v4)
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


def make_session_config(config, device_kind: str) -> "tf1.ConfigProto":
    """The ``ConfigProto`` for the session from ``tf_session_opts`` and the device.

    :raises ConfigValueError: ``tf_session_opts`` is not a dict or has unknown fields
    """
    from google.protobuf import json_format

    opts: Dict[str, Any] = dict(config.typed_value("tf_session_opts", None) or {})
    if not isinstance(opts, dict):
        raise ConfigValueError("tf_session_opts", expected="a dict of tf.compat.v1.ConfigProto fields", got=opts)
    opts.setdefault("log_device_placement", False)
    if device_kind == "cpu":
        opts.setdefault("device_count", {"GPU": 0})
    try:
        proto = json_format.ParseDict(_camel_keys(opts), tf1.ConfigProto())
    except json_format.ParseError as exc:
        raise ConfigValueError("tf_session_opts", expected="fields of tf.compat.v1.ConfigProto "
                                                           "(e.g. gpu_options, intra_op_parallelism_threads)",
                               got=opts, hint=str(exc)) from exc
    print(f"Setup TF session with options {opts} ...", file=log.v4)
    if device_kind == "cpu" and "graph_options" not in opts:
        proto.graph_options.rewrite_options.disable_meta_optimizer = True
    return proto


def _camel_keys(value: Any) -> Any:
    # json_format accepts the proto field names as written (snake_case) too; keep as-is but copy dicts
    if isinstance(value, dict):
        return {str(k): _camel_keys(v) for k, v in value.items()}
    return value


def new_session(config, graph: "tf.Graph", device_kind: Optional[str] = None) -> "tf1.Session":
    """A new ``tf.compat.v1.Session`` on ``graph`` configured from ``config``; in multi-process training it
    connects to this worker's TensorFlow server (see :func:`returnn.tf.distributed.session_target`)."""
    from returnn.tf import distributed as dist

    if device_kind is None:
        device_kind = get_device_kind(config)
    proto = make_session_config(config, device_kind)
    if dist.is_active():
        return tf1.Session(dist.session_target(), graph=graph, config=dist.make_session_config(proto))
    return tf1.Session(graph=graph, config=proto)

#!/usr/bin/env python3
"""The GPU pass's raw-TensorFlow baselines: the models of ``bench.config`` written directly in TensorFlow (graph
mode, one ``Session.run`` of Adam's update per step, as the engine runs them), timed on one fixed batch.

Usage::

    python3 benchmarks/gpu/raw_tf.py [--models ff,blstm-block,blstm-cudnn] [--steps 30] [--warmup 5]
        [--dtype float32|float16|bfloat16] [--device gpu|cpu] [--tiny] [--json OUT.json]

Models (shapes of ``bench.config``'s batches):

- ``ff``: input [50, 100, 40] -> 3 x dense relu 1024 -> dense 500, softmax cross-entropy;
- ``blstm-block``: input [40, 50, 9] (12AX chunks) -> 3 bidirectional LSTM layers of 256 cells with TensorFlow's
  fused ``BlockLSTMV2`` kernel (what this project's ``nativelstm2`` / ``cudnnlstm`` units run on a GPU) -> dense 2;
- ``blstm-cudnn``: the same with ``CudnnRNNV3`` (cuDNN's LSTM; GPU only, skipped on CPU).

``--dtype float16`` / ``bfloat16`` computes the matmuls (and the LSTM kernels for float16) in that dtype with float32
variables and, for float16, a fixed loss scale of 2**12 (the time of a dynamic scale's extra ops is small).
``--tiny``: small sizes (a CPU check of the script). Prints one line per model and writes ``--json``.
"""

from __future__ import annotations

import argparse
import json
import os
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402


def _build_ff(tf, x, y, dtype, dim):
    h = x
    for i in range(3):
        w = tf.compat.v1.get_variable("w%i" % i, [int(h.shape[-1]), dim])
        b = tf.compat.v1.get_variable("b%i" % i, [dim], initializer=tf.zeros_initializer())
        h = tf.nn.relu(tf.cast(tf.matmul(tf.cast(h, dtype), tf.cast(w, dtype)), tf.float32) + b)
    w = tf.compat.v1.get_variable("wo", [dim, 500])
    logits = tf.cast(tf.matmul(tf.cast(h, dtype), tf.cast(w, dtype)), tf.float32)
    return tf.reduce_sum(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))


def _lstm_block(tf, x, seq_len, n, dtype, name):
    """x [T, B, n_in] time-major -> [T, B, n] with BlockLSTMV2 (float32 unless float16)."""
    n_in = int(x.shape[-1])
    kdtype = tf.float16 if dtype == tf.float16 else tf.float32
    w = tf.compat.v1.get_variable(name + "/W", [n_in + n, 4 * n])
    b = tf.compat.v1.get_variable(name + "/b", [4 * n], initializer=tf.zeros_initializer())
    batch = tf.shape(x)[1]
    zeros = tf.zeros([batch, n], kdtype)
    out = tf.raw_ops.BlockLSTMV2(seq_len_max=tf.cast(tf.shape(x)[0], tf.int64), x=tf.cast(x, kdtype),
                                 cs_prev=zeros, h_prev=zeros, w=tf.cast(w, kdtype), wci=tf.zeros([n], kdtype),
                                 wcf=tf.zeros([n], kdtype), wco=tf.zeros([n], kdtype), b=tf.cast(b, kdtype),
                                 cell_clip=0.0, use_peephole=False)
    h = tf.cast(out[6], tf.float32)
    mask = tf.sequence_mask(seq_len, tf.shape(x)[0], dtype=tf.float32)
    return h * tf.transpose(mask)[:, :, None]


def _lstm_cudnn(tf, x, seq_len, n, dtype, name):
    """x [T, B, n_in] time-major -> [T, B, n] with cuDNN (CudnnRNNV3, sequence lengths given)."""
    n_in = int(x.shape[-1])
    kdtype = tf.float16 if dtype == tf.float16 else tf.float32
    kernel = tf.compat.v1.get_variable(name + "/kernel", [n_in, 4 * n])
    rec = tf.compat.v1.get_variable(name + "/recurrent", [n, 4 * n])
    bias = tf.compat.v1.get_variable(name + "/bias", [8 * n], initializer=tf.zeros_initializer())
    weights = tf.split(kernel, 4, axis=1) + tf.split(rec, 4, axis=1)
    flat = [tf.reshape(tf.transpose(w), [-1]) for w in weights] + tf.split(bias, 8)
    params = tf.cast(tf.concat(flat, axis=0), kdtype)
    batch = tf.shape(x)[1]
    zeros = tf.zeros([1, batch, n], kdtype)
    out = tf.raw_ops.CudnnRNNV3(input=tf.cast(x, kdtype), input_h=zeros, input_c=zeros, params=params,
                                sequence_lengths=seq_len, rnn_mode="lstm", input_mode="linear_input",
                                direction="unidirectional", is_training=True, time_major=True)
    return tf.cast(out[0], tf.float32)


def _reverse(tf, x, seq_len):
    return tf.reverse_sequence(x, seq_len, seq_axis=0, batch_axis=1)


def _build_blstm(tf, x, y, seq_len, dtype, cell):
    h = tf.transpose(x, [1, 0, 2])  # [T, B, n_in]
    for i in range(3):
        fwd = cell(tf, h, seq_len, 256, dtype, "l%i_fwd" % i)
        bwd = _reverse(tf, cell(tf, _reverse(tf, h, seq_len), seq_len, 256, dtype, "l%i_bwd" % i), seq_len)
        h = tf.concat([fwd, bwd], axis=-1)
    w = tf.compat.v1.get_variable("wo", [512, 2])
    logits = tf.cast(tf.matmul(tf.cast(tf.reshape(h, [-1, 512]), dtype), tf.cast(w, dtype)), tf.float32)
    mask = tf.reshape(tf.transpose(tf.sequence_mask(seq_len, tf.shape(h)[0], dtype=tf.float32)), [-1])
    ce = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.reshape(tf.transpose(y), [-1]), logits=logits)
    return tf.reduce_sum(ce * mask)


def run_model(name: str, steps: int, warmup: int, dtype_name: str, device: str, tiny: bool):
    """:return: dict with the model, dtype, min / median seconds per step"""
    import tensorflow as tf

    tf.compat.v1.disable_eager_execution()
    dtype = {"float32": tf.float32, "float16": tf.float16, "bfloat16": tf.bfloat16}[dtype_name]
    rng = np.random.RandomState(42)
    with tf.Graph().as_default() as graph, tf.device("/GPU:0" if device == "gpu" else "/CPU:0"):
        if name == "ff":
            batch, time_len, dim = (4, 10, 64) if tiny else (50, 100, 1024)
            x = tf.constant(rng.randn(batch, time_len, 40).astype("float32"))
            y = tf.constant(rng.randint(0, 500, size=(batch, time_len)).astype("int32"))
            loss = _build_ff(tf, x, y, dtype, dim)
        elif name.startswith("blstm-"):
            batch, time_len = (4, 10) if tiny else (40, 50)
            x = tf.constant(rng.randn(batch, time_len, 9).astype("float32"))
            y = tf.constant(rng.randint(0, 2, size=(batch, time_len)).astype("int32"))
            lens = rng.randint(time_len // 2, time_len + 1, size=batch)
            lens[0] = time_len
            seq_len = tf.constant(lens.astype("int32"))
            cell = {"blstm-block": _lstm_block, "blstm-cudnn": _lstm_cudnn}[name]
            loss = _build_blstm(tf, x, y, seq_len, dtype, cell)
        else:
            raise ValueError("unknown model %r" % name)
        scale = 2.0 ** 12 if dtype == tf.float16 else 1.0
        opt = tf.compat.v1.train.AdamOptimizer(0.0005)
        grads_vars = opt.compute_gradients(loss * scale)
        train_op = opt.apply_gradients([(g / scale, v) for g, v in grads_vars if g is not None])
        init = tf.compat.v1.global_variables_initializer()
    cfg = tf.compat.v1.ConfigProto(allow_soft_placement=False)
    cfg.gpu_options.allow_growth = True
    with tf.compat.v1.Session(graph=graph, config=cfg) as sess:
        sess.run(init)
        for _ in range(warmup):
            sess.run(train_op)
        times = []
        for _ in range(steps):
            start = time.perf_counter()
            sess.run(train_op)
            times.append(time.perf_counter() - start)
    return {"model": name, "dtype": dtype_name, "device": device, "steps": steps,
            "min_step_s": float(np.min(times)), "median_step_s": float(np.median(times))}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", default="ff,blstm-block,blstm-cudnn", help="comma-separated (see the docstring)")
    parser.add_argument("--steps", type=int, default=30, help="timed steps (default 30)")
    parser.add_argument("--warmup", type=int, default=5, help="untimed steps first (default 5)")
    parser.add_argument("--dtype", default="float32", choices=["float32", "float16", "bfloat16"])
    parser.add_argument("--device", default="gpu", choices=["gpu", "cpu"])
    parser.add_argument("--tiny", action="store_true", help="small sizes (a quick check on CPU)")
    parser.add_argument("--json", help="write the results as a JSON list to this file")
    args = parser.parse_args()
    results = []
    for name in args.models.split(","):
        if name == "blstm-cudnn" and args.device != "gpu":
            print("raw_tf %s: skipped (cuDNN needs a GPU)" % name, flush=True)
            results.append({"model": name, "dtype": args.dtype, "device": args.device, "skipped": "needs a GPU"})
            continue
        try:
            res = run_model(name, args.steps, args.warmup, args.dtype, args.device, args.tiny)
        except Exception as exc:  # reported, the other models still run
            res = {"model": name, "dtype": args.dtype, "device": args.device,
                   "error": "%s: %s" % (type(exc).__name__, str(exc).splitlines()[0] if str(exc) else "")}
        results.append(res)
        print("raw_tf " + json.dumps(res), flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()

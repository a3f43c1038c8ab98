#!/usr/bin/env python3
"""Micro-benchmark of the LSTM kernels (forward + gradient) on the ``blstm-train`` shapes.

Usage::

    python3 benchmarks/lstm/bench_lstm.py [--impls loop,block] [--batch 40] [--time 50] [--n-in 512]
        [--n-out 256] [--reps 10] [--threads 0] [--min-len 25]

For every implementation it builds ``y, _ = lstm(x, seq_len, W, W_re, b)`` and
``tf.gradients(sum(y * r), [x, W, W_re, b])`` and times one ``Session.run`` of the gradients (minimum
and median over ``--reps`` after 2 warm-up runs). It prints the time per call, the GFLOP/s of the
LSTM's matmul work (forward ``2*T*B*4n*(n_in+n)`` flops, backward twice that) and, for comparison,
the GFLOP/s of one plain matmul with the same total size ``[T*B, n_in+n] x [n_in+n, 4n]``, and a
large square matmul (``--peak-size``) as the machine's matmul peak. Also an ``epoch-equivalent``:
the estimated LSTM time of one ``blstm-train`` epoch (27 steps x 6 layers: 2 with n_in 9, 4 with 512;
the reference logs 27 steps for that epoch). ``--network`` times the real 6-layer stack per step.
Sequence lengths: one of length ``--time``, the others uniform in [``--min-len``, ``--time``] (default
``time // 2``: about 76% real frames; ``--min-len 15``: about 66%, like ``blstm-train``'s chunked batches, 64%).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

tf.compat.v1.disable_eager_execution()


def _time_run(sess, fetch, feed, reps):
    for _ in range(2):
        sess.run(fetch, feed_dict=feed)
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        sess.run(fetch, feed_dict=feed)
        times.append(time.perf_counter() - start)
    return min(times), float(np.median(times))


def _session(threads):
    cfg = tf.compat.v1.ConfigProto()
    if threads:
        cfg.intra_op_parallelism_threads = threads
        cfg.inter_op_parallelism_threads = threads
    return tf.compat.v1.Session(config=cfg)


def bench_matmul(m, k, n, reps, threads):
    """:return: (min seconds, GFLOP/s) of one [m,k]x[k,n] matmul"""
    with tf.Graph().as_default():
        a = tf.Variable(np.random.randn(m, k).astype("float32"))
        b = tf.Variable(np.random.randn(k, n).astype("float32"))
        y = tf.reduce_sum(tf.matmul(a, b))
        with _session(threads) as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            t, _ = _time_run(sess, y, {}, reps)
    return t, 2. * m * k * n / t / 1e9


def _seq_lens(rng, batch, time_len, min_len=None):
    min_len = time_len // 2 if min_len is None else min_len
    return np.array([time_len] + list(rng.randint(min_len, time_len + 1, size=batch - 1)), dtype="int32")


def bench_lstm(impl, batch, time_len, n_in, n_out, reps, threads, direction=1, device=None, with_grad=True,
               min_len=None):
    """:return: (min seconds, median seconds) of forward+gradient"""
    from returnn.tf.ops.rnn.lstm import lstm
    rng = np.random.RandomState(1)
    lens = _seq_lens(rng, batch, time_len, min_len)
    with tf.Graph().as_default():
        with tf.device(device) if device else _nullctx():
            x = tf.compat.v1.placeholder(tf.float32, [None, None, n_in])
            seq_len = tf.compat.v1.placeholder(tf.int32, [None])
            w = tf.Variable(rng.uniform(-.1, .1, (n_in, 4 * n_out)).astype("float32"))
            w_re = tf.Variable(rng.uniform(-.1, .1, (n_out, 4 * n_out)).astype("float32"))
            b = tf.Variable(np.zeros(4 * n_out, "float32"))
            y, _ = lstm(x, seq_len, w, w_re, b, direction=direction, impl=impl)
            loss = tf.reduce_sum(y * tf.constant(rng.randn(time_len, batch, n_out).astype("float32")))
            grads = tf.gradients(loss, [x, w, w_re, b])
            fetch = [tf.reduce_sum(g) for g in grads] if with_grad else tf.reduce_sum(y)
        feed = {x: rng.randn(time_len, batch, n_in).astype("float32"), seq_len: lens}
        with _session(threads) as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            return _time_run(sess, fetch, feed, reps)


def bench_blstm_network(impl, batch, time_len, n_out, reps, threads, steps=27, min_len=None):
    """The blstm-train network's LSTM part: 3 layers x (fwd, bwd), input 9-dim, forward + all param gradients.

    :return: (min seconds per step, estimated LSTM seconds per epoch = ``steps`` x that)
    """
    from returnn.tf.ops.rnn.lstm import lstm
    rng = np.random.RandomState(1)
    lens = _seq_lens(rng, batch, time_len, min_len)
    with tf.Graph().as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None, None, 9])
        seq_len = tf.compat.v1.placeholder(tf.int32, [None])
        params = []
        inp = x
        for layer in range(3):
            outs = []
            for direction in (1, -1):
                n_in = int(inp.shape[-1])
                w = tf.Variable(rng.uniform(-.1, .1, (n_in, 4 * n_out)).astype("float32"))
                w_re = tf.Variable(rng.uniform(-.1, .1, (n_out, 4 * n_out)).astype("float32"))
                b = tf.Variable(np.zeros(4 * n_out, "float32"))
                params += [w, w_re, b]
                outs.append(lstm(inp, seq_len, w, w_re, b, direction=direction, impl=impl)[0])
            inp = tf.concat(outs, axis=-1)
        loss = tf.reduce_sum(inp * tf.constant(rng.randn(time_len, batch, 2 * n_out).astype("float32")))
        fetch = [tf.reduce_sum(g) for g in tf.gradients(loss, params)]
        feed = {x: rng.randn(time_len, batch, 9).astype("float32"), seq_len: lens}
        with _session(threads) as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            t_min, _ = _time_run(sess, fetch, feed, reps)
    return t_min, steps * t_min


class _nullctx:
    def __enter__(self):
        return self

    def __exit__(self, *args):
        return False


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--impls", default="loop,block")
    parser.add_argument("--batch", type=int, default=40)
    parser.add_argument("--time", type=int, default=50)
    parser.add_argument("--n-in", type=int, default=512)
    parser.add_argument("--n-out", type=int, default=256)
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--min-len", type=int, default=None, help="shortest sequence (default: time // 2)")
    parser.add_argument("--peak-size", type=int, default=2048)
    parser.add_argument("--device", default=None, help="e.g. /gpu:0")
    parser.add_argument("--network", action="store_true",
                        help="also time the whole 3-layer BLSTM (LSTM part) of blstm-train per step / epoch (27 steps)")
    args = parser.parse_args()
    b, t, n_in, n = args.batch, args.time, args.n_in, args.n_out
    _, peak = bench_matmul(args.peak_size, args.peak_size, args.peak_size, max(3, args.reps // 2), args.threads)
    mm_t, mm_gflops = bench_matmul(t * b, n_in + n, 4 * n, args.reps, args.threads)
    print(f"matmul peak {args.peak_size}^3: {peak:.0f} GFLOP/s; "
          f"[{t * b},{n_in + n}]x[{n_in + n},{4 * n}]: {mm_gflops:.0f} GFLOP/s")
    flops = 3 * 2. * t * b * 4 * n * (n_in + n)
    print(f"shapes: B={b} T={t} n_in={n_in} n_out={n}; fwd+bwd {flops / 1e9:.2f} GFLOP per call")
    for impl in args.impls.split(","):
        opts = dict(device=args.device, min_len=args.min_len)
        t_min, t_med = bench_lstm(impl, b, t, n_in, n, args.reps, args.threads, **opts)
        t_small, _ = bench_lstm(impl, b, t, 9, n, args.reps, args.threads, **opts)
        t_fwd, _ = bench_lstm(impl, b, t, n_in, n, args.reps, args.threads, with_grad=False, **opts)
        epoch = 27 * (2 * t_small + 4 * t_min)
        print(f"{impl:8s} fwd+bwd {t_min * 1e3:7.1f} ms (median {t_med * 1e3:7.1f} ms), "
              f"{flops / t_min / 1e9:6.1f} GFLOP/s = {100 * flops / t_min / 1e9 / peak:4.1f}% of peak; "
              f"fwd only {t_fwd * 1e3:6.1f} ms; n_in=9: {t_small * 1e3:6.1f} ms; blstm-train epoch-equivalent {epoch:5.2f} s")
        if args.network:
            step, epoch = bench_blstm_network(impl, b, t, n, args.reps, args.threads, min_len=args.min_len)
            net_flops = 27 * 3 * 2. * t * b * 4 * n * (2 * (9 + n) + 4 * (2 * n + n))
            print(f"{impl:8s} 3-layer BLSTM fwd+bwd {step * 1e3:7.1f} ms/step, x27 steps = {epoch:5.2f} s/epoch, "
                  f"{net_flops / epoch / 1e9:6.1f} GFLOP/s")


if __name__ == "__main__":
    main()

"""A tiny tf.compat.v1 training run used by the distributed tests (started as 2 processes).

Usage: worker_script.py MODE OUTDIR   (worker discovery via TF_CONFIG, as set by tools/launch-distributed.py)

Model: linear regression ``y = x W + b`` (W [3, 2], b [2], float32), loss = mean squared error of the batch,
plain SGD (lr 0.1). Data: ``NUM_SEQS`` fixed random sequences (one frame each), sharded over the workers
(every N-th), batches of 2. Each rank starts from a different random init; the broadcast from rank 0 makes
them equal. MODE:

* ``grad``: gradient all-reduce each step (with a weight-0 step for a worker whose shard is exhausted)
* ``param``: local steps, parameter averaging every 2 updates
* ``die``: as ``grad``, but rank 1 kills itself (SIGKILL) after its 2nd step
* ``mismatch``: rank 1 builds W with shape [3, 3] -> the graph check fails on both
Writes OUTDIR/rank<N>.npz with the final W, b, the own init W_init, the broadcast start W_start/b_start,
and the sequence indices this worker trained on.
"""

import os
import signal
import sys

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))

NUM_SEQS = 13
BATCH = 2
LR = 0.1


def make_data():
    rnd = np.random.RandomState(42)
    x = rnd.normal(size=(NUM_SEQS, 3)).astype("float32")
    y = rnd.normal(size=(NUM_SEQS, 2)).astype("float32")
    return x, y


def main():
    mode, outdir = sys.argv[1], sys.argv[2]
    import tensorflow as tf
    from returnn.config import Config
    from returnn.errors import ReturnnError
    import returnn.tf.distributed as dist

    tf.compat.v1.disable_eager_execution()
    config = Config({"distributed": True, "horovod_reduce_type": "param" if mode == "param" else "grad",
                     "horovod_param_sync_step": 2, "distributed_collective_timeout": 10.0,
                     "distributed_start_timeout": 60.0})
    try:
        dist.init(config)
        rank, size = dist.rank(), dist.size()
        x_all, y_all = make_data()
        graph = tf.Graph()
        with graph.as_default():
            tf.compat.v1.set_random_seed(100 + rank)  # different init per rank
            n_out = 3 if (mode == "mismatch" and rank == 1) else 2
            w = tf.compat.v1.get_variable("W", [3, n_out], initializer=tf.compat.v1.random_normal_initializer())
            b = tf.compat.v1.get_variable("b", [n_out], initializer=tf.compat.v1.random_normal_initializer())
            x = tf.compat.v1.placeholder(tf.float32, [None, 3])
            y = tf.compat.v1.placeholder(tf.float32, [None, 2])
            out = tf.matmul(x, w) + b
            loss = tf.reduce_mean(tf.reduce_sum(tf.square(out[:, :2] - y), axis=1))
            opt = tf.compat.v1.train.GradientDescentOptimizer(LR)
            grads_and_vars = opt.compute_gradients(loss, [w, b])
            weight = dist.make_grad_weight_placeholder()
            if mode != "param":
                grads_and_vars = dist.allreduce_gradients(grads_and_vars, weight=weight)
            train_op = opt.apply_gradients(grads_and_vars)
            bcast = dist.broadcast_variables_op([w, b])
            average = dist.average_variables_op([w, b])
            init = tf.compat.v1.global_variables_initializer()
        session = tf.compat.v1.Session(dist.session_target(), graph=graph,
                                       config=dist.make_session_config())
        session.run(init)
        w_init = session.run(w)
        dist.check_same_graph(dist.describe_variables([w, b]))
        with dist.collective_errors("the parameter broadcast"):
            session.run(bcast)
        w_start, b_start = session.run([w, b])
        seqs = dist.shard_seq_order(list(range(NUM_SEQS)))
        batches = [seqs[i:i + BATCH] for i in range(0, len(seqs), BATCH)]
        seen, step, last = [], 0, batches[0]
        while True:
            has = step < len(batches)
            if dist.num_workers_with_data(has) == 0:
                break
            batch = batches[step] if has else last
            with dist.collective_errors(f"train step {step}"):
                session.run(train_op, {x: x_all[batch], y: y_all[batch], weight: 1.0 if has else 0.0})
                if has:
                    seen.extend(batch)
                    last = batch
                if dist.is_param_sync_step(step + 1):
                    session.run(average)
            step += 1
            print(f"rank {rank}: step {step} done", flush=True)
            if mode == "die" and rank == 1 and step == 2:
                os.kill(os.getpid(), signal.SIGKILL)
        if mode == "param" and not dist.is_param_sync_step(step):
            with dist.collective_errors("final param average"):
                session.run(average)
        dist.barrier("end")
        w_val, b_val = session.run([w, b])
        tmp = os.path.join(outdir, f"rank{rank}.tmp.npz")
        np.savez(tmp, W=w_val, b=b_val, W_init=w_init, W_start=w_start, b_start=b_start, seen=np.array(seen), steps=step)
        os.replace(tmp, os.path.join(outdir, f"rank{rank}.npz"))
        print(f"rank {rank}: finished", flush=True)
    except ReturnnError as exc:
        print(f"{type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
        sys.exit(1)


if __name__ == "__main__":
    main()

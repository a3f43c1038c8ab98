"""Two real worker processes on loopback (tests/tf/distributed/worker_script.py): gradient all-reduce and
parameter averaging give identical parameters equal to a numpy simulation, a killed worker makes the other
stop with a DistributedError, and differing graphs are detected at start."""

import importlib.util
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
SCRIPT = os.path.join(HERE, "worker_script.py")
LAUNCHER = os.path.join(REPO, "tools", "launch-distributed.py")
GUARD_S = 150  # hang guard only; a correct run takes seconds


def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


worker = _load(SCRIPT, "distributed_worker_script")
launcher = _load(LAUNCHER, "launch_distributed")


def _run_launcher(mode, outdir):
    proc = subprocess.run([sys.executable, LAUNCHER, "-n", "2", "--", sys.executable, SCRIPT, mode, str(outdir)],
                          capture_output=True, text=True, timeout=GUARD_S)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return [np.load(os.path.join(outdir, f"rank{r}.npz")) for r in range(2)]


def _grad(w, b, x, y):
    """Gradients of mean_n sum_d (x W + b - y)^2."""
    err = x @ w + b - y
    n = len(x)
    return 2 * x.T @ err / n, 2 * err.sum(0) / n


def _batches(rank):
    seqs = list(range(worker.NUM_SEQS))[rank::2]
    return [seqs[i:i + worker.BATCH] for i in range(0, len(seqs), worker.BATCH)]


def test_grad_allreduce_two_workers(tmp_path):
    res = _run_launcher("grad", tmp_path)
    assert not np.allclose(res[0]["W_init"], res[1]["W_init"])  # different own inits ...
    np.testing.assert_array_equal(res[0]["W_start"], res[1]["W_start"])  # ... made equal by the broadcast
    np.testing.assert_array_equal(res[0]["W_start"], res[0]["W_init"])
    np.testing.assert_array_equal(res[0]["W"], res[1]["W"])
    np.testing.assert_array_equal(res[0]["b"], res[1]["b"])
    # shard: every 2nd sequence, the union is the whole epoch
    assert list(res[0]["seen"]) == list(range(0, 13, 2)) and list(res[1]["seen"]) == list(range(1, 13, 2))
    # numpy: each step averages the per-worker batch gradients of the workers that still have data
    x, y = worker.make_data()
    w, b = res[0]["W_start"].astype("float64"), res[0]["b_start"].astype("float64")
    per_rank = [_batches(0), _batches(1)]
    assert (len(per_rank[0]), len(per_rank[1])) == (4, 3)  # rank 1 runs its last step with weight 0
    for step in range(4):
        grads = [_grad(w, b, x[bt[step]], y[bt[step]]) for bt in per_rank if step < len(bt)]
        w = w - worker.LR * np.mean([g[0] for g in grads], axis=0)
        b = b - worker.LR * np.mean([g[1] for g in grads], axis=0)
    assert int(res[0]["steps"]) == int(res[1]["steps"]) == 4
    np.testing.assert_allclose(res[0]["W"], w, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(res[0]["b"], b, rtol=1e-4, atol=1e-5)


def test_param_averaging_two_workers(tmp_path):
    res = _run_launcher("param", tmp_path)
    np.testing.assert_array_equal(res[0]["W"], res[1]["W"])
    x, y = worker.make_data()
    start = (res[0]["W_start"].astype("float64"), res[0]["b_start"].astype("float64"))
    params = [list(start), list(start)]
    per_rank = [_batches(0), _batches(1)]
    for step in range(4):  # local SGD; a worker without data re-runs its last batch (weight unused here)
        for r in range(2):
            bt = per_rank[r][step] if step < len(per_rank[r]) else per_rank[r][-1]
            gw, gb = _grad(params[r][0], params[r][1], x[bt], y[bt])
            params[r] = [params[r][0] - worker.LR * gw, params[r][1] - worker.LR * gb]
        if (step + 1) % 2 == 0:  # horovod_param_sync_step = 2
            avg = [(params[0][i] + params[1][i]) / 2 for i in range(2)]
            params = [list(avg), list(avg)]
    np.testing.assert_allclose(res[0]["W"], params[0][0], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(res[1]["b"], params[0][1], rtol=1e-4, atol=1e-5)


def _spawn_pair(mode, outdir):
    hosts = [f"127.0.0.1:{p}" for p in launcher.free_ports(2, "127.0.0.1")]
    procs = [subprocess.Popen([sys.executable, SCRIPT, mode, str(outdir)], env=launcher.worker_env(r, hosts),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for r in range(2)]
    outs = []
    for p in procs:
        try:
            outs.append(p.communicate(timeout=GUARD_S))
        except subprocess.TimeoutExpired:
            for q in procs:
                q.kill()
            raise
    return procs, outs


def test_killed_worker_stops_the_other(tmp_path):
    procs, outs = _spawn_pair("die", tmp_path)
    assert procs[1].returncode == -9
    assert procs[0].returncode == 1, outs[0][1][-3000:]
    err = outs[0][1]
    assert "DistributedError: distributed training: worker 0 of 2" in err
    assert "Most likely another worker died or hangs (collective timeout 10 s" in err
    assert not os.path.exists(os.path.join(tmp_path, "rank0.npz"))


def test_graph_mismatch_detected(tmp_path):
    procs, outs = _spawn_pair("mismatch", tmp_path)
    assert [p.returncode for p in procs] == [1, 1], outs[0][1][-2000:] + outs[1][1][-2000:]
    for _, err in outs:
        assert "model parameters differ between workers: worker(s) [1] do not match worker 0" in err
    assert "first difference (item 0): worker 0 has 'W:0 [3, 2] float32', this worker has 'W:0 [3, 3] float32'" \
        in outs[1][1]

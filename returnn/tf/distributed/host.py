"""Collectives on numpy values from Python (not inside the model graph): scores, flags, the graph check.

They run in a small private graph and session on this worker's server, so they can be used anywhere in
the engine without touching its graph. Ops are built once per (kind, name, shape, dtype) and cached; every
worker must call the same functions with the same shapes in the same order. Failures raise
:class:`~returnn.errors.DistributedError`. With a single worker all are identities.
"""

from __future__ import annotations

import hashlib
from typing import Dict, Optional, Sequence

import numpy as np

from returnn.errors import DistributedError

from . import cluster, collectives
from .failures import collective_errors


class _HostCollectives:
    def __init__(self):
        import tensorflow as tf

        self.graph = tf.Graph()
        self.session = tf.compat.v1.Session(cluster.session_target(), graph=self.graph,
                                            config=cluster.make_session_config())
        self.ops: Dict[tuple, tuple] = {}

    def run(self, kind: str, name: str, value: np.ndarray, **kwargs) -> np.ndarray:
        import tensorflow as tf

        value = np.asarray(value)
        cache_key = (kind, name, value.shape, value.dtype.str, tuple(sorted(kwargs.items())))
        if cache_key not in self.ops:
            with self.graph.as_default():
                scope = f"host_{kind}_{name}_{'x'.join(map(str, value.shape)) or 'scalar'}_{value.dtype.name}"
                placeholder = tf.compat.v1.placeholder(value.dtype, value.shape, name=scope + "_in")
                fn = {"allreduce": collectives.allreduce, "broadcast": collectives.broadcast,
                      "allgather": collectives.allgather}[kind]
                self.ops[cache_key] = (placeholder, fn(placeholder, name=scope, **kwargs))
        placeholder, out = self.ops[cache_key]
        with collective_errors(f"the {kind} {name!r}"):
            return self.session.run(out, {placeholder: value})


_host: Optional[_HostCollectives] = None


def _get_host() -> _HostCollectives:
    global _host
    if _host is None:
        _host = _HostCollectives()
    return _host


def host_allreduce(value, name: str, *, op: str = "sum", average: bool = False, timeout: Optional[float] = None):
    """:func:`~.collectives.allreduce` of a numpy value. ``name`` identifies the call site."""
    value = np.asarray(value)
    if not cluster.is_active():
        return value.copy()
    return _get_host().run("allreduce", name, value, op=op, average=average, timeout=timeout)


def host_broadcast(value, name: str, root_rank: int = 0, timeout: Optional[float] = None):
    """:func:`~.collectives.broadcast` of a numpy value (same shape/dtype on all workers)."""
    value = np.asarray(value)
    if not cluster.is_active():
        return value.copy()
    return _get_host().run("broadcast", name, value, root_rank=root_rank, timeout=timeout)


def host_allgather(value, name: str, timeout: Optional[float] = None):
    """:func:`~.collectives.allgather` of a numpy value [n, ...] → [size * n, ...]."""
    value = np.asarray(value)
    if not cluster.is_active():
        return value.copy()
    return _get_host().run("allgather", name, value, timeout=timeout)


def barrier(name: str = "barrier", timeout: Optional[float] = None) -> None:
    """Returns when every worker called ``barrier`` with the same ``name`` (e.g. at the end of an epoch).

    :param timeout: seconds; default ``distributed_start_timeout``
    :raises DistributedError: a peer did not arrive in time
    """
    host_allreduce(np.int32(1), "barrier_" + name, timeout=timeout or cluster.options().start_timeout)


def num_workers_with_data(has_data: bool) -> int:
    """Number of workers that still have a batch for the next step (synchronized epoch end).

    Call once per step on every worker before running the step. 0 → the epoch ended everywhere; between 1 and
    size-1 → this worker, if it has no batch, runs a step with gradient weight 0 (see
    :func:`~.training.allreduce_gradients`) so the others' all-reduce is matched.
    """
    return int(host_allreduce(np.int32(1 if has_data else 0), "num_workers_with_data"))


def sum_scores(scores: Dict[str, float]) -> Dict[str, float]:
    """Sum of each score over all workers (keys sorted; all workers must pass the same keys).

    For dev/eval scores pass the per-worker sums (loss sum, frame count) and divide afterwards, so the result
    equals the score over the whole dataset.
    """
    keys = sorted(scores)
    if not keys:
        return {}
    summed = host_allreduce(np.array([float(scores[k]) for k in keys], dtype=np.float64), f"scores_{len(keys)}")
    return {k: float(v) for k, v in zip(keys, summed)}


def average_scores(scores: Dict[str, float]) -> Dict[str, float]:
    """Mean of each score over all workers (keys sorted; all workers must pass the same keys)."""
    return {k: v / cluster.size() for k, v in sum_scores(scores).items()}


def _digest(lines: Sequence[str]) -> np.ndarray:
    digest = hashlib.sha256("\n".join(lines).encode("utf8")).digest()
    return np.frombuffer(digest[:16], dtype=np.int64).copy()


def check_same_graph(lines: Sequence[str], what: str = "model parameters") -> None:
    """Verifies that every worker built the same model: exchanges a hash of ``lines`` (e.g.
    :func:`~.training.describe_variables`) and, on a mismatch, rank 0's lines, so each differing worker can
    name the first difference.

    :param lines: description of this worker's graph, one item per line
    :raises DistributedError: on every worker, when any two workers differ (naming the differing ranks and,
        on those, the first differing line)
    """
    if not cluster.is_active():
        return
    own = _digest(lines)
    gathered = host_allgather(np.concatenate([own, [len(lines)]]), "graph_hash").reshape(cluster.size(), 3)
    differing = [r for r in range(cluster.size()) if not np.array_equal(gathered[r], gathered[0])]
    if not differing:
        return
    text = np.frombuffer("\n".join(lines).encode("utf8"), dtype=np.uint8).astype(np.int32)
    length = int(host_broadcast(np.array([len(text)], np.int32), "graph_desc_len")[0])
    root_text = host_broadcast(text if cluster.rank() == 0 else np.zeros([length], np.int32), "graph_desc")
    root_lines = root_text.astype(np.uint8).tobytes().decode("utf8").split("\n")
    detail = ""
    if cluster.rank() in differing:
        for i in range(max(len(lines), len(root_lines))):
            mine = lines[i] if i < len(lines) else "<none>"
            theirs = root_lines[i] if i < len(root_lines) else "<none>"
            if mine != theirs:
                detail = f"\n  first difference (item {i}): worker 0 has {theirs!r}, this worker has {mine!r}"
                break
    raise DistributedError(
        f"distributed training: the {what} differ between workers: worker(s) {differing} do not match worker 0 "
        f"({int(gathered[0, 2])} vs " + ", ".join(str(int(gathered[r, 2])) for r in differing)
        + f" items).{detail}\n  All workers must run the same config (and the same code).")


def reset_for_tests() -> None:
    """Drop the private session (unit tests only)."""
    global _host
    _host = None

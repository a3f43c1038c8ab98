"""Worker discovery: who am I (rank), how many are we (size), and at which ``host:port`` does each worker
listen for TensorFlow's gRPC server.

Sources, tried in this order:

1. **mpirun / mpiexec**: detected from the MPI launcher's environment (``OMPI_COMM_WORLD_SIZE``,
   ``PMI_SIZE``, ``PMIX_RANK``, ``MV2_COMM_WORLD_SIZE``). ``mpi4py`` is used only to exchange the
   ``host:port`` of every worker (one ``allgather`` at start); all training traffic goes through TensorFlow.
   Each worker picks a free port on its host name (``socket.gethostname()``; override the advertised
   address with ``RETURNN_DIST_HOST``).
2. **TF_CONFIG**: the standard TensorFlow cluster spec, e.g.
   ``{"cluster": {"worker": ["host1:2222", "host2:2222"]}, "task": {"type": "worker", "index": 0}}``.
   A ``"chief"`` job, if present, becomes rank 0 and the workers follow in order.
   ``tools/launch-distributed.py`` sets ``TF_CONFIG`` (plus ``RETURNN_DIST_LOCAL_RANK``) for each process.
3. Nothing found: a single worker (rank 0 of 1); collectives are identities.

Local rank (index among the workers on the same host, e.g. to pick a GPU): ``RETURNN_DIST_LOCAL_RANK`` or
``OMPI_COMM_WORLD_LOCAL_RANK`` when set, else the number of lower ranks with the same host name.
"""

from __future__ import annotations

import dataclasses
import json
import os
import socket
from typing import Dict, List, Optional

from returnn.errors import DistributedError

MPI_SIZE_ENV_VARS = ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "MV2_COMM_WORLD_SIZE")


@dataclasses.dataclass(frozen=True)
class WorkerInfo:
    """Where this process sits in the job.

    :ivar rank: 0-based index of this worker; rank 0 writes checkpoints, logs and the learning-rate file
    :ivar size: number of workers
    :ivar local_rank: index among the workers on the same host
    :ivar hosts: ``host:port`` of every worker, indexed by rank (empty for a single worker)
    :ivar source: ``"mpi"``, ``"tf_config"`` or ``"single"``
    """

    rank: int = 0
    size: int = 1
    local_rank: int = 0
    hosts: tuple = ()
    source: str = "single"


def find_free_port(host: str = "") -> int:
    """A TCP port that was free on ``host`` a moment ago (bound to port 0 and released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def _host_of(address: str) -> str:
    return address.rsplit(":", 1)[0]


def _local_rank(rank: int, hosts: List[str], env: Dict[str, str]) -> int:
    for key in ("RETURNN_DIST_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID"):
        if env.get(key, "").strip().isdigit():
            return int(env[key])
    own = _host_of(hosts[rank])
    return sum(1 for other in hosts[:rank] if _host_of(other) == own)


def parse_tf_config(text: str, env: Optional[Dict[str, str]] = None) -> WorkerInfo:
    """Parses a ``TF_CONFIG`` JSON string.

    :raises DistributedError: not JSON, no ``cluster`` with a ``worker`` (or ``chief``) list of
        ``host:port`` strings, or a ``task`` whose type/index is not in the cluster
    """
    env = os.environ if env is None else env
    try:
        spec = json.loads(text)
    except ValueError as exc:
        raise DistributedError(f"TF_CONFIG is not valid JSON ({exc}): {text!r}") from None
    cluster = spec.get("cluster") if isinstance(spec, dict) else None
    task = spec.get("task") if isinstance(spec, dict) else None
    if not isinstance(cluster, dict) or not isinstance(task, dict):
        raise DistributedError('TF_CONFIG: expected {"cluster": {"worker": ["host:port", ...]}, '
                               f'"task": {{"type": "worker", "index": i}}}}, got {text!r}')
    jobs = [job for job in ("chief", "worker") if cluster.get(job)]
    unknown = sorted(set(cluster) - {"chief", "worker", "evaluator"})
    if not jobs or unknown:
        raise DistributedError("TF_CONFIG: the cluster must list its workers under 'worker' (and optionally one "
                               f"'chief'); got jobs {sorted(cluster)}. Parameter servers are not supported: "
                               "training is all-reduce data parallel.")
    hosts: List[str] = []
    offsets = {}
    for job in jobs:
        entries = cluster[job]
        if not isinstance(entries, list) or not all(isinstance(h, str) and ":" in h for h in entries):
            raise DistributedError(f"TF_CONFIG: cluster[{job!r}] must be a list of 'host:port' strings, "
                                   f"got {entries!r}")
        offsets[job] = len(hosts)
        hosts.extend(entries)
    task_type, index = task.get("type"), task.get("index", 0)
    if task_type not in offsets or not isinstance(index, int) or not 0 <= index < len(cluster[task_type]):
        raise DistributedError(f"TF_CONFIG: task {task!r} is not in the cluster (jobs: "
                               + ", ".join(f"{job} x{len(cluster[job])}" for job in jobs) + ")")
    rank = offsets[task_type] + index
    return WorkerInfo(rank=rank, size=len(hosts), local_rank=_local_rank(rank, hosts, env), hosts=tuple(hosts),
                      source="tf_config")


def _mpi_size_from_env(env: Dict[str, str]) -> int:
    for key in MPI_SIZE_ENV_VARS:
        if env.get(key, "").strip().isdigit():
            return int(env[key])
    return 0


def discover_from_mpi(env: Optional[Dict[str, str]] = None) -> Optional[WorkerInfo]:
    """Rank/size/addresses from MPI, or None when not started by mpirun (or started with one process).

    :raises DistributedError: started by mpirun with several processes but ``mpi4py`` is not installed
    """
    env = os.environ if env is None else env
    if _mpi_size_from_env(env) <= 1:
        return None
    try:
        from mpi4py import MPI  # noqa: imported only when mpirun started us
    except ImportError:
        raise DistributedError(
            f"started by mpirun/mpiexec with {_mpi_size_from_env(env)} processes, but mpi4py is not installed, "
            "which is needed to exchange the workers' addresses. Install it (pip install mpi4py), or launch "
            "with TF_CONFIG or tools/launch-distributed.py instead.") from None
    comm = MPI.COMM_WORLD
    host = env.get("RETURNN_DIST_HOST") or socket.gethostname()
    address = f"{host}:{find_free_port()}"
    hosts = comm.allgather(address)
    rank = comm.Get_rank()
    return WorkerInfo(rank=rank, size=comm.Get_size(), local_rank=_local_rank(rank, hosts, env),
                      hosts=tuple(hosts), source="mpi")


def discover_workers(env: Optional[Dict[str, str]] = None) -> WorkerInfo:
    """This process's :class:`WorkerInfo`, from mpirun, then ``TF_CONFIG``, else a single worker.

    :raises DistributedError: inconsistent or unusable launcher environment (see the helpers above)
    """
    env = os.environ if env is None else env
    info = discover_from_mpi(env)
    if info is not None:
        return info
    if env.get("TF_CONFIG", "").strip():
        return parse_tf_config(env["TF_CONFIG"], env)
    return WorkerInfo()

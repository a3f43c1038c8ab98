"""The process-wide distributed state: this worker's :class:`~.discovery.WorkerInfo`, its
``tf.distribute.Server`` (gRPC), and the session target/config every session must use.

Recipe (graph mode, ``tf.compat.v1``): every worker starts one ``tf.distribute.Server`` for the cluster
``{"worker": [host:port of each rank]}`` with its own task index; sessions connect to the worker's own
server (``server.target``) with a ``ConfigProto`` whose ``experimental.collective_group_leader`` is
``/job:worker/replica:0/task:0`` and whose ``device_filters`` restrict the session to the worker's own task
(so each worker runs its own copy of the graph; only the collective ops talk to the peers, by
``group_key``/``instance_key``).
"""

from __future__ import annotations

import dataclasses
import socket
import time
from typing import Optional

from returnn.errors import DistributedError
from returnn.log import log

from .discovery import WorkerInfo, discover_workers
from .options import DistributedOptions, get_options

JOB_NAME = "worker"
GROUP_LEADER = f"/job:{JOB_NAME}/replica:0/task:0"


@dataclasses.dataclass
class _State:
    info: WorkerInfo = dataclasses.field(default_factory=WorkerInfo)
    options: DistributedOptions = dataclasses.field(default_factory=DistributedOptions)
    server: object = None  # tf.distribute.Server, only when size > 1
    initialized: bool = False


_state = _State()


def get_state() -> _State:
    """The process-wide state (single worker, disabled, until :func:`init` ran)."""
    return _state


def rank() -> int:
    """0-based index of this worker (0 when not distributed)."""
    return _state.info.rank


def size() -> int:
    """Number of workers (1 when not distributed)."""
    return _state.info.size


def local_rank() -> int:
    """Index of this worker among those on the same host (0 when not distributed)."""
    return _state.info.local_rank


def is_active() -> bool:
    """Whether :func:`init` set up more than one worker (collectives really communicate)."""
    return _state.initialized and _state.info.size > 1


def options() -> DistributedOptions:
    """The options read by :func:`init` (defaults, ``enabled=False``, before that)."""
    return _state.options


def local_device() -> str:
    """Device string of this worker's CPU, where the collective ops are placed."""
    return f"/job:{JOB_NAME}/replica:0/task:{_state.info.rank}/device:CPU:0"


def wait_for_peers(hosts, own_rank: int, timeout: float) -> None:
    """Blocks until every other worker accepts TCP connections on its ``host:port``.

    :raises DistributedError: some worker is not reachable after ``timeout`` seconds (names them)
    """
    deadline = time.monotonic() + timeout
    pending = [(r, h) for r, h in enumerate(hosts) if r != own_rank]
    while pending:
        still = []
        for r, address in pending:
            host, port = address.rsplit(":", 1)
            try:
                with socket.create_connection((host, int(port)), timeout=2.0):
                    pass
            except OSError:
                still.append((r, address))
        pending = still
        if not pending:
            return
        if time.monotonic() > deadline:
            raise DistributedError(
                f"worker {own_rank}: worker(s) " + ", ".join(f"{r} ({a})" for r, a in pending)
                + f" did not come up within {timeout:g} s (config key 'distributed_start_timeout'). "
                  "Check that all workers were started with the same cluster spec.")
        time.sleep(0.2)


def init(config, *, info: Optional[WorkerInfo] = None) -> WorkerInfo:
    """Sets up distributed training when the config enables it (``use_horovod`` or ``distributed``).

    Discovers the workers (:func:`~.discovery.discover_workers`), starts this worker's gRPC server and
    waits until all peers listen. Idempotent: a second call returns the same info. Without the keys set,
    or with a single worker, nothing is started and all collectives are identities.

    :param config: :class:`returnn.config.Config`
    :param info: use this instead of discovering (tests)
    :raises ConfigValueError: invalid distributed config keys
    :raises DistributedError: inconsistent launcher environment, port in use, or peers not reachable
    """
    if _state.initialized:
        return _state.info
    opts = get_options(config)
    _state.options = opts
    if not opts.enabled:
        _state.initialized = True
        return _state.info
    info = info or discover_workers()
    _state.info = info
    if info.size > 1:
        import tensorflow as tf

        cluster = tf.train.ClusterSpec({JOB_NAME: list(info.hosts)})
        try:
            _state.server = tf.distribute.Server(cluster, job_name=JOB_NAME, task_index=info.rank,
                                                 config=make_session_config(), start=True)
        except Exception as exc:  # e.g. UnknownError: could not bind port
            raise DistributedError(f"worker {info.rank}: cannot start the TensorFlow server on "
                                   f"{info.hosts[info.rank]}: {exc}") from None
        wait_for_peers(info.hosts, info.rank, opts.start_timeout)
    _state.initialized = True
    print(f"Distributed training: worker {info.rank} of {info.size} (local rank {info.local_rank}, "
          f"via {info.source}), reduce type {opts.reduce_type!r}, dataset distribution "
          f"{opts.dataset_distribution!r}.", file=log.v3)
    return info


def session_target() -> str:
    """The ``target`` argument for ``tf.compat.v1.Session``: this worker's server, or ``""`` (in-process)."""
    return _state.server.target if _state.server is not None else ""


def make_session_config(base=None):
    """A ``tf.compat.v1.ConfigProto`` for sessions of this worker.

    :param base: the engine's ``ConfigProto`` (from ``tf_session_opts``); copied, not modified
    :return: ``base`` (copied) with the collective group leader and this worker's device filter set;
        unchanged copy when not distributed
    """
    import tensorflow as tf

    proto = tf.compat.v1.ConfigProto()
    if base is not None:
        proto.CopyFrom(base)
    if _state.info.size > 1:
        proto.experimental.collective_group_leader = GROUP_LEADER
        del proto.device_filters[:]
        proto.device_filters.append(f"/job:{JOB_NAME}/task:{_state.info.rank}")
    return proto


def reset_for_tests() -> None:
    """Forget the state (the server keeps running: TF cannot stop it). Only for unit tests of one process."""
    global _state
    _state = _State()

"""Start-up of a distributed run, before the engine exists: the task gate (:func:`setup_task`, which calls
:func:`~.cluster.init`) and the per-rank log file names (:func:`rank_log_config`, also used by ``rnn.py``'s start-up).
"""

from __future__ import annotations

from typing import List, Sequence

from returnn.errors import DistributedError
from returnn.log import log
from returnn.options.logging import LogOptions

from . import cluster


def setup_task(config, task: str) -> bool:
    """Initializes distribution for ``task`` (:func:`~.cluster.init`, which is a no-op unless ``use_horovod``
    or ``distributed`` is set; the server of ``distributed_tf``, :mod:`~.tf_server`) and moves the log of workers ``rank > 0`` to ``<log>.rank<N>``.

    :param config: :class:`returnn.config.Config`
    :param task: the config's ``task``
    :return: whether this process should run ``task``: True for ``train`` and ``eval`` (they run on all
        workers, distributed); other tasks run on rank 0 only, as a single process (the others print a
        note and return False)
    :raises ConfigValueError: invalid distributed keys
    :raises DistributedError: launcher environment inconsistent or peers not reachable
    """
    from .discovery import discover_workers
    from .options import is_enabled
    from .tf_server import init_distributed_tf

    init_distributed_tf(config)  # distributed_tf: sessions through an in-process server (no-op without the key)
    if not is_enabled(config):
        return True
    if task in ("train", "eval"):
        logs = LogOptions.read_one(config, "log")
        rank_log_config(config)
        if LogOptions.read_one(config, "log") != logs:  # not yet done by rnn.py's start-up
            log.init_by_config(config)
        cluster.init(config)
        return True
    info = discover_workers()  # no server: the task runs as a single process on rank 0
    if info.rank == 0:
        return True
    print(f"Distributed training: task {task!r} runs on worker 0 only; worker {info.rank} has nothing to do.",
          file=log.v3)
    return False


def _rank_log_names(logs: Sequence[str], rank: int) -> List[str]:
    """``log`` entries of worker ``rank``: each file renamed ``<log>.rank<N>`` (``stdout`` and names already
    renamed stay)."""
    suffix = ".rank%i" % rank
    return [name if name == "stdout" or rank == 0 or name.endswith(suffix) else name + suffix for name in logs]


def rank_log_config(config) -> None:
    """For ``rnn.py``'s start-up, before the log is opened: with ``use_horovod``/``distributed``, renames the
    config's ``log`` files of a worker ``rank > 0`` to ``<log>.rank<N>`` (the rank is read from the launcher's
    environment: ``TF_CONFIG`` or mpirun's rank variables, without starting anything), so that even the
    start-up lines of the other workers stay out of rank 0's log. No-op otherwise."""
    import json
    import os

    from .options import is_enabled

    logs = LogOptions.read_one(config, "log")
    if not is_enabled(config) or not logs:
        return
    rank = 0
    for key in ("OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "MV2_COMM_WORLD_RANK"):
        if os.environ.get(key, "").strip().isdigit():
            rank = int(os.environ[key])
            break
    else:
        try:
            from .discovery import parse_tf_config

            if os.environ.get("TF_CONFIG", "").strip():
                rank = parse_tf_config(os.environ["TF_CONFIG"]).rank
        except (DistributedError, ValueError, json.JSONDecodeError):
            return  # reported by cluster.init later
    if rank > 0:
        config.set("log", _rank_log_names(logs, rank))


from .horovod_ctx import HorovodContext as HorovodContext  # noqa: E402  (public: returnn.tf.horovod)
from .horovod_ctx import get_ctx as get_horovod_ctx  # noqa: E402

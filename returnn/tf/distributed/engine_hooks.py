"""The engine's side of multi-process training: what the TF engine calls at task start, after building and
loading the model, per training step, per evaluated dataset and at epoch ends. Every function is a no-op
(or an identity) unless :func:`~.cluster.init` set up more than one worker, so the single-process engine
runs exactly as before (same graph, no extra ``Session.run``).

Order of the calls (see ``returnn/tf/engine``):

1. :func:`setup_task` in the task entry: :func:`~.cluster.init` and the per-rank log file.
2. :func:`sync_int` for the start epoch chosen by rank 0 (other workers may not see its checkpoints).
3. :func:`sync_model` after variable initialization and (rank 0 only) checkpoint loading: graph check, then
   rank 0's variables are broadcast.
4. Per epoch: :func:`sync_float` of the learning rate, :func:`~.data.init_dataset_epoch` of the train data,
   a :class:`TrainSync` for the train pass (lockstep steps, weight-0 steps, parameter averaging),
   :func:`sum_pass_result` for train and dev results, :func:`epoch_end` after rank 0 saved.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Iterator, List, Optional, Sequence, Tuple

import numpy as np

from returnn.errors import DistributedError
from returnn.log import log

from . import cluster, host


def setup_task(config, task: str) -> bool:
    """Initializes distribution for ``task`` (:func:`~.cluster.init`, which is a no-op unless ``use_horovod``
    or ``distributed`` is set) and moves the log of workers ``rank > 0`` to ``<log>.rank<N>``.

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

    if not is_enabled(config):
        return True
    if task in ("train", "eval"):
        logs = config.list("log", [])
        rank_log_config(config)
        if config.list("log", []) != logs:  # not yet done by rnn.py's start-up
            _reinit_log(config)
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

    if not is_enabled(config) or not config.list("log", []):
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
        config.set("log", _rank_log_names(config.list("log", []), rank))


def _reinit_log(config) -> None:
    log.initialize(logs=config.list("log", []), verbosity=config.int_list("log_verbosity", [3]),
                   formatter=config.list("log_format", []) or None)


def sync_int(value: int, name: str) -> int:
    """Rank 0's ``value`` on every worker (e.g. the start epoch; identity when not distributed)."""
    if not cluster.is_active():
        return value
    return int(host.host_broadcast(np.int64(value), "sync_int_" + name, timeout=cluster.options().start_timeout))


def sync_float(value: float, name: str) -> float:
    """Rank 0's ``value`` on every worker (e.g. the epoch's learning rate; identity when not distributed)."""
    if not cluster.is_active():
        return value
    return float(host.host_broadcast(np.float64(value), "sync_float_" + name,
                                     timeout=cluster.options().start_timeout))


def loads_checkpoints() -> bool:
    """Whether this worker reads checkpoints itself (rank 0, or not distributed); the others get rank 0's
    values by :func:`sync_model`, so they need no access to rank 0's files."""
    return not cluster.is_active() or cluster.rank() == 0


def sync_model(engine, variables) -> None:
    """Start-up synchronisation after variable initialization and loading: verifies that all workers built the
    same variables (:func:`~.host.check_same_graph` of names, shapes, dtypes), then assigns rank 0's values
    to every worker. The broadcast op is built once per graph and kept on ``engine``.

    :param engine: the :class:`~returnn.tf.engine.engine.Engine` (``session``, ``graph``)
    :param variables: all global variables of the graph (params, optimizer state, global step)
    :raises DistributedError: the workers' variables differ, or a peer does not answer
    """
    if not cluster.is_active():
        return
    from .failures import collective_errors
    from .training import broadcast_variables_op, describe_variables

    variables = list(variables)
    host.check_same_graph(describe_variables(variables))
    cached = getattr(engine, "_dist_broadcast", None)
    if cached is None or cached[0] is not engine.graph:
        with engine.graph.as_default():
            engine._dist_broadcast = (engine.graph, broadcast_variables_op(variables))
    with collective_errors("the parameter broadcast from worker 0"):
        engine.session.run(engine._dist_broadcast[1])
    print(f"Distributed training: {len(variables)} variables broadcast from worker 0.", file=log.v4)


class TrainSync:
    """Keeps the workers of a training pass in lockstep (needed because every step runs collectives).

    Per step, every worker reports whether it still has a batch and whether it was asked to stop (one tiny
    all-reduce). All workers then run the same number of steps: when no worker has data the pass ends; a
    worker whose shard is exhausted re-feeds its last batch with gradient weight 0 (``"grad"``: it adds
    nothing to the weighted gradient average) or skips the step (``"param"``), and its step is not counted
    in its scores.

    :param session: the engine's session
    :param grad_weight: the updater's gradient-weight placeholder (``"grad"``), else None
    :param average_op: the updater's parameter-averaging op (``"param"``), else None
    :param global_step_offset: global train step at the start of the pass (for ``horovod_param_sync_step``)
    """

    def __init__(self, session, *, grad_weight=None, average_op=None, global_step_offset: int = 0):
        self.session = session
        self.grad_weight = grad_weight
        self.average_op = average_op
        self.global_step_offset = global_step_offset

    def steps(self, batches: Iterable[Any], stop_requested: Callable[[], bool]) -> Iterator[Tuple[Any, bool, bool]]:
        """Yields ``(batch, has_own_data, stop)`` the same number of times on every worker.

        ``stop`` is True when any worker was asked to stop (then the caller abandons the pass on all workers).
        :raises DistributedError: this worker had no batch at all in the pass while others have data
            (with ``"grad"``), or a peer does not answer within ``distributed_collective_timeout``
        """
        iterator = iter(batches)
        last = None
        while True:
            batch = next(iterator, None)
            flags = host.host_allreduce(np.array([batch is not None, bool(stop_requested())], np.int32),
                                        "train_step_sync")
            if flags[1] > 0:
                yield batch if batch is not None else last, batch is not None, True
                return
            if flags[0] == 0:
                return
            if batch is not None:
                last = batch
            elif last is None and self.grad_weight is not None:
                raise DistributedError(
                    f"distributed training: worker {cluster.rank()} of {cluster.size()} got no batch at all in this "
                    "epoch (its shard of the dataset is empty) while other workers have data. Use more sequences "
                    "or fewer workers.")
            yield (batch if batch is not None else last), batch is not None, False

    def feed_weight(self, has_own_data: bool) -> float:
        """The value for :attr:`grad_weight`: 1.0 with own data, 0.0 without."""
        return 1.0 if has_own_data else 0.0

    def after_step(self, step: int) -> None:
        """Runs the parameter averaging after the pass's ``step`` (0-based) when it is a sync step."""
        from .failures import collective_errors
        from .training import is_param_sync_step

        if self.average_op is not None and is_param_sync_step(self.global_step_offset + step + 1):
            with collective_errors(f"the parameter averaging after step {step}"):
                self.session.run(self.average_op)

    def end_of_pass(self) -> None:
        """``"param"``: a final parameter averaging, so that every worker ends the epoch with the same values."""
        from .failures import collective_errors

        if self.average_op is not None:
            with collective_errors("the parameter averaging at the end of the epoch"):
                self.session.run(self.average_op)


def make_train_sync(engine, global_step_offset: int) -> Optional[TrainSync]:
    """The :class:`TrainSync` of the engine's train pass, or None when not distributed."""
    if not cluster.is_active():
        return None
    updater = engine.updater
    return TrainSync(engine.session, grad_weight=getattr(updater, "dist_grad_weight", None),
                     average_op=getattr(updater, "dist_average_op", None), global_step_offset=global_step_offset)


def sum_pass_result(result) -> None:
    """Replaces the sums of a :class:`~returnn.tf.engine.runner.PassResult` (loss, errors, frames, seqs) by
    their totals over all workers, so scores (``sum(loss) / sum(frames)``) are those of the whole dataset
    when each worker passed its shard. In place; no-op when not distributed."""
    if not cluster.is_active():
        return
    values = {"num_seqs": float(result.num_seqs)}
    for name in result.names:
        values["loss:" + name] = result.loss[name]
        values["frames:" + name] = result.frames[name]
        values["error:" + name] = result.error.get(name, 0.0)
        values["has_error:" + name] = 1.0 if name in result.error else 0.0
    total = host.sum_scores(values)
    result.num_seqs = int(total["num_seqs"])
    for name in result.names:
        result.loss[name] = total["loss:" + name]
        result.frames[name] = total["frames:" + name]
        if total["has_error:" + name] > 0:
            result.error[name] = total["error:" + name]


def epoch_end(epoch: int) -> None:
    """Barrier after rank 0 saved epoch ``epoch`` (no-op when not distributed)."""
    if cluster.is_active():
        host.barrier("epoch%d" % epoch)

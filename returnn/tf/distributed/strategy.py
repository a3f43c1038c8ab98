"""How the engine and the updater run: as one process, or as one of several workers training together.

:class:`DistributionStrategy` is the small interface the engine calls at fixed points of a run; it has two
implementations, and :func:`get_strategy` picks one (the only place that asks whether training is distributed):

* :class:`SingleProcessStrategy`: everything stays as in a plain run (no extra graph op, no extra ``Session.run``);
* :class:`CollectiveStrategy`: multi-process data-parallel training on TensorFlow's collectives
  (``use_horovod``/``distributed``, see ``docs/distributed.md``).

The points, in the order of a training run:

1. start: :meth:`~DistributionStrategy.new_session`, :meth:`~DistributionStrategy.agree_int` (rank 0's start
   epoch), :meth:`~DistributionStrategy.prepare_train_data`, and after building and (rank 0 only,
   :attr:`~DistributionStrategy.loads_checkpoints`) loading: :meth:`~DistributionStrategy.sync_model`;
2. epoch start: :meth:`~DistributionStrategy.agree_float` (the learning rate), :meth:`~DistributionStrategy.init_epoch`
   of each dataset before its pass;
3. step: the updater, which receives the strategy, asks it for the graph side: :meth:`~DistributionStrategy.sync_gradients`
   (gradient all-reduce or the parameter averaging op) and :meth:`~DistributionStrategy.scale_learning_rate`
   (``horovod_scale_lr``); :meth:`~DistributionStrategy.step_sync` gives the train pass's :class:`TrainSync`
   (lockstep steps, weight-0 steps, parameter averaging);
4. end of pass: :meth:`~DistributionStrategy.end_of_pass` (scores summed over the workers);
5. save: only :attr:`~DistributionStrategy.is_root` writes checkpoints, the learning-rate file, summaries and
   output files; :meth:`~DistributionStrategy.after_save` lets the others wait for it.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Iterator, List, Optional, Sequence, Tuple

import numpy as np

from returnn.errors import DistributedError
from returnn.log import log

from . import cluster, host, tf_server


class DistributionStrategy:
    """The interface (see module doc). The base class is the single-process behaviour."""

    #: name for log lines and ``repr``
    name = "single process"
    #: whether this process writes checkpoints, the learning-rate file, summaries and output files
    is_root = True
    #: whether this process reads checkpoints itself (the others get rank 0's values by :meth:`sync_model`)
    loads_checkpoints = True

    def __repr__(self) -> str:
        return f"<{type(self).__name__}: {self.name}>"

    # ------------------------------------------------------------------ start

    def new_session(self, graph, session_config):
        """A ``tf.compat.v1.Session`` on ``graph`` with the ``ConfigProto`` ``session_config`` (through the
        in-process server of ``distributed_tf``, :mod:`~.tf_server`, when it runs)."""
        import tensorflow as tf

        return tf.compat.v1.Session(tf_server.get_session_target(), graph=graph, config=session_config)

    def agree_int(self, value: int, name: str) -> int:
        """Rank 0's ``value`` on every worker (e.g. the start epoch)."""
        return value

    def agree_float(self, value: float, name: str) -> float:
        """Rank 0's ``value`` on every worker (e.g. the epoch's learning rate)."""
        return value

    def prepare_train_data(self, dataset) -> None:
        """Called once per created train dataset, before its first epoch."""

    def sync_model(self, graph, session, variables: Sequence) -> None:
        """After variable initialization and loading (and after a change of the model): all workers get rank 0's
        values of ``variables``."""

    # ------------------------------------------------------------------ the updater's graph

    def scale_learning_rate(self, learning_rate: float) -> float:
        """The value of the updater's ``learning_rate`` variable for the epoch's ``learning_rate`` (one process:
        unchanged)."""
        return learning_rate

    def sync_gradients(self, grads_and_vars: Sequence[Tuple[Any, Any]], var_list: Sequence
                       ) -> Tuple[List[Tuple[Any, Any]], Optional[Any], Optional[Any]]:
        """Called by the updater while it builds the training op, with the raw gradients (before clipping and
        the optimizer) of ``var_list`` (the trained variables).

        :return: ``(grads_and_vars, grad_weight, average_op)``: the gradients the optimizer gets; the float32
            scalar placeholder of this worker's weight in the gradient average (or None); the op averaging the
            parameters over the workers (or None). One process: the gradients unchanged, None, None (no graph op).
        """
        return list(grads_and_vars), None, None

    # ------------------------------------------------------------------ epoch start, step, end of pass

    def init_epoch(self, dataset, epoch: int) -> None:
        """Before a pass over ``dataset`` in ``epoch``: ``dataset.init_seq_order(epoch=epoch)`` (distributed: and
        this worker's part of it)."""
        dataset.init_seq_order(epoch=epoch)

    def step_sync(self, session, updater, global_step_offset: int) -> Optional["TrainSync"]:
        """The :class:`TrainSync` of a train pass (None: steps need no synchronisation)."""
        return None

    def end_of_pass(self, result) -> None:
        """After a pass: its :class:`~returnn.tf.engine.runner.PassResult` sums become those of the whole dataset."""

    def after_save(self, epoch: int) -> None:
        """At the end of ``epoch``, after the root saved everything."""


class SingleProcessStrategy(DistributionStrategy):
    """One process: the base behaviour."""


class CollectiveStrategy(DistributionStrategy):
    """This process is one worker of a multi-process run (after :func:`~.cluster.init`)."""

    loads_checkpoints = False

    def __init__(self):
        self.rank, self.size = cluster.rank(), cluster.size()
        self.options = cluster.options()
        self.is_root = self.rank == 0
        self.loads_checkpoints = self.rank == 0
        self.name = f"worker {self.rank} of {self.size}"
        self._broadcast: Optional[Tuple[Any, Any]] = None  # (graph, op)

    def new_session(self, graph, session_config):
        import tensorflow as tf

        return tf.compat.v1.Session(cluster.session_target(), graph=graph,
                                    config=cluster.make_session_config(session_config))

    def agree_int(self, value: int, name: str) -> int:
        return int(host.host_broadcast(np.int64(value), "sync_int_" + name, timeout=self.options.start_timeout))

    def agree_float(self, value: float, name: str) -> float:
        return float(host.host_broadcast(np.float64(value), "sync_float_" + name, timeout=self.options.start_timeout))

    def scale_learning_rate(self, learning_rate: float) -> float:
        """``learning_rate`` times the number of workers with ``horovod_scale_lr = True``, else unchanged."""
        from .training import scale_learning_rate

        return scale_learning_rate(learning_rate)

    def sync_gradients(self, grads_and_vars, var_list):
        """``horovod_reduce_type = "grad"``: the gradients averaged over the workers, weighted by a new placeholder
        (default 1.0, fed 0.0 for a step without own data); ``"param"``: the gradients unchanged and an op
        averaging ``var_list`` over the workers (run every ``horovod_param_sync_step`` steps by :class:`TrainSync`)."""
        from .training import allreduce_gradients, average_variables_op, make_grad_weight_placeholder

        if self.options.reduce_type == "grad":
            weight = make_grad_weight_placeholder()
            return allreduce_gradients(grads_and_vars, weight=weight), weight, None
        return list(grads_and_vars), None, average_variables_op(var_list)

    def prepare_train_data(self, dataset) -> None:
        from .data import apply_random_seed_offset

        apply_random_seed_offset(dataset)

    def sync_model(self, graph, session, variables: Sequence) -> None:
        """Verifies that all workers built the same variables (names, shapes, dtypes), then assigns rank 0's
        values (the broadcast op is built once per graph).

        :raises DistributedError: the workers' variables differ, or a peer does not answer
        """
        from .failures import collective_errors
        from .training import broadcast_variables_op, describe_variables

        variables = list(variables)
        host.check_same_graph(describe_variables(variables))
        if self._broadcast is None or self._broadcast[0] is not graph:
            with graph.as_default():
                self._broadcast = (graph, broadcast_variables_op(variables))
        with collective_errors("the parameter broadcast from worker 0"):
            session.run(self._broadcast[1])
        print(f"Distributed training: {len(variables)} variables broadcast from worker 0.", file=log.v4)

    def init_epoch(self, dataset, epoch: int) -> None:
        from .data import init_dataset_epoch

        init_dataset_epoch(dataset, epoch)

    def step_sync(self, session, updater, global_step_offset: int) -> Optional["TrainSync"]:
        return TrainSync(session, grad_weight=getattr(updater, "dist_grad_weight", None),
                         average_op=getattr(updater, "dist_average_op", None), global_step_offset=global_step_offset)

    def end_of_pass(self, result) -> None:
        """Replaces the sums of the pass result (loss, errors, frames, seqs) by their totals over all workers, so
        scores (``sum(loss) / sum(frames)``) are those of the whole dataset when each worker passed its shard."""
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

    def after_save(self, epoch: int) -> None:
        host.barrier("epoch%d" % epoch)


def get_strategy() -> DistributionStrategy:
    """The strategy of this process: :class:`CollectiveStrategy` after :func:`~.cluster.init` set up more than one
    worker, else :class:`SingleProcessStrategy`."""
    return CollectiveStrategy() if cluster.is_active() else SingleProcessStrategy()


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

    @staticmethod
    def translate_error(exc: BaseException, where: str) -> Optional[DistributedError]:
        """A failed collective op of a step (a peer died or hangs) as one :class:`DistributedError` naming
        ``where``; None for other errors."""
        from .failures import translate_error

        return translate_error(exc, where)

"""The state of one run of the engine, declared in one place: :class:`RunState`.

The parts of the engine (:mod:`~.build`, :mod:`~.model_io`, :mod:`~.training`, :mod:`~.evaluation`,
:mod:`~.forward`, :mod:`~.search`, :mod:`~.network_change`) are functions that receive the state explicitly;
:class:`~returnn.tf.engine.engine.Engine` is the facade with the reference's methods, holding one state.
"""

from __future__ import annotations

import dataclasses
import signal
import threading
from typing import Any, Dict, Optional, Type, TypeVar

from returnn.options import (
    BatchingOptions,
    CheckpointOptions,
    LearningRateControlOptions,
    OptionGroup,
    RunOptions,
    TrainingOptions,
)
from returnn.log import log

G = TypeVar("G", bound=OptionGroup)


@dataclasses.dataclass
class NetworkFlags:
    """How :meth:`~returnn.tf.engine.engine.Engine.init_network_from_config` builds the network when no task is
    given (the reference's engine attributes of the same names; observed defaults: search for config task
    ``search``, eval unless task ``forward``, no dynamic train flag until ``init_train_from_config``).

    :ivar use_search_flag: build with the search flag (``choice`` layers search)
    :ivar use_eval_flag: build the losses (and the target layers they read)
    :ivar use_dynamic_train_flag: the train flag is a placeholder (training graphs) instead of False
    """

    use_search_flag: bool = False
    use_eval_flag: bool = True
    use_dynamic_train_flag: bool = False

    @classmethod
    def for_task(cls, task: Optional[str]) -> "NetworkFlags":
        """The flags a new engine starts with for config ``task``."""
        return cls(use_search_flag=task == "search", use_eval_flag=task != "forward")


@dataclasses.dataclass
class Datasets:
    """The datasets of a run: ``train``, ``dev``, ``eval`` and the further ``eval_datasets``."""

    train: Any = None
    dev: Any = None
    eval: Any = None
    extra: Dict[str, Any] = dataclasses.field(default_factory=dict)

    @property
    def evaluated(self) -> Dict[str, Any]:
        """name → dataset scored after each epoch and by task ``eval``: ``dev``, ``eval``, then the others."""
        out = {}
        if self.dev is not None:
            out["dev"] = self.dev
        if self.eval is not None:
            out["eval"] = self.eval
        out.update(self.extra)
        return out

    def all(self) -> list:
        """Every dataset that is set (train first)."""
        return [d for d in [self.train, self.eval, self.dev] + list(self.extra.values()) if d is not None]


class EngineOptions:
    """The parsed options groups of a run, each parsed on first use (:meth:`OptionGroup.from_config`) and again
    after :meth:`refresh` (a new config, or an epoch's ``#config`` changed keys)."""

    def __init__(self, config):
        self.config = config
        self.parsed: Dict[type, OptionGroup] = {}

    def get(self, group: Type[G]) -> G:
        """The parsed group (see class doc)."""
        if group not in self.parsed:
            self.parsed[group] = group.from_config(self.config)
        return self.parsed[group]  # type: ignore[return-value]

    def refresh(self, config=None) -> None:
        """Forgets the parsed values (and switches to ``config`` when given)."""
        if config is not None:
            self.config = config
        self.parsed.clear()

    @property
    def run(self) -> RunOptions:
        return self.get(RunOptions)

    @property
    def checkpoints(self) -> CheckpointOptions:
        return self.get(CheckpointOptions)

    @property
    def training(self) -> TrainingOptions:
        return self.get(TrainingOptions)

    @property
    def batching(self) -> BatchingOptions:
        return self.get(BatchingOptions)

    @property
    def learning_rate_control(self) -> LearningRateControlOptions:
        return self.get(LearningRateControlOptions)


class StopSignal:
    """SIGINT/SIGTERM during training: the running step finishes, then the loop stops (a second signal stops hard,
    with ``KeyboardInterrupt``)."""

    def __init__(self):
        self.signum: Optional[int] = None

    def requested(self) -> bool:
        """Whether a stop was requested (checked between steps)."""
        return self.signum is not None

    def request(self, signum: int = signal.SIGINT) -> None:
        """Asks the running loop to stop after the current step (as a signal does)."""
        self.signum = signum

    def take(self) -> Optional[int]:
        """The requested signal number (None: none), and forgets it."""
        signum, self.signum = self.signum, None
        return signum

    def install(self) -> Optional[Dict[int, Any]]:
        """Installs the handlers of SIGINT and SIGTERM (main thread only); returns the previous ones."""
        if threading.current_thread() is not threading.main_thread():
            return None

        def handler(signum, _frame):
            if self.signum is not None:  # second signal: stop hard
                raise KeyboardInterrupt()
            print("\nReceived signal %s, stopping after the current step ..." % signal.Signals(signum).name,
                  file=log.v1)
            self.signum = signum

        return {sig: signal.signal(sig, handler) for sig in (signal.SIGINT, signal.SIGTERM)}

    @staticmethod
    def restore(previous: Optional[Dict[int, Any]]) -> None:
        """Puts back the handlers :meth:`install` returned."""
        for sig, old in (previous or {}).items():
            signal.signal(sig, old)


@dataclasses.dataclass
class RunState:
    """Everything one run of the engine holds (see module doc).

    :ivar config: the config (:attr:`options` are parsed from it)
    :ivar strategy: single process or one worker of several (:mod:`returnn.tf.distributed.strategy`)
    :ivar options: the parsed options groups
    :ivar datasets: train, dev, eval, eval_datasets
    :ivar graph: the TF graph of the current network (rebuilt when an epoch's network differs)
    :ivar session: the session on :attr:`graph`
    :ivar network: the ``TFNetwork`` in :attr:`graph`
    :ivar net_dict: the network dict of :attr:`network`
    :ivar updater: the updater (training only)
    :ivar optim_op: the op of one training step
    :ivar optim_op_error: why there is no training op (a network without a trainable loss), raised when a step is run
    :ivar train_flag: the train-flag placeholder (training graphs), else None
    :ivar learning_rate_control: the learning-rate control (training; eval: receives the scores)
    :ivar pretrain: the config's pretrain schedule, or None
    :ivar epoch: the current epoch (0: none yet)
    :ivar start_epoch: the first epoch training runs
    :ivar model_filename: config ``model``
    :ivar loaded_model: what was loaded (:class:`~returnn.tf.engine.model_selection.ModelChoice`)
    :ivar device_kind: ``"cpu"`` or ``"gpu"``
    :ivar loader: reads checkpoints into :attr:`session`
    :ivar saver: writes checkpoints of :attr:`session`
    :ivar epoch_config: applies the ``#config`` of each epoch's network
    :ivar stop: the stop request of SIGINT/SIGTERM
    :ivar summary_writers: TensorBoard writers by name (training)
    :ivar loss_fetches: the per-loss tensors of :attr:`network`, with the network they belong to
    :ivar flags: the flags of a network built without a task (:class:`NetworkFlags`)
    :ivar dataset_provider: the tf.data pipeline of a training graph with ``dataset_pipeline``
        (:class:`returnn.tf.data_pipeline.DatasetDataProvider`: the network's input), else None (batches are fed)
    """

    config: Any
    strategy: Any
    options: EngineOptions = None  # type: ignore[assignment]
    datasets: Datasets = dataclasses.field(default_factory=Datasets)
    graph: Any = None
    session: Any = None
    network: Any = None
    net_dict: Optional[Dict[str, Any]] = None
    updater: Any = None
    optim_op: Any = None
    optim_op_error: Optional[Exception] = None
    train_flag: Any = None
    learning_rate_control: Any = None
    pretrain: Any = None
    epoch: int = 0
    start_epoch: int = 1
    model_filename: Optional[str] = None
    loaded_model: Any = None
    device_kind: Optional[str] = None
    loader: Any = None
    saver: Any = None
    epoch_config: Any = None
    stop: StopSignal = dataclasses.field(default_factory=StopSignal)
    summary_writers: Any = None
    loss_fetches: Any = None
    flags: NetworkFlags = None  # type: ignore[assignment]
    dataset_provider: Any = None

    def __post_init__(self):
        if self.options is None:
            self.options = EngineOptions(self.config)
        if self.flags is None:
            self.flags = NetworkFlags.for_task(self.options.run.task)

    def set_config(self, config) -> None:
        """Switches to ``config`` (its options are parsed anew)."""
        self.config = config
        self.options.refresh(config)

    def is_pretrain_epoch(self, epoch: Optional[int] = None) -> bool:
        """Whether ``epoch`` (default: the current one) is an epoch of the ``pretrain`` schedule."""
        epoch = self.epoch if epoch is None else epoch
        return self.pretrain is not None and bool(epoch) and epoch <= self.pretrain.get_train_num_epochs()

    def epoch_str(self, epoch: Optional[int] = None) -> str:
        """``epoch N``, or ``pretrain epoch N`` for an epoch of the ``pretrain`` schedule (as the reference)."""
        epoch = self.epoch if epoch is None else epoch
        return ("pretrain epoch %i" if self.is_pretrain_epoch(epoch) else "epoch %i") % (epoch or 0)

    def epoch_model_filename(self, epoch: Optional[int] = None) -> str:
        """``<model>.NNN`` (``<model>.pretrain.NNN`` for a pretrain epoch) of ``epoch`` (default: the current one).

        :raises ConfigValueError: no ``model``
        """
        from returnn.engine.checkpoint_files import get_epoch_model_filename
        from returnn.errors import ConfigValueError

        if not self.model_filename:
            raise ConfigValueError("model", expected="a checkpoint path prefix", got=self.model_filename)
        epoch = self.epoch if epoch is None else epoch
        is_pretrain = self.pretrain is not None and epoch <= self.pretrain.get_train_num_epochs()  # epoch 0 included
        return get_epoch_model_filename(self.model_filename, epoch, is_pretrain=is_pretrain)

    def existing_epochs(self) -> list:
        """Epochs with a complete checkpoint of ``model`` (``<model>.NNN`` or ``<model>.pretrain.NNN``)."""
        from returnn.engine.checkpoint_files import get_existing_checkpoints

        return sorted(get_existing_checkpoints(self.model_filename)) if self.model_filename else []

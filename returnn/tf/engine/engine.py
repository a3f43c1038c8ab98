"""The TF engine facade: the reference's public ``Engine`` methods over one :class:`~.state.RunState`.

Programmatic use as in the reference::

    engine = Engine(config=config)
    engine.init_train_from_config(config, train_data, dev_data, eval_data)
    engine.train()

or ``engine.init_network_from_config(config)`` then ``engine.eval_model()`` / ``engine.forward_to_hdf(...)``.
The state of the run (graph, session, network, updater, learning-rate control, datasets, summary writers,
fetches, options) is :attr:`Engine.state`; the work is done by functions that receive it: :mod:`~.build`,
:mod:`~.model_io`, :mod:`~.training`, :mod:`~.evaluation`, :mod:`~.forward`, :mod:`~.search`,
:mod:`~.network_change`. The attributes the reference's engine has (``network``, ``session``, ``epoch``,
``train_data``, ...) read and write that state.
"""

from __future__ import annotations

import functools
import signal

import tensorflow as tf
from typing import Any, Dict, Optional

from returnn.config import Config, config_or_global
from returnn.engine.base import EngineBase
from returnn.engine.checkpoint_files import get_existing_checkpoints
from returnn.errors import ConfigValueError
from returnn.log import log
from returnn.options import (
    CheckpointOptions,
    DataOptions,
    ForwardOptions,
    FrontendOptions,
    PretrainOptions,
    RunOptions,
    SearchOptions,
)
from returnn.pretrain import pretrain_from_options
from returnn.tf.engine.frontend.config_entry import check_options as check_rf_options
from returnn.tf.distributed.strategy import get_strategy
from returnn.tf.engine import build, model_io, network_setup
from returnn.tf.engine.model_selection import ModelChoice, choose_model_for_eval, choose_model_for_train
from returnn.tf.engine.state import Datasets, RunState

_global_engine: Optional["Engine"] = None


def _in_graph(method):
    """Runs an Engine method with the run's graph as the default graph (TF ops created lazily, e.g. by the
    updater or the checkpoint loader, must land there, also when eager execution is enabled)."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        if self.state.graph is None:
            return method(self, *args, **kwargs)
        with self.state.graph.as_default():
            return method(self, *args, **kwargs)

    return wrapper


def get_global_engine() -> "Engine":
    """The most recently created :class:`Engine` (as the reference's ``get_global_engine``).

    :raises RuntimeError: no engine was created yet
    """
    if _global_engine is None:
        raise RuntimeError("no Engine was created yet")
    return _global_engine


def _state_attr(name: str, doc: str, *, target: str = ""):
    """A property reading/writing ``self.state.<target or name>``."""
    field = target or name

    owner_path, _, attr = field.rpartition(".")

    def owner(self):
        obj = self.state
        for part in owner_path.split(".") if owner_path else ():
            obj = getattr(obj, part)
        return obj

    def fget(self):
        return getattr(owner(self), attr)

    def fset(self, value):
        setattr(owner(self), attr, value)

    return property(fget, fset, doc=doc)


def _dataset_attr(name: str, doc: str):
    def fget(self):
        return getattr(self.state.datasets, name)

    def fset(self, value):
        setattr(self.state.datasets, name, value)

    return property(fget, fset, doc=doc)


class Engine(EngineBase):
    """Runs training, evaluation and forwarding of a TF network described by a config.

    The network of each epoch (``pretrain``, ``get_network``, ``#config``) is chosen by
    :mod:`~returnn.tf.engine.epoch_network`; when it changes, the graph is rebuilt and the params carried over
    (:mod:`~returnn.tf.engine.param_copy`).

    :param config: defaults to the global config
    """

    graph = _state_attr("graph", "the TF graph of the current network")
    session = _state_attr("session", "the session on :attr:`graph`")
    tf_session = _state_attr("tf_session", "the same as :attr:`session` (the reference's name)", target="session")
    network = _state_attr("network", "the ``TFNetwork``")
    net_dict = _state_attr("net_dict", "the network dict of the current graph")
    updater = _state_attr("updater", "the updater (training)")
    optim_op = _state_attr("optim_op", "the op of one training step")
    train_flag_placeholder = _state_attr("train_flag_placeholder", "the train-flag placeholder", target="train_flag")
    dataset_provider = _state_attr("dataset_provider", "the tf.data pipeline of the network's input "
                                   "(``dataset_pipeline``, training), or None")
    learning_rate_control = _state_attr("learning_rate_control", "the learning-rate control")
    pretrain = _state_attr("pretrain", "the config's pretrain schedule, or None")
    epoch = _state_attr("epoch", "the current epoch")
    start_epoch = _state_attr("start_epoch", "the first epoch training runs")
    model_filename = _state_attr("model_filename", "config ``model``")
    loaded_model = _state_attr("loaded_model", "what was loaded (a ModelChoice)")
    device_kind = _state_attr("device_kind", "``cpu`` or ``gpu``")
    train_data = _dataset_attr("train", "the ``train`` dataset")
    dev_data = _dataset_attr("dev", "the ``dev`` dataset")
    eval_data = _dataset_attr("eval", "the ``eval`` dataset")

    use_search_flag = _state_attr("use_search_flag", "build with the search flag when no task is given (default: "
                                  "config task ``search``)", target="flags.use_search_flag")
    use_eval_flag = _state_attr("use_eval_flag", "build the losses when no task is given (default: config task not "
                                "``forward``)", target="flags.use_eval_flag")
    use_dynamic_train_flag = _state_attr("use_dynamic_train_flag", "the train flag is a placeholder (set by "
                                         ":meth:`init_train_from_config`)", target="flags.use_dynamic_train_flag")

    def __init__(self, config: Optional[Config] = None):
        global _global_engine
        config = config_or_global(config)
        self.state = RunState(config=config, strategy=get_strategy())
        super().__init__(config)
        self.state.model_filename = self.state.options.run.model
        self.state.loaded_model = ModelChoice(None, None)
        _global_engine = self

    @property
    def config(self) -> Config:
        """The run's config."""
        return self.state.config

    @config.setter
    def config(self, config: Config) -> None:
        self.state.set_config(config)

    @property
    def eval_datasets(self) -> Dict[str, Any]:
        """name → dataset scored after each epoch and by the ``eval`` task (``dev``, ``eval``, ``eval_datasets``)."""
        return self.state.datasets.evaluated

    def get_eval_datasets(self) -> Dict[str, Any]:
        """name → dataset scored after each epoch (``dev``, ``eval``, ``eval_datasets``), as the reference."""
        return dict(self.state.datasets.evaluated)

    @staticmethod
    def format_score(score: Dict[str, float]) -> str:
        """The reference's score text: one value ``X``, several ``a X b Y`` (names sorted), none ``None``."""
        from returnn.tf.engine.evaluation import format_values

        return format_values(score) if score else "None"

    # ------------------------------------------------------------------ datasets

    def set_datasets(self, train_data=None, dev_data=None, eval_data=None,
                     eval_datasets: Optional[Dict[str, Any]] = None) -> None:
        """The datasets of the run (``eval_datasets``: further datasets scored like ``dev``)."""
        extra = {k: v for k, v in (eval_datasets or {}).items() if k not in ("dev", "eval")}
        self.state.datasets = Datasets(train=train_data, dev=dev_data, eval=eval_data, extra=extra)

    def init_datasets_from_config(self, config: Optional[Config] = None) -> None:
        """Builds train/dev/eval/eval_datasets via :func:`returnn.datasets.from_config.init_datasets_from_config`."""
        from returnn.datasets.from_config import init_datasets_from_config

        datasets = init_datasets_from_config(config or self.config)
        self.set_datasets(datasets.get("train"), datasets.get("dev"), datasets.get("eval"),
                          datasets.get("eval_datasets"))

    # ------------------------------------------------------------------ graph and session

    def get_net_dict_for_epoch(self, *, epoch: Optional[int], step: Optional[int] = None,
                               config: Optional[Config] = None) -> Dict[str, Any]:
        """The network dict of ``epoch`` (see :func:`~returnn.tf.engine.epoch_network.get_net_dict_for_epoch`);
        ``epoch`` None (a random model for a non-training task): the final network."""
        if config is not None and config is not self.config:
            from returnn.tf.engine.epoch_network import get_net_dict_for_epoch

            final = self.pretrain.get_train_num_epochs() + 1 if self.pretrain is not None else 1
            return get_net_dict_for_epoch(RunOptions.from_config(config), FrontendOptions.from_config(config),
                                          self.pretrain, final if epoch is None else epoch)
        return build.net_dict_for_epoch(self.state, epoch)

    def close_session(self) -> None:
        """Closes the session (the graph is dropped)."""
        build.close_session(self.state)

    def finalize(self) -> None:
        """Releases the session and closes the summary writers (reference API)."""
        if self.state.summary_writers is not None:
            self.state.summary_writers.close()
        self.close_session()

    # ------------------------------------------------------------------ init entry points

    def init_train_from_config(self, config: Optional[Config] = None, train_data=None, dev_data=None,
                               eval_data=None, eval_datasets: Optional[Dict[str, Any]] = None, *,
                               require_train_data: bool = False, with_updater: bool = True) -> None:
        """Prepares training: datasets, learning-rate control, network + updater + session, and loads the
        checkpoint to continue from (see :mod:`~returnn.tf.engine.model_selection`).

        :param require_train_data: True for the ``train`` task (raises without a ``train`` dataset); False (the
            default, as the reference's programmatic use, and the ``initialize_model`` task): only the network is
            needed (the data shapes then come from ``extern_data``/``num_outputs`` or the other datasets)
        :param with_updater: False for ``initialize_model``: no optimizer, so its checkpoint holds the params and
            the global step only, as the reference's
        :raises ConfigValueError: no ``train`` dataset (when required), ``model`` directory not writable, bad
            ``start_epoch``/``load_epoch``, ...
        """
        state = self.state
        if config is not None:
            state.set_config(config)
        else:
            state.options.refresh()
        if eval_datasets is None:
            eval_datasets = self._config_eval_datasets()
        self.set_datasets(train_data, dev_data, eval_data, eval_datasets)
        if state.datasets.train is None and require_train_data:
            raise ConfigValueError("train", expected="a dataset for task 'train' (dict with 'class')", got=None)
        state.model_filename = state.options.run.model
        state.flags.use_dynamic_train_flag = True
        if state.strategy.is_root:  # only the root writes checkpoints
            model_io.check_model_dir_writable(state)
        if state.datasets.train is not None:
            state.strategy.prepare_train_data(state.datasets.train)
        state.learning_rate_control = network_setup.create_learning_rate_control(state.options.learning_rate_control)
        check_rf_options(state.options.run, state.options.get(FrontendOptions), state.options.get(PretrainOptions))
        state.pretrain = pretrain_from_options(state.options.get(PretrainOptions))
        choice = choose_model_for_train(state.options.checkpoints, state.model_filename, pretrain=state.pretrain)
        start_epoch = (choice.epoch or 0) + 1 if not choice.params_only else 1
        state.start_epoch = state.strategy.agree_int(start_epoch, "start_epoch")  # rank 0's, when distributed
        # the network of the checkpoint to load (the epoch's own network follows in init_train_epoch)
        loads_epoch = choice.filename is not None and not choice.params_only and choice.epoch
        state.epoch = choice.epoch if loads_epoch else state.start_epoch
        build.build(state, train=True, epoch=state.epoch, with_updater=with_updater)
        if state.strategy.loads_checkpoints:
            model_io.load_choice(state, choice, is_training=True)
        build.sync_model(state)

    def _config_eval_datasets(self) -> Dict[str, Any]:
        from returnn.datasets.from_config import init_extra_eval_datasets

        return init_extra_eval_datasets(self.state.options.get(DataOptions))

    def init_network_from_config(self, config: Optional[Config] = None, *, task: Optional[str] = None,
                                 net_dict_post_proc=None, eval_flag: Optional[bool] = None) -> None:
        """Builds the network without updater and loads the model for ``task`` (``load``, ``load_epoch``, newest
        checkpoint, or random init with ``allow_random_model_init``).

        :param task: ``eval``, ``forward``, ``search``, ``compute_priors`` (the flags follow from it); None (the
            reference's programmatic use): the flags :attr:`use_search_flag`, :attr:`use_eval_flag` and
            :attr:`use_dynamic_train_flag` decide, and the model is that of config ``task``; for task ``train``
            (the default) without a checkpoint the params are initialized randomly, as the reference
        :param eval_flag: build the losses (and the target layers they read); None: for ``eval``, and for ``search``
            with ``search_do_eval`` (default True)
        """
        state = self.state
        if config is not None:
            state.set_config(config)
        else:
            state.options.refresh()
        state.model_filename = state.options.run.model
        check_rf_options(state.options.run, state.options.get(FrontendOptions), state.options.get(PretrainOptions))
        state.pretrain = pretrain_from_options(state.options.get(PretrainOptions))
        flags = state.flags
        model_task = task or state.options.run.task
        if task is None and model_task == "train" and state.options.checkpoints.start_epoch not in (None, "auto"):
            # as the reference (observed): the model training would start from (start_epoch 1: none, the
            # params randomly initialized, with a warning when checkpoints exist)
            choice = choose_model_for_train(state.options.checkpoints, state.model_filename, pretrain=state.pretrain)
            existing = get_existing_checkpoints(state.model_filename) if state.model_filename else {}
            if choice.filename is None and existing:
                print("warning: there is an existing model: %r" % ((max(existing), existing[max(existing)]),),
                      file=log.v4)
        elif task is None and model_task == "train":
            choice = choose_model_for_eval(state.options.checkpoints, state.model_filename, task=model_task,
                                           allow_random=True)
        else:
            choice = choose_model_for_eval(state.options.checkpoints, state.model_filename, task=model_task)
        state.epoch = choice.epoch or 0
        if task == "eval":
            print("Evaluate epoch %i" % state.epoch, file=log.v3)
            if state.learning_rate_control is None:  # the scores go there (saved with a learning_rate_file)
                state.learning_rate_control = network_setup.create_learning_rate_control(state.options.learning_rate_control)
        if task is None:
            search = flags.use_search_flag
            if eval_flag is None:
                eval_flag = flags.use_eval_flag
        else:
            search = task == "search" or (task == "forward" and state.options.get(ForwardOptions).forward_use_search)
            if eval_flag is None:
                eval_flag = task == "eval" or (task == "search" and state.options.get(SearchOptions).search_do_eval)
        build.build(state, train=task is None and flags.use_dynamic_train_flag, with_updater=False,
                    epoch=choice.epoch, eval_flag=eval_flag, search_flag=search,
                    net_dict_post_proc=net_dict_post_proc)
        if state.strategy.loads_checkpoints:
            model_io.load_choice(state, choice, is_training=False)
        build.sync_model(state)

    # ------------------------------------------------------------------ checkpoints

    def check_model_dir_writable(self) -> None:
        """:raises ConfigValueError: the directory of ``model`` cannot be created or written"""
        model_io.check_model_dir_writable(self.state)

    def save_model(self, filename: Optional[str] = None) -> None:
        """Saves all variables (params, ``global_step``, optimizer state) to ``filename`` (default: the
        current epoch's ``<model>.NNN``), crash-safely, and updates the ``checkpoint`` state file."""
        model_io.save_model(self.state, filename)

    def load_model(self, epoch: Optional[int] = None, filename: Optional[str] = None) -> None:
        """Loads ``filename`` or ``<model>.<epoch>`` into the current session."""
        model_io.load_model(self.state, filename or self.get_epoch_model_filename(epoch))

    def get_existing_epochs(self):
        """Epochs with a complete checkpoint of ``model`` (``<model>.NNN`` or ``<model>.pretrain.NNN``)."""
        return self.state.existing_epochs()

    # ------------------------------------------------------------------ per-epoch networks

    @_in_graph
    def init_train_epoch(self) -> bool:
        """Before training epoch ``self.epoch``: applies its ``#config`` and, if its network differs from the
        current one, rebuilds the graph and carries the params over (see
        :func:`~returnn.tf.engine.network_change.init_network_for_epoch`). Returns whether it rebuilt."""
        from returnn.tf.engine.network_change import init_network_for_epoch

        return init_network_for_epoch(self.state, self.state.epoch)

    # ------------------------------------------------------------------ signals

    def stop_requested(self) -> bool:
        """Whether SIGINT/SIGTERM arrived during training (checked between steps)."""
        return self.state.stop.requested()

    def request_stop(self, signum: int = signal.SIGINT) -> None:
        """Asks the running loop to stop after the current step (as a signal does)."""
        self.state.stop.request(signum)

    # ------------------------------------------------------------------ loops (see the sibling modules)

    @_in_graph
    def train(self) -> None:
        """Trains the epochs ``start_epoch .. num_epochs`` (see :func:`returnn.tf.engine.training.train`)."""
        from returnn.tf.engine.training import train

        train(self.state)

    @_in_graph
    def train_epoch(self) -> Dict[str, float]:
        """Trains epoch :attr:`epoch` (its network, the train pass, save, evaluation, learning-rate control), as one
        iteration of :meth:`train`. Returns the epoch's scores."""
        from returnn.tf.engine.network_change import init_network_for_epoch
        from returnn.tf.engine.summaries import SummaryWriters
        from returnn.tf.engine.training import summary_log_dir, train_epoch

        state = self.state
        if state.summary_writers is None:
            state.summary_writers = SummaryWriters(summary_log_dir(state))
        init_network_for_epoch(state, state.epoch)
        return train_epoch(state, state.epoch, save=state.model_filename is not None)

    @_in_graph
    def eval_model(self, output_file: Optional[str] = None, output_per_seq_file: Optional[str] = None,
                   loss_name: Optional[str] = None, output_per_seq_format=None, output_per_seq_file_format="txt",
                   skip_already_evaluated: bool = False) -> Dict[str, Any]:
        """Evaluates the loaded model on dev/eval/eval_datasets; prints the ``dev: score ...`` line.

        Of the reference's further parameters only the defaults are provided: per-sequence scores
        (``output_per_seq_file``, ``output_per_seq_format``), a single ``loss_name`` and
        ``skip_already_evaluated`` raise :class:`~returnn.errors.ConfigValueError`.

        :return: dataset name → :class:`~returnn.tf.engine.runner.PassResult`
        """
        from returnn.tf.engine.evaluation import eval_model

        unsupported = {"output_per_seq_file": output_per_seq_file, "loss_name": loss_name,
                       "output_per_seq_format": output_per_seq_format,
                       "skip_already_evaluated": skip_already_evaluated or None}
        for key, value in unsupported.items():
            if value is not None:
                raise ConfigValueError(key, expected="None: Engine.eval_model does not provide %r here" % key,
                                       got=value, hint="use eval_output_file for the scores of each dataset")
        return eval_model(self.state, output_file=output_file)

    @_in_graph
    def forward_to_hdf(self, data, output_file: str, combine_labels: str = "", batch_size: int = 0,
                       output_layer=None) -> None:
        """Runs the network over ``data`` and writes the output layer to the HDF ``output_file``."""
        from returnn.tf.engine.forward import forward_to_hdf

        forward_to_hdf(self.state, data, output_file, batch_size=batch_size, output_layer=output_layer)

    @_in_graph
    def forward_with_callback(self, *, dataset, callback) -> None:
        """Runs the network over ``dataset``, handing each sequence's outputs to ``callback``
        (a :class:`returnn.forward_iface.ForwardCallbackIface`)."""
        from returnn.tf.engine.forward import forward_with_callback

        forward_with_callback(self.state, dataset=dataset, callback=callback)

    @_in_graph
    def forward_single(self, dataset, seq_idx: int, output_layer_name: Optional[str] = None):
        """The output layer for one sequence: numpy array ``[T, dim]`` (see
        :func:`returnn.tf.engine.forward.forward_single`)."""
        from returnn.tf.engine.forward import forward_single

        return forward_single(self.state, dataset, seq_idx, output_layer_name)

    @_in_graph
    def search(self, dataset, do_eval: bool = True, output_layer_names="output", output_file: Optional[str] = None,
               output_file_format: str = "txt") -> None:
        """Beam search over ``dataset`` (network built with ``init_network_from_config(task="search")`` or with
        :attr:`use_search_flag`), see :func:`returnn.tf.engine.search.search`; the defaults are the reference's
        (task ``search`` passes the config's ``search_do_eval``, ``search_output_layer``, ``search_output_file``,
        ``search_output_file_format``).

        :param do_eval: also compute the losses/errors against the targets
        :param output_layer_names: a layer name or a list of them
        :param output_file: write the hypotheses there
        :param output_file_format: ``"txt"`` or ``"py"``
        """
        from returnn.tf.engine.search import search

        search(self.state, dataset, do_eval=do_eval, output_layer_names=output_layer_names, output_file=output_file,
               output_file_format=output_file_format)

    @_in_graph
    def analyze(self, data, statistics=None) -> Dict[str, Any]:
        """Frame-wise statistics of the default output layer against its target over one pass of ``data`` (see
        :mod:`returnn.tf.engine.network_analysis`; config ``sil_label_idx`` required), printed and returned.

        :param statistics: accepted for the reference's signature (all statistics are collected)
        :raises ConfigValueError: no ``sil_label_idx``, or the output layer is no distribution over a sparse target
        """
        from returnn.options import AnalysisOptions
        from returnn.tf.engine.network_analysis import analyze, sil_label_idx_of

        del statistics
        return analyze(self.state, data, sil_label_idx_of(self.state.options.get(AnalysisOptions).sil_label_idx))

    @classmethod
    def create_network(cls, config: Config, rnd_seed: Optional[int], train_flag, eval_flag: bool, search_flag: bool,
                       net_dict: Dict[str, Any], initial_learning_rate: float = 1.0):
        """A network of ``net_dict`` in a new graph, as the reference's ``Engine.create_network``.

        :param train_flag: False, True or a scalar bool placeholder (then the network trains: an updater is made)
        :return: ``(network, updater)``; the updater is None when ``train_flag`` is False
        """
        from returnn.options import DataOptions, UpdaterOptions

        with tf.Graph().as_default():
            extern_data = network_setup.create_extern_data(DataOptions.from_config(config))
            network = network_setup.create_network(config, extern_data=extern_data, net_dict=net_dict,
                                                   train_flag=train_flag, eval_flag=eval_flag,
                                                   search_flag=search_flag, rnd_seed=rnd_seed)
            updater = None
            if train_flag is not False:
                updater = network_setup.create_updater(UpdaterOptions.from_config(config), network,
                                                       initial_learning_rate)
        return network, updater

    @staticmethod
    def _net_dict_diff(self_dict: Dict[str, Any], other_dict: Dict[str, Any]):
        """The lines of the difference of two network dicts (empty: equal), see
        :func:`returnn.tf.engine.net_dict_diff.net_dict_diff`."""
        from returnn.tf.engine.net_dict_diff import net_dict_diff

        return net_dict_diff(self_dict, other_dict)

    @classmethod
    def get_epoch_model(cls, config: Config):
        """``(epoch, checkpoint prefix)`` a non-training task would load (``(None, None)`` for random init with
        ``allow_random_model_init``), as the reference's ``Engine.get_epoch_model``."""
        run = RunOptions.from_config(config)
        choice = choose_model_for_eval(CheckpointOptions.from_config(config), run.model, task=run.task)
        return choice.epoch, choice.filename

    @_in_graph
    def compute_priors(self, dataset, config: Optional[Config] = None) -> None:
        """Averages the output layer's posteriors over ``dataset``; writes log priors to ``output_file``."""
        from returnn.tf.engine.forward import compute_priors

        compute_priors(self.state, dataset)

    def cleanup_old_models(self, ask_for_confirmation: bool = False, dry_run: bool = False) -> None:
        """Deletes old checkpoints per ``cleanup_old_models`` (see :mod:`returnn.tf.engine.cleanup`); with
        ``dry_run`` only prints which it would delete."""
        from returnn.tf.engine.cleanup import cleanup_old_models

        state = self.state
        state.options.refresh()  # the keys as they are now
        lrc = state.learning_rate_control or network_setup.create_learning_rate_control(state.options.learning_rate_control)
        cleanup_old_models(state.options.run.model, state.options.training, lrc,
                           ask_for_confirmation=ask_for_confirmation, dry_run=dry_run)

"""The TF engine: wires config → datasets → network → updater → session, and owns checkpoints.

Programmatic use as in the reference::

    engine = Engine(config=config)
    engine.init_train_from_config(config, train_data, dev_data, eval_data)
    engine.train()

or ``engine.init_network_from_config(config)`` then ``engine.eval_model()`` / ``engine.forward_to_hdf(...)``.
The loops live in :mod:`~returnn.tf.engine.training`, :mod:`~returnn.tf.engine.evaluation` and
:mod:`~returnn.tf.engine.forward`; they are exposed as methods here.
"""

from __future__ import annotations

import os
import signal
import threading
from typing import Any, Dict, Optional

import tensorflow as tf

from returnn.config import Config, get_global_config
from returnn.engine.base import EngineBase
from returnn.engine.checkpoint_files import get_existing_checkpoints
from returnn.errors import ConfigValueError
from returnn.log import log
from returnn.tf import distributed as dist
from returnn.tf.distributed import engine_hooks
from returnn.tf.engine import epoch_network, network_setup
from returnn.tf.engine.checkpoints import CheckpointLoader, CheckpointSaver, update_checkpoint_state_file, var_name
from returnn.tf.engine.model_selection import ModelChoice, choose_model_for_eval, choose_model_for_train
from returnn.tf.engine.session import get_device_kind, new_session
from returnn.pretrain import pretrain_from_config

tf1 = tf.compat.v1

_global_engine: Optional["Engine"] = None


def _in_graph(method):
    """Runs an Engine method with the engine's graph as the default graph (TF ops created lazily, e.g. by
    the updater or the checkpoint loader, must land there, also when eager execution is enabled)."""
    import functools

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        if self.graph is None:
            return method(self, *args, **kwargs)
        with self.graph.as_default():
            return method(self, *args, **kwargs)

    return wrapper


def get_global_engine() -> "Engine":
    """The most recently created :class:`Engine` (as the reference's ``get_global_engine``).

    :raises RuntimeError: no engine was created yet
    """
    if _global_engine is None:
        raise RuntimeError("no Engine was created yet")
    return _global_engine


class Engine(EngineBase):
    """Runs training, evaluation and forwarding of a TF network described by a config.

    The network of each epoch (``pretrain``, ``get_network``, ``#config``) is chosen by
    :mod:`~returnn.tf.engine.epoch_network`; when it changes, the graph is rebuilt and the params carried over
    (:mod:`~returnn.tf.engine.param_copy`).

    :param config: defaults to the global config
    """

    def __init__(self, config: Optional[Config] = None):
        global _global_engine
        super().__init__(config if config is not None else get_global_config())
        self.net_dict: Optional[Dict[str, Any]] = None  # the network dict of the current graph
        self._epoch_config: Optional[epoch_network.EpochConfig] = None
        self.train_data = None
        self.dev_data = None
        self.eval_data = None
        self.eval_datasets: Dict[str, Any] = {}
        self.graph: Optional[tf.Graph] = None
        self.session = None
        self.network = None
        self.updater = None
        self.learning_rate_control = None
        self.train_flag_placeholder = None
        self.epoch = 0
        self.start_epoch = 1
        self.model_filename: Optional[str] = self.config.value("model", None)
        self.loaded_model: ModelChoice = ModelChoice(None, None)
        self.device_kind: Optional[str] = None
        self._loader: Optional[CheckpointLoader] = None
        self._saver: Optional[CheckpointSaver] = None
        self._stop_signal: Optional[int] = None
        _global_engine = self

    # ------------------------------------------------------------------ datasets

    def _set_datasets(self, train_data=None, dev_data=None, eval_data=None, eval_datasets=None) -> None:
        self.train_data, self.dev_data, self.eval_data = train_data, dev_data, eval_data
        self.eval_datasets = {}
        if dev_data is not None:
            self.eval_datasets["dev"] = dev_data
        if eval_data is not None:
            self.eval_datasets["eval"] = eval_data
        self.eval_datasets.update(eval_datasets or {})

    def init_datasets_from_config(self, config: Optional[Config] = None) -> None:
        """Builds train/dev/eval/eval_datasets via :func:`returnn.datasets.from_config.init_datasets_from_config`."""
        from returnn.datasets.from_config import init_datasets_from_config

        datasets = init_datasets_from_config(config or self.config)
        self._set_datasets(datasets.get("train"), datasets.get("dev"), datasets.get("eval"),
                           datasets.get("eval_datasets"))

    # ------------------------------------------------------------------ graph and session

    def get_net_dict_for_epoch(self, *, epoch: Optional[int], step: Optional[int] = None,
                               config: Optional[Config] = None) -> Dict[str, Any]:
        """The network dict of ``epoch`` (see :func:`~returnn.tf.engine.epoch_network.get_net_dict_for_epoch`);
        ``epoch`` None (a random model for a non-training task): the final network."""
        config = config or self.config
        if epoch is None:
            epoch = self.pretrain.get_train_num_epochs() + 1 if self.pretrain is not None else 1
        return epoch_network.get_net_dict_for_epoch(config, self.pretrain, epoch)

    def _apply_epoch_config(self, net_dict: Dict[str, Any], epoch: int) -> None:
        from returnn.tf.engine.network_change import apply_epoch_config

        apply_epoch_config(self, net_dict, epoch)

    def _build(self, *, train: bool, epoch: Optional[int] = None, eval_flag: bool = False,
               search_flag: bool = False, net_dict_post_proc=None, with_updater: bool = True,
               net_dict: Optional[Dict[str, Any]] = None) -> None:
        """New graph + session with the network of ``epoch`` (or ``net_dict``), and the updater when ``train`` and
        ``with_updater`` (without it, the global step is still created, as checkpoints hold it)."""
        if net_dict is None:
            net_dict = self.get_net_dict_for_epoch(epoch=epoch)
            self._apply_epoch_config(net_dict, epoch or 1)
        self.net_dict = net_dict
        self.close_session()
        self.device_kind = get_device_kind(self.config)
        self.graph = tf.Graph()
        datasets = [self.train_data, self.eval_data, self.dev_data] + list(self.eval_datasets.values())
        with self.graph.as_default():
            seed = self.config.int("random_seed", 42)
            tf1.set_random_seed(seed)
            extern_data = network_setup.create_extern_data(self.config, datasets)
            if net_dict_post_proc:
                net_dict = net_dict_post_proc(net_dict)
            if train:
                self.train_flag_placeholder = tf1.placeholder_with_default(False, shape=(), name="train_flag")
                train_flag: Any = self.train_flag_placeholder
            else:
                self.train_flag_placeholder = None
                train_flag = False
            self.network = network_setup.create_network(
                self.config, extern_data=extern_data, net_dict=net_dict, train_flag=train_flag,
                eval_flag=eval_flag or train, search_flag=search_flag, rnd_seed=seed)
            if net_dict.get("#trainable", True) is False:  # as the reference: no param of this network is trained
                epoch_network.freeze_params(self.network)
            if hasattr(self.network, "print_network_info"):
                self.network.print_network_info()
            self.updater = None
            if train and with_updater:
                self.updater = network_setup.create_updater(self.config, self.network,
                                                            self.config.float("learning_rate", 1.0))
                if hasattr(self.network, "get_trainable_params") and not self.network.get_trainable_params():
                    self.optim_op = tf.no_op(name="no_trainable_params")  # as the reference: no optimizer, no step
                else:
                    self.optim_op = self.updater.get_optim_op()
            elif train:
                self.network.global_train_step  # noqa: B018 (created here: part of every training checkpoint)
            self.session = new_session(self.config, self.graph, self.device_kind)
            self.session.run(tf1.global_variables_initializer())  # optimizer state included: built above
            self._loader = CheckpointLoader()
            self._saver = CheckpointSaver(self._saveable_variables())

    def _saveable_variables(self):
        """All global variables except the learning-rate variable (set each epoch, never loaded)."""
        return [v for v in tf1.global_variables() if var_name(v) != "learning_rate"]

    def _all_variables(self):
        """All global variables of the engine's graph (synchronized over workers in distributed training)."""
        with self.graph.as_default():
            return tf1.global_variables()

    def _param_variables(self):
        """The network's params: required in a checkpoint (global step and optimizer slots are optional)."""
        return list(self.network.get_params_list())

    def close_session(self) -> None:
        """Closes the session (the graph is dropped)."""
        if self.session is not None:
            self.session.close()
        self.session = None

    def finalize(self) -> None:
        """Releases the session (reference API)."""
        self.close_session()

    # ------------------------------------------------------------------ init entry points

    def init_train_from_config(self, config: Optional[Config] = None, train_data=None, dev_data=None,
                               eval_data=None, eval_datasets: Optional[Dict[str, Any]] = None, *,
                               require_train_data: bool = True, with_updater: bool = True) -> None:
        """Prepares training: datasets, learning-rate control, network + updater + session, and loads the
        checkpoint to continue from (see :mod:`~returnn.tf.engine.model_selection`).

        :param require_train_data: False for the ``initialize_model`` task, which only needs the network (the
            data shapes then come from ``extern_data``/``num_outputs`` or the other datasets), as the reference
        :param with_updater: False for ``initialize_model``: no optimizer, so its checkpoint holds the params and
            the global step only, as the reference's
        :raises ConfigValueError: no ``train`` dataset (when required), ``model`` directory not writable, bad
            ``start_epoch``/``load_epoch``, ...
        """
        if config is not None:
            self.config = config
        if eval_datasets is None:
            eval_datasets = self._config_eval_datasets()
        self._set_datasets(train_data, dev_data, eval_data, eval_datasets)
        if self.train_data is None and require_train_data:
            raise ConfigValueError("train", expected="a dataset for task 'train' (dict with 'class')", got=None)
        self.model_filename = self.config.value("model", None)
        if dist.is_root():  # only rank 0 writes checkpoints
            self.check_model_dir_writable()
        if self.train_data is not None:
            dist.apply_random_seed_offset(self.train_data)
        self.learning_rate_control = network_setup.create_learning_rate_control(self.config)
        self.pretrain = pretrain_from_config(self.config)
        choice = choose_model_for_train(self.config, pretrain=self.pretrain)
        self.start_epoch = (choice.epoch or 0) + 1 if not choice.params_only else 1
        self.start_epoch = engine_hooks.sync_int(self.start_epoch, "start_epoch")  # rank 0's, when distributed
        # the network of the checkpoint to load (the epoch's own network follows in init_train_epoch)
        loads_epoch = choice.filename is not None and not choice.params_only and choice.epoch
        self.epoch = choice.epoch if loads_epoch else self.start_epoch
        self._build(train=True, epoch=self.epoch, with_updater=with_updater)
        if engine_hooks.loads_checkpoints():
            self._load_choice(choice, is_training=True)
        engine_hooks.sync_model(self, self._all_variables())

    def _config_eval_datasets(self) -> Dict[str, Any]:
        if not self.config.typed_value("eval_datasets", None):
            return {}
        from returnn.datasets.from_config import init_datasets_from_config

        return init_datasets_from_config(self.config)["eval_datasets"]

    def init_network_from_config(self, config: Optional[Config] = None, *, task: str = "eval",
                                 net_dict_post_proc=None) -> None:
        """Builds the network without updater (train flag off) and loads the model for ``task``
        (``load``, ``load_epoch``, newest checkpoint, or random init with ``allow_random_model_init``)."""
        if config is not None:
            self.config = config
        self.model_filename = self.config.value("model", None)
        self.pretrain = pretrain_from_config(self.config)
        choice = choose_model_for_eval(self.config, task=task)
        self.epoch = choice.epoch or 0
        if task == "eval":
            print("Evaluate epoch %i" % self.epoch, file=log.v3)
            if self.learning_rate_control is None:  # the scores go there (saved with a learning_rate_file)
                self.learning_rate_control = network_setup.create_learning_rate_control(self.config)
        search = task == "search" or (task == "forward" and self.config.bool("forward_use_search", False))
        eval_flag = task == "eval" or (task == "search" and self.config.bool("search_do_eval", True))
        self._build(train=False, epoch=choice.epoch, eval_flag=eval_flag, search_flag=search,
                    net_dict_post_proc=net_dict_post_proc)
        if engine_hooks.loads_checkpoints():
            self._load_choice(choice, is_training=False)
        engine_hooks.sync_model(self, self._all_variables())

    # ------------------------------------------------------------------ checkpoints

    def check_model_dir_writable(self) -> None:
        """:raises ConfigValueError: the directory of ``model`` cannot be created or written"""
        if not self.model_filename or self.config.bool("dry_run", False):
            return
        directory = os.path.dirname(os.path.abspath(self.model_filename))
        try:
            os.makedirs(directory, exist_ok=True)
            probe = os.path.join(directory, ".returnn-write-test-%d" % os.getpid())
            with open(probe, "w"):
                pass
            os.remove(probe)
        except OSError as exc:
            raise ConfigValueError("model", expected="a path prefix in a writable directory (checkpoints are "
                                                     "saved there after each epoch)", got=self.model_filename,
                                   hint="%s: %s" % (directory, exc.strerror or exc)) from exc

    @_in_graph
    def _load_choice(self, choice: ModelChoice, *, is_training: bool) -> None:
        self.loaded_model = choice
        preloaded = self._preload_from_files(is_training=is_training, from_scratch=choice.filename is None
                                             or choice.params_only)
        if choice.filename is None:
            if not is_training:
                print("Note: no model loaded, using randomly initialized parameters.", file=log.v3)
            return
        print("loading weights from %s" % choice.filename, file=log.v3)
        params = [v for v in self._param_variables() if id(v) not in preloaded]
        all_vars = self._saveable_variables()
        optional = [v for v in all_vars if id(v) not in {id(p) for p in params}]
        if choice.params_only:  # the params and (if in the file) the global step, as the reference
            optional = [v for v in optional if var_name(v) == "global_step"]
            variables = params + optional
        else:
            variables = [v for v in all_vars if id(v) not in preloaded]
        self._loader.load(self.session, choice.filename, variables, optional=optional,
                          ignore_missing=self.config.bool("load_ignore_missing_vars", False),
                          what="config key 'import_model_train_epoch1'" if choice.params_only else "model")

    def _preload_from_files(self, *, is_training: bool, from_scratch: bool) -> set:
        """Applies ``preload_from_files``; returns ids of the variables it set."""
        spec = self.config.typed_value("preload_from_files", None) or {}
        if not isinstance(spec, dict):
            raise ConfigValueError("preload_from_files", expected="a dict name -> {'filename': ..., ...}", got=spec)
        done = set()
        done_any = False
        for name, opts in sorted(spec.items()):
            if not isinstance(opts, dict) or "filename" not in opts:
                raise ConfigValueError("preload_from_files", expected="entry %r: a dict with 'filename'" % name,
                                       got=opts)
            init_for_train = opts.get("init_for_train", False)
            if init_for_train == "always":
                pass
            elif init_for_train:
                if not (is_training and from_scratch):
                    continue
            elif is_training:
                continue
            prefix = opts.get("prefix", "") or ""
            ignore = set(opts.get("ignore_params", ()))
            ignore_prefixes = tuple(opts.get("ignore_params_prefixes", ()))
            mapping = dict(opts.get("var_name_mapping", {}) or {})
            variables = [v for v in self._param_variables() if var_name(v).startswith(prefix)
                         and var_name(v) not in ignore and not (ignore_prefixes and var_name(v).startswith(ignore_prefixes))]

            def name_map(n: str, _prefix=prefix, _mapping=mapping) -> str:
                return _mapping.get(n, n[len(_prefix):])

            if not done_any:
                print("Start pre-loading weights...", file=log.v2)  # as the reference
                done_any = True
            print("loading weights from %s" % opts["filename"], file=log.v2)
            loaded = self._loader.load(self.session, opts["filename"], variables, name_map=name_map,
                                       ignore_missing=bool(opts.get("ignore_missing", False)),
                                       what="preload_from_files[%r]" % name)
            done |= {id(v) for v in loaded}
        return done

    @_in_graph
    def save_model(self, filename: Optional[str] = None) -> None:
        """Saves all variables (params, ``global_step``, optimizer state) to ``filename`` (default: the
        current epoch's ``<model>.NNN``), crash-safely, and updates the ``checkpoint`` state file."""
        if self.config.bool("dry_run", False) or not dist.is_root():  # distributed: rank 0 saves
            return
        filename = filename or self.get_epoch_model_filename()
        print("Save model under %s" % filename, file=log.v4)
        self._saver.save(self.session, filename)
        if self.model_filename and filename.startswith(self.model_filename):
            update_checkpoint_state_file(self.model_filename, filename)

    @_in_graph
    def load_model(self, epoch: Optional[int] = None, filename: Optional[str] = None) -> None:
        """Loads ``filename`` or ``<model>.<epoch>`` into the current session."""
        if filename is None:
            filename = self.get_epoch_model_filename(epoch)
        print("loading weights from %s" % filename, file=log.v3)
        params = self._param_variables()
        param_ids = {id(p) for p in params}
        all_vars = self._saveable_variables()
        self._loader.load(self.session, filename, all_vars, optional=[v for v in all_vars if id(v) not in param_ids],
                          ignore_missing=self.config.bool("load_ignore_missing_vars", False))

    def get_existing_epochs(self):
        """Epochs with a complete checkpoint of ``model`` (``<model>.NNN`` or ``<model>.pretrain.NNN``)."""
        return sorted(get_existing_checkpoints(self.model_filename)) if self.model_filename else []

    # ------------------------------------------------------------------ per-epoch networks

    @_in_graph
    def init_train_epoch(self) -> bool:
        """Before training epoch ``self.epoch``: applies its ``#config`` and, if its network differs from the
        current one, rebuilds the graph and carries the params over (see
        :func:`~returnn.tf.engine.network_change.init_network_for_epoch`). Returns whether it rebuilt."""
        from returnn.tf.engine.network_change import init_network_for_epoch

        return init_network_for_epoch(self, self.epoch)

    # ------------------------------------------------------------------ signals

    def stop_requested(self) -> bool:
        """Whether SIGINT/SIGTERM arrived during training (checked between steps)."""
        return self._stop_signal is not None

    def request_stop(self, signum: int = signal.SIGINT) -> None:
        """Asks the running loop to stop after the current step (as a signal does)."""
        self._stop_signal = signum

    def _install_signal_handlers(self):
        if threading.current_thread() is not threading.main_thread():
            return None
        previous = {}

        def handler(signum, _frame):
            if self._stop_signal is not None:  # second signal: stop hard
                raise KeyboardInterrupt()
            print("\nReceived signal %s, stopping after the current step ..." % signal.Signals(signum).name,
                  file=log.v1)
            self._stop_signal = signum

        for sig in (signal.SIGINT, signal.SIGTERM):
            previous[sig] = signal.signal(sig, handler)
        return previous

    @staticmethod
    def _restore_signal_handlers(previous) -> None:
        for sig, old in (previous or {}).items():
            signal.signal(sig, old)

    # ------------------------------------------------------------------ loops (see the sibling modules)

    @_in_graph
    def train(self) -> None:
        """Trains the epochs ``start_epoch .. num_epochs`` (see :func:`returnn.tf.engine.training.train`)."""
        from returnn.tf.engine.training import train

        train(self)

    @_in_graph
    def eval_model(self, output_file: Optional[str] = None, output_per_seq_file: Optional[str] = None,
                   loss_name: Optional[str] = None, output_per_seq_format=None, output_per_seq_file_format="txt",
                   skip_already_evaluated: bool = False) -> Dict[str, Dict[str, float]]:
        """Evaluates the loaded model on dev/eval/eval_datasets; prints the ``dev: score ...`` line.

        :return: dataset name → ``{"score_<loss>"/"error_<loss>": value}``-style results (see evaluation)
        """
        from returnn.tf.engine.evaluation import eval_model

        return eval_model(self, output_file=output_file)

    @_in_graph
    def forward_to_hdf(self, data, output_file: str, combine_labels: str = "", batch_size: int = 0,
                       output_layer=None) -> None:
        """Runs the network over ``data`` and writes the output layer to the HDF ``output_file``."""
        from returnn.tf.engine.forward import forward_to_hdf

        forward_to_hdf(self, data, output_file, batch_size=batch_size, output_layer=output_layer)

    @_in_graph
    def forward_with_callback(self, *, dataset, callback) -> None:
        """Runs the network over ``dataset``, handing each sequence's outputs to ``callback``
        (a :class:`returnn.forward_iface.ForwardCallbackIface`)."""
        from returnn.tf.engine.forward import forward_with_callback

        forward_with_callback(self, dataset=dataset, callback=callback)

    @_in_graph
    def forward_single(self, dataset, seq_idx: int, output_layer_name: Optional[str] = None):
        """The output layer for one sequence: numpy array ``[T, dim]`` (see
        :func:`returnn.tf.engine.forward.forward_single`)."""
        from returnn.tf.engine.forward import forward_single

        return forward_single(self, dataset, seq_idx, output_layer_name)

    @classmethod
    def get_epoch_model(cls, config: Config):
        """``(epoch, checkpoint prefix)`` a non-training task would load (``(None, None)`` for random init with
        ``allow_random_model_init``), as the reference's ``Engine.get_epoch_model``."""
        choice = choose_model_for_eval(config, task=config.value("task", "eval"))
        return choice.epoch, choice.filename

    @_in_graph
    def compute_priors(self, dataset, config: Optional[Config] = None) -> None:
        """Averages the output layer's posteriors over ``dataset``; writes log priors to ``output_file``."""
        from returnn.tf.engine.forward import compute_priors

        compute_priors(self, dataset)

    def cleanup_old_models(self, ask_for_confirmation: bool = False) -> None:
        """Deletes old checkpoints per ``cleanup_old_models`` (see :mod:`returnn.tf.engine.cleanup`)."""
        from returnn.tf.engine.cleanup import cleanup_old_models

        cleanup_old_models(self.config, learning_rate_control=self.learning_rate_control,
                           ask_for_confirmation=ask_for_confirmation)

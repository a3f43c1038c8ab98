"""Building what a run computes with: a new graph with the network (and, for training, the updater), its session
and the checkpoint reader/writer of its variables."""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional

import tensorflow as tf

from returnn.errors import NoTrainableLossError
from returnn.log import log
from returnn.options import DataOptions, FrontendOptions, UpdaterOptions
from returnn.tf.engine import epoch_network, network_setup
from returnn.tf.engine.frontend.config_entry import is_rf_model
from returnn.tf.engine.checkpoints import CheckpointLoader, CheckpointSaver, var_name
from returnn.tf.engine.seeds import run_seeds
from returnn.tf.engine.session import get_device_kind, new_session
from returnn.tf.engine.state import RunState
from returnn.tf.ops import step_random

tf1 = tf.compat.v1


def net_dict_for_epoch(state: RunState, epoch: Optional[int]) -> Dict[str, Any]:
    """The network dict of ``epoch`` (see :func:`~returnn.tf.engine.epoch_network.get_net_dict_for_epoch`);
    ``epoch`` None (a random model for a non-training task): the final network."""
    if epoch is None:
        epoch = state.pretrain.get_train_num_epochs() + 1 if state.pretrain is not None else 1
    return epoch_network.get_net_dict_for_epoch(state.options.run, state.options.get(FrontendOptions), state.pretrain,
                                                epoch)


def build(state: RunState, *, train: bool, epoch: Optional[int] = None, eval_flag: bool = False,
          search_flag: bool = False, net_dict_post_proc: Optional[Callable[[Dict], Dict]] = None,
          with_updater: bool = True, net_dict: Optional[Dict[str, Any]] = None) -> None:
    """A new graph and session in ``state`` with the network of ``epoch`` (or ``net_dict``, whose ``#config`` the
    caller applied), and the updater when ``train`` and ``with_updater`` (without it, the global step is still
    created, as checkpoints hold it). All variables are initialized (the optimizer state included)."""
    from returnn.tf.engine.network_change import apply_epoch_config

    if net_dict is None:
        net_dict = net_dict_for_epoch(state, epoch)
        apply_epoch_config(state, net_dict, epoch or 1)
    state.net_dict = net_dict
    close_session(state)
    config = state.config
    run_opts = state.options.run
    state.device_kind = get_device_kind(run_opts)
    state.graph = tf.Graph()
    with state.graph.as_default():
        graph_seed, net_seed = run_seeds(run_opts.random_seed)
        tf1.set_random_seed(graph_seed)
        data_opts = state.options.get(DataOptions)
        pipeline = train and data_opts.dataset_pipeline
        extern_data = network_setup.create_extern_data(data_opts, state.datasets.all(),
                                                       auto_create_placeholders=not pipeline)
        state.dataset_provider = None
        if pipeline:  # the input comes from tf.data instead of placeholders (returnn.tf.data_pipeline)
            state.dataset_provider = network_setup.create_dataset_provider(
                state.config, extern_data, {"train": state.datasets.train, **state.datasets.evaluated})
        if net_dict_post_proc:
            net_dict = net_dict_post_proc(net_dict)
        step_seeded = train and state.options.training.step_checkpoints_enabled
        if step_seeded:  # resumable random ops (returnn.tf.engine.step_checkpoints)
            step_random.create_step_seed(state.graph)
            tf.config.experimental.enable_op_determinism()
        if train:
            state.train_flag = tf1.placeholder_with_default(False, shape=(), name="train_flag")
            train_flag: Any = state.train_flag
        else:
            state.train_flag = None
            train_flag = False
        if is_rf_model(run_opts, state.options.get(FrontendOptions)):  # an RF model (get_model, train_step/forward_step)
            state.network = network_setup.create_rf_network(
                config, extern_data=extern_data, train_flag=train_flag, eval_flag=eval_flag or train,
                search_flag=search_flag, rnd_seed=net_seed, epoch=epoch)
        else:
            search_train_layers = state.options.training.search_train_network_layers if train and not search_flag \
                else ()
            state.network = network_setup.create_network(
                config, extern_data=extern_data, net_dict=net_dict, train_flag=train_flag,
                eval_flag=eval_flag or train, search_flag=search_flag, rnd_seed=net_seed,
                **({"search_train_layers": search_train_layers} if search_train_layers else {}))
        if net_dict.get("#trainable", True) is False:  # as the reference: no param of this network is trained
            epoch_network.freeze_params(state.network)
        if hasattr(state.network, "print_network_info"):
            state.network.print_network_info()
        state.updater = None
        state.optim_op = None
        state.optim_op_error = None
        if train and with_updater:
            state.updater = network_setup.create_updater(state.options.get(UpdaterOptions), state.network,
                                                         state.options.learning_rate_control.learning_rate,
                                                         strategy=state.strategy)
            if hasattr(state.network, "get_trainable_params") and not state.network.get_trainable_params():
                state.optim_op = tf.no_op(name="no_trainable_params")  # as the reference: no optimizer, no step
            else:
                try:
                    state.optim_op = state.updater.get_optim_op()
                except NoTrainableLossError as exc:  # raised when a step is run (the network can still be set up,
                    state.optim_op_error = exc  # e.g. to load or copy params, as the reference)
        elif train:
            state.network.global_train_step  # noqa: B018 (created here: part of every training checkpoint)
        if step_seeded and state.optim_op is not None:
            _warn_stateful_random_ops(state)
        state.session = new_session(run_opts, state.graph, state.device_kind, strategy=state.strategy)
        state.session.run(tf1.global_variables_initializer())  # optimizer state included: built above
        state.loader = CheckpointLoader()
        state.saver = CheckpointSaver(saveable_variables(state))
    state.loss_fetches = None


def _warn_stateful_random_ops(state: RunState) -> None:
    """Step checkpoints: names the random ops of the training step whose state a checkpoint cannot hold."""
    ops = step_random.stateful_random_ops([state.optim_op])
    if ops:
        names = ", ".join(op.name for op in ops[:10]) + (", ..." if len(ops) > 10 else "")
        log.print_warning(
            "step checkpoints: %i random op(s) of the training step keep their state in the session, not in a "
            "checkpoint (random ops inside a rec loop, tf.random.* in eval/custom code): a run resumed from a step "
            "checkpoint draws other values there than a run never stopped: %s" % (len(ops), names))


def saveable_variables(state: RunState) -> List:
    """All global variables of the graph except the learning-rate variable (set each epoch, never loaded)."""
    with state.graph.as_default():
        return [v for v in tf1.global_variables() if var_name(v) != "learning_rate"]


def all_variables(state: RunState) -> List:
    """All global variables of the graph (synchronized over the workers in distributed training)."""
    with state.graph.as_default():
        return tf1.global_variables()


def param_variables(state: RunState) -> List:
    """The network's params: required in a checkpoint (global step and optimizer slots are optional)."""
    return list(state.network.get_params_list())


def sync_model(state: RunState) -> None:
    """All workers get rank 0's values of every variable (nothing to do in a single process)."""
    state.strategy.sync_model(state.graph, state.session, all_variables(state))


def close_session(state: RunState) -> None:
    """Calls the network's graph reset callbacks (e.g. hdf_dump closes its file) and closes the session (the graph
    is dropped with the next build)."""
    if state.network is not None:
        state.network.call_graph_reset_callbacks()
    if state.session is not None:
        state.session.close()
    state.session = None

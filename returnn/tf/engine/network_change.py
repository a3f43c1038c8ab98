"""Switching the engine to the network of a new training epoch (pretrain growth, ``get_network``, ``#config``).

Before each training epoch, as the reference (order of its log lines): the epoch's network dict is taken
(:func:`~returnn.tf.engine.epoch_network.get_net_dict_for_epoch`), its ``#config`` applied (``Update config key
...``, ``Overwrite learning rate ...``), and, if it differs from the network of the current graph (any difference,
``#`` entries included), the lines ``reinit because network description differs. Diff:`` and the difference
(:mod:`~returnn.tf.engine.net_dict_diff`) are logged (v3), a new graph with the new network, updater and session
is built, the params are carried over (:mod:`~returnn.tf.engine.param_copy`) and the global step continues.
Optimizer slots (Adam moments ...) start anew, as the reference's optimizer is rebuilt with the network.
"""

from __future__ import annotations

from returnn.log import log
from returnn.tf.engine.build import build, net_dict_for_epoch, sync_model
from returnn.tf.engine.epoch_network import EpochConfig, copy_param_mode_of
from returnn.tf.engine.net_dict_diff import net_dict_diff
from returnn.tf.engine.param_copy import ParamSnapshot, assign_values, copy_params
from returnn.tf.engine.state import Datasets, RunState


def init_network_for_epoch(state: RunState, epoch: int) -> bool:
    """See module doc. Returns whether the network was rebuilt."""
    net_dict = net_dict_for_epoch(state, epoch)
    apply_epoch_config(state, net_dict, epoch)
    diff = net_dict_diff(state.net_dict, net_dict)
    if not diff:
        state.net_dict = net_dict
        return False
    print("reinit because network description differs. Diff:", file=log.v3)
    for line in diff:
        print(line, file=log.v3)
    mode = copy_param_mode_of(net_dict, state.pretrain)
    snapshot = ParamSnapshot(state.network, state.session)
    step_var = _global_step(state.network)
    global_step = state.session.run(step_var) if step_var is not None else None
    build(state, train=True, epoch=epoch, net_dict=net_dict, with_updater=state.updater is not None)
    copy_params(snapshot, state.network, state.session, mode)
    new_step_var = _global_step(state.network)
    if global_step is not None and new_step_var is not None:
        assign_values(state.session, [(new_step_var, global_step)])
    sync_model(state)
    return True


def apply_epoch_config(state: RunState, net_dict, epoch: int) -> None:
    """Applies the ``#config`` of ``net_dict`` (see :class:`~returnn.tf.engine.epoch_network.EpochConfig`) and
    re-creates the datasets whose config keys it changed (``train``, ``dev``, ``eval``, ``eval_datasets``), as the
    reference. The run's parsed options are read anew (an override may change any key)."""
    if state.epoch_config is None or state.epoch_config.config is not state.config:
        state.epoch_config = EpochConfig(state.config)
    changed = state.epoch_config.apply(net_dict, epoch, learning_rate_control=state.learning_rate_control,
                                       pretrain=state.pretrain)
    if changed:
        state.options.refresh()
    keys = [key for key in changed if key in ("train", "dev", "eval", "eval_datasets")]
    if keys:
        if state.network is not None:  # the new datasets may read files the current network's layers write (an
            state.network.call_graph_reset_callbacks()  # hdf_dump of the last epoch): closed first, as the reference
        _reinit_datasets(state, keys)


def _reinit_datasets(state: RunState, keys) -> None:
    from returnn.datasets.from_config import init_dataset_of_key, init_extra_eval_datasets
    from returnn.options import DataOptions

    data = state.options.get(DataOptions)  # parsed after the epoch's #config was applied
    old = state.datasets
    new = Datasets(train=old.train, dev=old.dev, eval=old.eval, extra=dict(old.extra))
    if "train" in keys and old.train is not None:
        new.train = init_dataset_of_key(data, "train", is_train=True)
        state.strategy.prepare_train_data(new.train)
    if "dev" in keys:
        new.dev = init_dataset_of_key(data, "dev")
    if "eval" in keys:
        new.eval = init_dataset_of_key(data, "eval")
    if "eval_datasets" in keys:
        new.extra = init_extra_eval_datasets(data)
    state.datasets = new


def _global_step(network):
    try:
        return network.global_train_step
    except Exception:  # noqa: BLE001 (a network without one)
        return None

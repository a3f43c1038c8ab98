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
from returnn.tf import distributed as dist
from returnn.tf.distributed import engine_hooks
from returnn.tf.engine.epoch_network import EpochConfig, copy_param_mode_of
from returnn.tf.engine.net_dict_diff import net_dict_diff
from returnn.tf.engine.param_copy import ParamSnapshot, assign_values, copy_params


def init_network_for_epoch(engine, epoch: int) -> bool:
    """See module doc. Returns whether the network was rebuilt."""
    net_dict = engine.get_net_dict_for_epoch(epoch=epoch)
    engine._apply_epoch_config(net_dict, epoch)
    diff = net_dict_diff(engine.net_dict, net_dict)
    if not diff:
        engine.net_dict = net_dict
        return False
    print("reinit because network description differs. Diff:", file=log.v3)
    for line in diff:
        print(line, file=log.v3)
    mode = copy_param_mode_of(net_dict, engine.pretrain)
    snapshot = ParamSnapshot(engine.network, engine.session)
    step_var = _global_step(engine.network)
    global_step = engine.session.run(step_var) if step_var is not None else None
    engine._build(train=True, epoch=epoch, net_dict=net_dict, with_updater=engine.updater is not None)
    copy_params(snapshot, engine.network, engine.session, mode)
    new_step_var = _global_step(engine.network)
    if global_step is not None and new_step_var is not None:
        assign_values(engine.session, [(new_step_var, global_step)])
    engine_hooks.sync_model(engine, engine._all_variables())
    return True


def apply_epoch_config(engine, net_dict, epoch: int) -> None:
    """Applies the ``#config`` of ``net_dict`` (see :class:`~returnn.tf.engine.epoch_network.EpochConfig`) and
    re-creates the datasets whose config keys it changed (``train``, ``dev``, ``eval``, ``eval_datasets``), as the
    reference."""
    if engine._epoch_config is None or engine._epoch_config.config is not engine.config:
        engine._epoch_config = EpochConfig(engine.config)
    changed = engine._epoch_config.apply(net_dict, epoch, learning_rate_control=engine.learning_rate_control,
                                         pretrain=engine.pretrain)
    keys = [key for key in changed if key in ("train", "dev", "eval", "eval_datasets")]
    if keys:
        _reinit_datasets(engine, keys)


def _reinit_datasets(engine, keys) -> None:
    from returnn.datasets.from_config import init_dataset_from_config_key, init_datasets_from_config

    config = engine.config
    train_data, dev_data, eval_data = engine.train_data, engine.dev_data, engine.eval_data
    extra = {k: v for k, v in engine.eval_datasets.items() if k not in ("dev", "eval")}
    if "train" in keys and engine.train_data is not None:
        train_data = init_dataset_from_config_key(config, "train", is_train=True)
        dist.apply_random_seed_offset(train_data)
    if "dev" in keys:
        dev_data = init_dataset_from_config_key(config, "dev")
    if "eval" in keys:
        eval_data = init_dataset_from_config_key(config, "eval")
    if "eval_datasets" in keys:
        extra = init_datasets_from_config(config)["eval_datasets"]
    engine._set_datasets(train_data, dev_data, eval_data, extra)


def _global_step(network):
    try:
        return network.global_train_step
    except Exception:  # noqa: BLE001 (a network without one)
        return None

"""Builds what the engine runs: extern data, the network, the updater and the learning-rate control.

These are the only places where the engine touches the network/updater/LR-control packages, so tests can
replace them (``monkeypatch.setattr(network_setup, "create_network", ...)``).
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Sequence

from returnn.options import DataOptions, LearningRateControlOptions, UpdaterOptions



def get_net_dict(config, epoch: Optional[int] = None) -> Dict[str, Any]:
    """The network dict of ``epoch`` without ``pretrain``: ``get_network(epoch=epoch)`` when defined (as the
    reference calls it), else config ``network`` (see :mod:`~returnn.tf.engine.epoch_network`, which the engine
    uses, ``pretrain`` included).

    :raises ConfigValueError: neither is set, or the value is not a dict
    """
    from returnn.options import FrontendOptions, RunOptions
    from returnn.tf.engine.epoch_network import get_net_dict_for_epoch

    return get_net_dict_for_epoch(RunOptions.from_config(config), FrontendOptions.from_config(config), None,
                                  epoch or 1)


def has_extern_data(data: DataOptions) -> bool:
    """Whether the config describes the data itself (``extern_data`` or ``num_inputs``/``num_outputs``)."""
    return any(value is not None for value in (data.extern_data, data.num_inputs, data.num_outputs))


def create_extern_data(data: DataOptions, datasets: Sequence = (), *, auto_create_placeholders: bool = True):
    """``ExternData`` from the parsed ``extern_data`` (or ``num_inputs``/``num_outputs``), else from the first
    given dataset; config and datasets are checked against each other.

    :param auto_create_placeholders: False: templates only, also for the data of a dataset (the network creates
        the placeholders, or a data pipeline sets its tensors)

    :raises ConfigValueError: neither config nor a dataset describes the data, or they disagree (names the key)
    """
    from returnn.datasets.extern_data import get_extern_data_from_options
    from returnn.tf.network import ExternData

    datasets = [d for d in datasets if d is not None]
    for dataset in datasets or [None]:
        get_extern_data_from_options(data, dataset)  # validates
    extern_data = ExternData()
    if has_extern_data(data):
        extern_data.init_from_options(data)
    else:
        extern_data.init_from_dataset(datasets[0], auto_create_placeholders=auto_create_placeholders)
    return extern_data


def create_dataset_provider(config, extern_data, datasets: Dict[str, Any]):
    """The tf.data pipeline (:class:`returnn.tf.data_pipeline.DatasetDataProvider`) of ``datasets`` (name →
    dataset; None entries are left out) whose tensors become the data of ``extern_data`` (current default graph)."""
    from returnn.tf.data_pipeline import DatasetDataProvider

    return DatasetDataProvider(extern_data=extern_data, config=config,
                               datasets={k: v for k, v in datasets.items() if v is not None})


def create_network(config, *, extern_data, net_dict: Dict[str, Any], train_flag: Any, eval_flag: bool,
                   search_flag: bool = False, rnd_seed: Optional[int] = None,
                   search_train_layers: Sequence[str] = ()):
    """Constructs the :class:`returnn.tf.network.TFNetwork` (in the current default graph).

    :param search_train_layers: layers also built with the search flag, in the extra network ``"extra.search"``
        (config ``search_train_network_layers``, see :func:`returnn.tf.network.extra_nets.construct_search_train_layers`)
    """
    from returnn.tf.network import TFNetwork
    from returnn.tf.network.extra_nets import construct_search_train_layers

    network = TFNetwork(config=config, extern_data=extern_data, rnd_seed=rnd_seed, train_flag=train_flag,
                        eval_flag=eval_flag, search_flag=search_flag)
    network.construct_from_dict(net_dict)
    if search_train_layers:
        construct_search_train_layers(network, net_dict, search_train_layers)
    return network


def create_rf_network(config, *, extern_data, train_flag: Any, eval_flag: bool, search_flag: bool = False,
                      rnd_seed: Optional[int] = None, epoch: Optional[int] = None):
    """For an RF config (``get_model``, see :mod:`returnn.tf.engine.frontend`): the
    :class:`~returnn.tf.engine.frontend.network.RFNetwork` of the model of ``epoch`` (in the current default graph)."""
    from returnn.tf.engine.frontend.network import create_rf_network as create

    return create(config, extern_data=extern_data, train_flag=train_flag, eval_flag=eval_flag,
                  search_flag=search_flag, rnd_seed=rnd_seed, epoch=epoch)


def create_updater(options: UpdaterOptions, network, initial_learning_rate: float, *, strategy=None):
    """The :class:`returnn.tf.updater.Updater` (of the parsed ``optimizer``, ``gradient_clip``, ...) for the
    network's objective; ``strategy`` (the run's :class:`~returnn.tf.distributed.strategy.DistributionStrategy`,
    default one process) builds its multi-worker part."""
    from returnn.tf.updater import Updater

    return Updater(config=options, network=network, initial_learning_rate=initial_learning_rate, strategy=strategy)


def create_learning_rate_control(options: LearningRateControlOptions):
    """The learning-rate control of the parsed ``learning_rate_control``, ``learning_rate_file``, ..."""
    from returnn.lr_control.from_config import learning_rate_control_from_options

    return learning_rate_control_from_options(options)

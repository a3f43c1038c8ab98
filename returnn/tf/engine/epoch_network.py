"""The network of each training epoch and the config overrides (``#config``) that come with it.

Which network epoch ``N`` trains (observed from the reference):

1. during ``pretrain`` (``N`` <= its number of epochs): the pretrain network of ``N``;
2. else, when the config defines ``get_network``: ``get_network(epoch=N)`` (called with that keyword only; it
   wins over ``network``);
3. else the final pretrain network (its ``WrapEpochValue`` s resolved with the last pretrain epoch), or config
   ``network``.

Entries of a network dict that start with ``#`` are not layers: ``#config`` (config overrides, below),
``#copy_param_mode`` (how params are carried into a changed network, see
:mod:`~returnn.tf.engine.param_copy`), ``#repetition`` (taken by the pretrain schedule), ``#trainable`` (False: no
param of the network is trained, as the reference), ``#info`` and any other ``#`` key (ignored, as the reference;
``#finish_all_data`` of some published configs included: it concerns multi-GPU data splitting).

``#config``: each key overrides the config value of that key while the epoch's network has it (``train``,
``dev``, ``eval``, ``eval_datasets``: the engine re-creates those datasets, as the reference); a key the config
does not set is an error (the reference asserts), and ``learning_rate`` sets the learning-rate control's rate of
the epoch instead (``Overwrite learning rate for epoch N: old -> new``; during pretrain it needs
``use_learning_rate_control_always = True``, as the reference). Keys no longer overridden get their original value
back. Log lines (v3): ``Update config key 'batch_size' for epoch 1: 500 -> 200`` (the original value on the left).
"""

from __future__ import annotations

from typing import Any, Dict, Optional

from returnn.errors import ConfigValueError
from returnn.options import FrontendOptions, RunOptions
from returnn.options.epoch_overrides import EpochConfig as EpochConfig  # the #config overrides (public here too)


def get_net_dict_for_epoch(run: RunOptions, frontend: FrontendOptions, pretrain, epoch: int) -> Dict[str, Any]:
    """The network dict epoch ``epoch`` trains (see module doc).

    :param run: the parsed ``network`` and ``get_network``
    :param frontend: the parsed ``get_model`` (an RF model has no layer dict: ``{}``)
    :param pretrain: the :class:`returnn.pretrain.Pretrain` of the config, or None
    :raises ConfigValueError: no network, ``get_network`` does not return a dict, or a ``WrapEpochValue`` is left
    """
    from returnn.tf.engine.frontend.config_entry import is_rf_model

    if is_rf_model(run, frontend):  # an RF model (get_model): no layer dict; the network is built from the RF code
        return {}
    if pretrain is not None and epoch <= pretrain.get_train_num_epochs():
        net_dict = pretrain.get_network_json_for_epoch(epoch)
        where = "the pretrain network of epoch %i" % epoch
    elif callable(run.get_network):
        net_dict = run.get_network(epoch=epoch)
        where = "get_network(epoch=%i)" % epoch
        if not isinstance(net_dict, dict):
            raise ConfigValueError("get_network", expected="a function returning the network dict of the epoch "
                                                           "(called as get_network(epoch=%i))" % epoch,
                                   got=type(net_dict).__name__)
    elif pretrain is not None:
        net_dict = pretrain.get_final_network_json()
        where = "the final pretrain network"
    else:
        net_dict = run.network
        where = "config 'network'"
        if not isinstance(net_dict, dict):
            raise ConfigValueError("network", expected="a dict layer name -> layer dict (or a function get_network)",
                                   got=net_dict)
    check_resolved(net_dict, where)
    return net_dict


def check_resolved(net_dict: Dict[str, Any], where: str) -> None:
    """:raises ConfigValueError: ``net_dict`` still holds a ``WrapEpochValue`` (naming where)"""
    from returnn.pretrain.wrap_epoch_value import find_wrapped_values

    left = find_wrapped_values(net_dict)
    if left:
        raise ConfigValueError("network", expected="values without WrapEpochValue in %s: the epoch values are "
                                                   "resolved only in the networks of 'pretrain', as dict values or "
                                                   "direct list elements (as the reference)" % where,
                               got=", ".join(left[:5]))


def freeze_params(network) -> None:
    """``"#trainable": False`` in a network dict: none of its params is trained (taken out of the trainable
    variables before the updater is built; the reference logs ``net trainable params: []`` then)."""
    import tensorflow as tf

    trainable = tf.compat.v1.get_collection_ref(tf.compat.v1.GraphKeys.TRAINABLE_VARIABLES)
    for param in network.get_params_list():
        if param in trainable:
            trainable.remove(param)


def copy_param_mode_of(net_dict: Dict[str, Any], pretrain) -> Optional[str]:
    """``#copy_param_mode`` of the network, else the ``pretrain`` option ``copy_param_mode`` (None: if possible).

    :raises ConfigValueError: not one of None, ``"ifpossible"``, ``"subset"``, ``"reset"``
    """
    mode = net_dict.get("#copy_param_mode", pretrain.copy_param_mode if pretrain is not None else None)
    if mode not in (None, "ifpossible", "subset", "reset"):
        raise ConfigValueError("#copy_param_mode", expected="None, 'ifpossible', 'subset' or 'reset'", got=mode)
    return mode

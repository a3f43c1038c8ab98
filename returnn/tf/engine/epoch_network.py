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

from typing import Any, Dict, List, Optional

from returnn.errors import ConfigValueError
from returnn.log import log


def get_net_dict_for_epoch(config, pretrain, epoch: int) -> Dict[str, Any]:
    """The network dict epoch ``epoch`` trains (see module doc).

    :param pretrain: the :class:`returnn.pretrain.Pretrain` of the config, or None
    :raises ConfigValueError: no network, ``get_network`` does not return a dict, or a ``WrapEpochValue`` is left
    """
    from returnn.tf.engine.frontend.config_entry import is_rf_config

    if is_rf_config(config):  # an RF model (get_model): no layer dict; the network is built from the RF code
        return {}
    if pretrain is not None and epoch <= pretrain.get_train_num_epochs():
        net_dict = pretrain.get_network_json_for_epoch(epoch)
        where = "the pretrain network of epoch %i" % epoch
    elif callable(config.typed_value("get_network", None)):
        net_dict = config.typed_value("get_network")(epoch=epoch)
        where = "get_network(epoch=%i)" % epoch
        if not isinstance(net_dict, dict):
            raise ConfigValueError("get_network", expected="a function returning the network dict of the epoch "
                                                           "(called as get_network(epoch=%i))" % epoch,
                                   got=type(net_dict).__name__)
    elif pretrain is not None:
        net_dict = pretrain.get_final_network_json()
        where = "the final pretrain network"
    else:
        net_dict = config.typed_value("network", None)
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


class EpochConfig:
    """Applies the ``#config`` of each epoch's network to the config (see module doc).

    :param config: the run's config (modified in place; originals remembered here)
    """

    def __init__(self, config):
        self.config = config
        self._originals: Dict[str, Any] = {}

    def apply(self, net_dict: Dict[str, Any], epoch: int, *, learning_rate_control=None, pretrain=None) -> List[str]:
        """Sets the overrides of ``net_dict["#config"]`` for ``epoch`` (keys in sorted order, as the reference logs
        them) and restores the keys it does not set.

        :return: the config keys whose value changed (e.g. ``train``: the engine re-creates that dataset)
        :raises ConfigValueError: ``#config`` is not a dict, names a key the config does not set, or sets
            ``learning_rate`` during pretrain without ``use_learning_rate_control_always``
        """
        overrides = net_dict.get("#config") or {}
        if not isinstance(overrides, dict):
            raise ConfigValueError("#config", expected="a dict config key -> value in the network of epoch %i"
                                   % epoch, got=overrides)
        changed = []
        for key in sorted(overrides, key=str):
            value = overrides[key]
            if key == "learning_rate":
                self._overwrite_learning_rate(value, epoch, learning_rate_control, pretrain)
                continue
            if key not in self._originals:
                if not self.config.has(key):
                    raise ConfigValueError("#config", expected="keys the config sets (the network of epoch %i "
                                                               "overrides %r, which the config does not set; give "
                                                               "it a default value there)" % (epoch, key), got=key)
                self._originals[key] = self.config.typed_value(key)
            print("Update config key %r for epoch %i: %r -> %r" % (key, epoch, self._originals[key], value),
                  file=log.v3)
            if _differs(self.config.typed_value(key), value):
                changed.append(key)
            self.config.set(key, value)
        for key in [k for k in self._originals if k not in overrides]:
            self.config.set(key, self._originals.pop(key))
            changed.append(key)
        return changed

    def _overwrite_learning_rate(self, value: Any, epoch: int, learning_rate_control, pretrain) -> None:
        if pretrain is not None and not self.config.bool("use_learning_rate_control_always", False):
            raise ConfigValueError("use_learning_rate_control_always",
                                   expected="True when a pretrain network's '#config' sets 'learning_rate' (epoch %i),"
                                            " as the reference requires" % epoch, got=False)
        if learning_rate_control is None:
            return
        old = learning_rate_control.get_learning_rate_for_epoch(epoch)
        print("Overwrite learning rate for epoch %i: %r -> %r" % (epoch, old, value), file=log.v3)
        learning_rate_control.set_default_learning_rate_for_epoch(epoch, value)

    def restore(self) -> None:
        """Gives all overridden keys their original values back."""
        for key, value in self._originals.items():
            self.config.set(key, value)
        self._originals.clear()


def freeze_params(network) -> None:
    """``"#trainable": False`` in a network dict: none of its params is trained (taken out of the trainable
    variables before the updater is built; the reference logs ``net trainable params: []`` then)."""
    import tensorflow as tf

    trainable = tf.compat.v1.get_collection_ref(tf.compat.v1.GraphKeys.TRAINABLE_VARIABLES)
    for param in network.get_params_list():
        if param in trainable:
            trainable.remove(param)


def _differs(a: Any, b: Any) -> bool:
    try:
        return bool(a != b)
    except Exception:  # noqa: BLE001 (values that cannot be compared)
        return a is not b


def copy_param_mode_of(net_dict: Dict[str, Any], pretrain) -> Optional[str]:
    """``#copy_param_mode`` of the network, else the ``pretrain`` option ``copy_param_mode`` (None: if possible).

    :raises ConfigValueError: not one of None, ``"ifpossible"``, ``"subset"``, ``"reset"``
    """
    mode = net_dict.get("#copy_param_mode", pretrain.copy_param_mode if pretrain is not None else None)
    if mode not in (None, "ifpossible", "subset", "reset"):
        raise ConfigValueError("#copy_param_mode", expected="None, 'ifpossible', 'subset' or 'reset'", got=mode)
    return mode

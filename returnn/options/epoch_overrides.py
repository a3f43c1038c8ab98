"""The config overrides of each epoch's network (``#config``, see :mod:`returnn.tf.engine.epoch_network`): set
while the epoch's network has them, the original values given back when it no longer does."""

from __future__ import annotations

from typing import Any, Dict, List

from returnn.errors import ConfigValueError
from returnn.log import log
from returnn.options.training import TrainingOptions


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
        if pretrain is not None and not TrainingOptions.read_one(self.config, "use_learning_rate_control_always"):
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


def _differs(a: Any, b: Any) -> bool:
    try:
        return bool(a != b)
    except Exception:  # noqa: BLE001 (values that cannot be compared)
        return a is not b

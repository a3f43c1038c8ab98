"""``WrapEpochValue``: a value in a network dict computed from the epoch of the network being built.

Resolution follows the reference (observed with ``Pretrain.get_network_json_for_epoch``): only the networks of
the ``pretrain`` schedule are resolved, each with its own epoch, and the final network with the last pretrain
epoch (so training after the pretrain phase keeps those values). Inside a net dict, a ``WrapEpochValue`` is
replaced where it is a value of a dict (at any depth of nested dicts, ``#config`` included) or a direct element
of a list/tuple that is such a value; one inside a list inside a list, inside a dict inside a list, or used as a
dict key is left as it is (as the reference). Without ``pretrain`` nothing is resolved and the layer that gets
the object fails (see :func:`find_wrapped_values`, which the engine uses to say so clearly).
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List


class WrapEpochValue:
    """A value in a network dict computed from the epoch: ``WrapEpochValue(lambda epoch: ...)``.

    :param func: called as ``func(epoch=epoch)`` (keyword argument, as the reference calls it; a function
        whose parameter has another name raises ``TypeError``)
    """

    __module__ = "returnn.pretrain"  # its public path (reprs, pickles)

    def __init__(self, func: Callable[..., Any]):
        self.func = func

    def get_value(self, epoch: int) -> Any:
        """:return: ``func(epoch=epoch)``"""
        return self.func(epoch=epoch)


def resolve_wrapped_values(net_dict: Dict[str, Any], epoch: int) -> Dict[str, Any]:
    """Replaces the :class:`WrapEpochValue` s of ``net_dict`` in place (see module doc) and returns it.

    :param net_dict: a network dict (layer name → layer dict, plus ``#`` entries)
    :param epoch: the (1-based) epoch passed to each ``func(epoch=...)``
    """
    for key, value in net_dict.items():
        net_dict[key] = _resolve_value(value, epoch)
    return net_dict


def _resolve_value(value: Any, epoch: int) -> Any:
    if isinstance(value, WrapEpochValue):
        return value.get_value(epoch=epoch)
    if isinstance(value, dict):
        return resolve_wrapped_values(value, epoch)
    if isinstance(value, (list, tuple)):
        items = [item.get_value(epoch=epoch) if isinstance(item, WrapEpochValue) else item for item in value]
        return type(value)(items) if isinstance(value, tuple) else items
    return value


def find_wrapped_values(net_dict: Any, _path: str = "") -> List[str]:
    """Paths (``"l1/dropout"``) of the :class:`WrapEpochValue` s still in ``net_dict`` (any depth)."""
    found: List[str] = []
    if isinstance(net_dict, WrapEpochValue):
        return [_path or "<top>"]
    if isinstance(net_dict, dict):
        for key, value in net_dict.items():
            found += find_wrapped_values(value, "%s/%s" % (_path, key) if _path else str(key))
    elif isinstance(net_dict, (list, tuple)):
        for i, value in enumerate(net_dict):
            found += find_wrapped_values(value, "%s[%i]" % (_path, i))
    return found

"""The layer and loss registries (``"class": "linear"``, ``"loss": "ce"``) and the reference's compat functions.

Registration is explicit: each layer module decorates its class with :func:`register_layer`; the name is the
class's ``layer_class``. :mod:`returnn.tf.layers` imports every family package, so all built-in layers are
registered once ``returnn.tf.layers`` is imported.
"""

from __future__ import annotations

from typing import Any, Iterable, List, Type

from returnn.util.registry import Registry

LAYER_NAME_HINTS = {
    "lstm": 'use {"class": "rec", "unit": "nativelstm2"} for an LSTM over time',
    "blstm": 'use two {"class": "rec", "unit": "nativelstm2"} layers with "direction": 1 and -1',
    "dense": 'use {"class": "linear"}',
    "fc": 'use {"class": "linear"}',
    "embedding": 'use {"class": "linear"} on a sparse input',
    "concat": 'use {"class": "copy", "from": [...]} to concatenate on the feature axis',
}

LAYERS: Registry[Any] = Registry("layer class", hints=LAYER_NAME_HINTS)
LOSSES: Registry[Any] = Registry("loss class")


def register_layer(cls: Type[Any] = None, *, aliases: Iterable[str] = ()) -> Any:
    """Class decorator: registers ``cls`` under ``cls.layer_class`` (and ``aliases``).

    Usable as ``@register_layer`` or ``@register_layer(aliases=["forward"])``.
    """
    def apply(klass: Type[Any]) -> Type[Any]:
        if not getattr(klass, "layer_class", None):
            raise TypeError(f"{klass.__name__} has no layer_class to register under")
        LAYERS.register(klass.layer_class, klass, aliases=aliases, overwrite=True)
        return klass

    if cls is None:
        return apply
    return apply(cls)


def register_loss(cls: Type[Any] = None, *, aliases: Iterable[str] = ()) -> Any:
    """Class decorator: registers a loss class under ``cls.class_name``."""
    def apply(klass: Type[Any]) -> Type[Any]:
        LOSSES.register(klass.class_name, klass, aliases=aliases, overwrite=True)
        return klass

    if cls is None:
        return apply
    return apply(cls)


def get_layer_class(name: str, raise_exception: bool = True) -> Any:
    """:return: the layer class for ``name`` (reference API)
    :raises UnknownNameError: with close matches and hints, if ``raise_exception``; else returns None
    """
    import returnn.tf.layers  # noqa: F401  (registers all built-in layers)
    if not raise_exception and name not in LAYERS:
        return None
    return LAYERS.get(name)


def register_layer_class(layer_class: Type[Any]) -> None:
    """Registers a user layer class under its ``layer_class`` (reference API)."""
    register_layer(layer_class)


def get_layer_class_name_list() -> List[str]:
    """:return: all registered layer class names, sorted"""
    import returnn.tf.layers  # noqa: F401
    return LAYERS.names()


def get_loss_class(loss: str) -> Any:
    """:return: the loss class for ``loss`` (reference API)
    :raises UnknownNameError: with close matches
    """
    import returnn.tf.layers  # noqa: F401
    return LOSSES.get(loss)

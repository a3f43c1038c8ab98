"""The layer and loss registries (``"class": "linear"``, ``"loss": "ce"``) and the reference's compat functions.

Registration is explicit: each layer module decorates its class with :func:`register_layer`; the name is the
class's ``layer_class``. :mod:`returnn.tf.layers` imports every family package, so all built-in layers are
registered once ``returnn.tf.layers`` is imported.
"""

from __future__ import annotations

from typing import Any, Iterable, List, Type

from returnn.errors import ConfigError, format_details
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

_LAYER_CLASH_HINT = ("every name is registered once; a config's own LayerBase subclass gets a name of its own "
                     "(register_layer_class)")


def register_layer(cls: Type[Any] = None, *, aliases: Iterable[str] = ()) -> Any:
    """Class decorator: registers ``cls`` under ``cls.layer_class`` (and ``aliases``).

    Usable as ``@register_layer`` or ``@register_layer(aliases=["forward"])``.

    :raises LayerClassRegistrationError: the name is taken by another class (each name is registered once)
    """
    def apply(klass: Type[Any]) -> Type[Any]:
        if not getattr(klass, "layer_class", None):
            raise TypeError(f"{klass.__name__} has no layer_class to register under")
        LAYERS.register_class(klass.layer_class, klass, aliases=aliases, error=LayerClassRegistrationError,
                              hint=_LAYER_CLASH_HINT)
        return klass

    if cls is None:
        return apply
    return apply(cls)


def register_loss(cls: Type[Any] = None, *, aliases: Iterable[str] = ()) -> Any:
    """Class decorator: registers a loss class under ``cls.class_name``."""
    def apply(klass: Type[Any]) -> Type[Any]:
        LOSSES.register_class(klass.class_name, klass, aliases=aliases, error=LayerClassRegistrationError,
                              hint=_LAYER_CLASH_HINT)
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


class LayerClassRegistrationError(ConfigError, AssertionError):
    """A user layer class cannot be registered: no ``layer_class`` name, or the name is taken by another class
    (the reference asserts; ``except AssertionError`` still catches this)."""


def is_user_layer_class(layer_class: Any) -> bool:
    """:return: whether ``layer_class`` is defined outside this package (a config's own ``LayerBase`` subclass)"""
    return not str(getattr(layer_class, "__module__", "")).startswith("returnn.")


def register_layer_class(layer_class: Type[Any]) -> None:
    """Registers a user layer class (a ``LayerBase`` subclass defined in a config) under its ``layer_class``, so
    that ``{"class": <layer_class>, ...}`` builds it (reference API). Registering the same class again is a no-op;
    so is registering a class of the same module and qualified name again (a config executed twice).

    :raises LayerClassRegistrationError: ``layer_class`` unset, or the name belongs to another class (e.g. a
        built-in layer)
    """
    import returnn.tf.layers  # noqa: F401  (built-in names first, so that a clash is detected)
    name = getattr(layer_class, "layer_class", None)
    if not name or not isinstance(name, str):
        raise LayerClassRegistrationError(
            "\n".join([f"cannot register layer class {layer_class!r}: it has no layer_class name"] + format_details(
                hint='set e.g. layer_class = "my_layer" in the class body, then use {"class": "my_layer"}')))
    if name in LAYERS:
        existing = LAYERS.get(name)
        same = existing is layer_class or (
            getattr(existing, "__module__", None) == getattr(layer_class, "__module__", None)
            and getattr(existing, "__qualname__", None) == getattr(layer_class, "__qualname__", None))
        if not same:
            raise LayerClassRegistrationError(
                "\n".join([f"cannot register layer class {layer_class!r} as {name!r}: that name is already taken by "
                           f"{existing!r}"] + format_details(hint="choose another layer_class name")))
    LAYERS.register(name, layer_class, overwrite=True)


def auto_register_layer_classes(vars_values: Iterable[Any]) -> None:
    """Registers every layer class among ``vars_values`` (e.g. ``globals().values()`` of a config, or a list of
    classes): the ``LayerBase`` subclasses with a ``layer_class`` name; other values are ignored (reference API).

    :raises LayerClassRegistrationError: a name taken by another class
    """
    from returnn.tf.layers.core.layer_base import LayerBase
    for value in list(vars_values):
        if isinstance(value, type) and issubclass(value, LayerBase) and getattr(value, "layer_class", None):
            register_layer_class(value)


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

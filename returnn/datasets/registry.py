"""The dataset class registry: ``"class": "<Name>"`` in a dataset dict is looked up here.

Registration is explicit, as for layers: each dataset module decorates its classes with :func:`register_dataset`
(the name is the class name); :mod:`returnn.datasets.families` imports every such module, and
:func:`get_dataset_class` imports it before a name is looked up, so every built-in class is known. Each name is
registered once: a second class under a taken name raises :class:`DatasetClassRegistrationError`.
"""

from __future__ import annotations

import inspect
from typing import List, Optional, Type

from returnn.errors import ConfigError, format_details
from returnn.util.registry import Registry

DATASETS: Registry[type] = Registry("dataset class")


class DatasetClassRegistrationError(ConfigError):
    """A dataset class cannot be registered: its name is already taken by another class."""


def register_dataset(cls: type) -> type:
    """Class decorator: registers ``cls`` under its class name. Registering the same class again (or a class of
    the same module and qualified name: a module reloaded) replaces the entry.

    :return: ``cls``
    :raises DatasetClassRegistrationError: the name is taken by another class (naming both)
    """
    return DATASETS.register_class(
        cls.__name__, cls, error=DatasetClassRegistrationError,
        hint="every dataset class name is registered once; give the class another name, or pass the class itself "
             "as the dataset dict's 'class'")


def _import_all() -> None:
    import returnn.datasets.families  # noqa: F401  (registers all built-in dataset classes)


def get_dataset_class(name: str, *, context: Optional[str] = None) -> Type:
    """The dataset class registered as ``name``.

    :raises UnknownNameError: listing the known classes and the closest matches
    """
    _import_all()
    return DATASETS.get(name, context=context)


def get_dataset_class_names() -> List[str]:
    """All registered dataset class names."""
    _import_all()
    return DATASETS.names()


def accepted_kwargs(cls: type) -> Optional[List[str]]:
    """Keyword arguments ``cls(...)`` accepts: the ``__init__`` parameters along the MRO, following each
    ``**kwargs`` into the base class. None if some ``__init__`` accepts anything (cannot be checked)."""
    if getattr(cls, "accepts_any_kwargs", False):  # e.g. the classes of returnn.datasets.unsupported
        return None
    names: List[str] = []
    for klass in cls.__mro__:
        init = klass.__dict__.get("__init__")
        if init is None:
            continue
        if klass is object:
            break
        try:
            params = inspect.signature(init).parameters
        except (TypeError, ValueError):
            return None
        has_var_kw = False
        for p in list(params.values())[1:]:
            if p.kind == p.VAR_KEYWORD:
                has_var_kw = True
            elif p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
                names.append(p.name)
        if not has_var_kw:
            return names
    return names

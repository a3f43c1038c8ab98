"""The dataset class registry: ``"class": "<Name>"`` in a dataset dict is looked up here.

Dataset modules register their classes with :func:`register_dataset`; :func:`get_dataset_class` imports all
dataset modules of this package first, so every built-in class is known.
"""

from __future__ import annotations

import importlib
import inspect
from typing import List, Optional, Type

from returnn.util.registry import Registry

DATASETS: Registry[type] = Registry("dataset class")

_MODULES = ("generating", "hdf", "meta", "lm", "audio", "sprint", "map", "text_dict", "raw_wav", "numpy_dump",
            "multi_proc", "distrib_files", "huggingface", "postprocessing", "unsupported")
_imported = False


def register_dataset(cls: type) -> type:
    """Class decorator: registers ``cls`` under its class name."""
    DATASETS.register(cls.__name__, cls, overwrite=True)
    return cls


def _import_all() -> None:
    global _imported
    if _imported:
        return
    _imported = True
    for mod in _MODULES:
        importlib.import_module(f"returnn.datasets.{mod}")


def get_dataset_class(name: str, *, context: Optional[str] = None) -> Type:
    """The dataset class registered as ``name``.

    :raises UnknownNameError: listing the known classes and the closest matches
    """
    if name in DATASETS:
        return DATASETS.get(name)
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

"""Parametrizations: a module's parameter seen through a function on access (``module.weight`` gives
``fn(weight)``), while the parameter itself stays registered under its name (checkpoints keep their names).
``rf.register_parametrization``, ``rf.remove_parametrization``, ``rf.is_parametrized``."""

from __future__ import annotations

from typing import Any, Callable, Dict, Optional

from returnn.errors import FrontendError
from returnn.frontend.module import Module
from returnn.frontend.parameter import Parameter

__all__ = ["register_parametrization", "remove_parametrization", "is_parametrized"]

_KEY = "_rf_parametrizations"
_classes: Dict[type, type] = {}


def _getattribute(self: Any, name: str) -> Any:
    value = object.__getattribute__(self, name)
    fns = object.__getattribute__(self, "__dict__").get(_KEY)
    if fns and name in fns:
        return fns[name](value)
    return value


def _parametrized_class(cls: type) -> type:
    if getattr(cls, "_rf_is_parametrized_class", False):
        return cls
    if cls not in _classes:
        _classes[cls] = type(cls.__name__, (cls,), {"__getattribute__": _getattribute,
                                                    "_rf_is_parametrized_class": True,
                                                    "__module__": cls.__module__, "__qualname__": cls.__qualname__})
    return _classes[cls]


def register_parametrization(module: Module, param_name: str, parametrization: Callable[[Any], Any], *,
                             keep_existing_param: bool = True) -> Module:
    """Makes ``module.<param_name>`` return ``parametrization(param)``. :return: ``module``

    :raises FrontendError: ``param_name`` is not a parameter of ``module``
    """
    param = vars(module).get(param_name)
    if not isinstance(param, Parameter):
        raise FrontendError("register_parametrization", f"{type(module).__name__} has no parameter {param_name!r}",
                            expected=", ".join(n for n, v in vars(module).items() if isinstance(v, Parameter)))
    module.__class__ = _parametrized_class(type(module))
    fns = vars(module).setdefault(_KEY, {})
    fns[param_name] = parametrization
    return module


def remove_parametrization(module: Module, param_name: str) -> Module:
    """Removes the parametrization of ``param_name``. :return: ``module``"""
    fns = vars(module).get(_KEY) or {}
    if param_name not in fns:
        raise FrontendError("remove_parametrization", f"{param_name!r} is not parametrized")
    del fns[param_name]
    return module


def is_parametrized(module: Module, param_name: Optional[str] = None) -> bool:
    """:return: whether ``param_name`` (or any parameter) of ``module`` is parametrized"""
    fns = vars(module).get(_KEY) or {}
    return bool(fns) if param_name is None else param_name in fns

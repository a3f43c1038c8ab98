"""Helpers that look at classes, functions and the call stack: constructor keyword names, MRO attribute chains,
a generic ``repr`` from the constructor signature, the caller's function name, ``CamelCase`` to ``snake_case``."""

from __future__ import annotations

import inspect
import re
import sys
from collections import OrderedDict
from typing import Any, Dict, List, Optional, Union

_SKIPPED_KINDS = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)


def getargspec(func: Any) -> inspect.FullArgSpec:
    """``inspect.getfullargspec(func)`` (the reference's name for it): ``.args``, ``.defaults``, ``.kwonlyargs``..."""
    return inspect.getfullargspec(func)


def _init_params(cls: type) -> List[inspect.Parameter]:
    init = cls.__dict__.get("__init__")
    if init is None or not callable(init):
        return []
    try:
        params = list(inspect.signature(init).parameters.values())
    except (TypeError, ValueError):  # builtin without a signature
        return []
    return [p for p in params[1:] if p.kind not in _SKIPPED_KINDS]


def collect_class_init_kwargs(cls: type, only_with_default: bool = False) -> Union[List[str], Dict[str, Any]]:
    """The keyword arguments that the ``__init__`` of ``cls`` and of every class in its MRO declare (``self``,
    ``*args`` and ``**kwargs`` left out), each once, in MRO order.

    :param cls: the class
    :param only_with_default: only the arguments that have a default value
    :return: the names; with ``only_with_default``, an ``OrderedDict`` name → default (as the reference)
    """
    names: List[str] = []
    defaults: Dict[str, Any] = OrderedDict()
    for base in cls.__mro__:
        for p in _init_params(base):
            if p.name not in names:
                names.append(p.name)
            if p.default is not inspect.Parameter.empty and p.name not in defaults:
                defaults[p.name] = p.default
    return defaults if only_with_default else names


def collect_mandatory_class_init_kwargs(cls: type) -> List[str]:
    """Like :func:`collect_class_init_kwargs`, the arguments without a default value (in no ``__init__`` of the
    MRO does that name get a default)."""
    with_default = set(collect_class_init_kwargs(cls, only_with_default=True))
    return [name for name in collect_class_init_kwargs(cls) if name not in with_default]


def type_attrib_mro_chain(cls: type, attr_name: str) -> list:
    """The values of ``attr_name`` in every class of ``cls.__mro__`` that defines it itself, most derived first,
    e.g. ``[Foo.method, Base.method]`` when ``Foo`` overrides ``Base.method``."""
    return [getattr(base, attr_name) for base in cls.__mro__ if attr_name in vars(base)]


def next_type_attrib_in_mro_chain(cls: type, attr_name: str, attr: Any) -> Any:
    """The definition of ``attr_name`` that comes after ``attr`` in :func:`type_attrib_mro_chain` (what a
    ``super()`` call from the class that defines ``attr`` would reach).

    :raises ValueError: ``attr`` is not in the chain, or it is the last definition
    """
    chain = type_attrib_mro_chain(cls, attr_name)
    for i, item in enumerate(chain):
        if item == attr:
            if i + 1 >= len(chain):
                raise ValueError(f"{cls.__name__}.{attr_name}: {attr!r} is the last definition in the MRO")
            return chain[i + 1]
    raise ValueError(f"{cls.__name__}.{attr_name}: {attr!r} is not one of the definitions {chain!r}")


def simple_obj_repr(obj: Any) -> str:
    """``ClassName(arg=value, ...)`` with the arguments of the class's ``__init__`` and the object's attributes of
    the same names; meant as ``__repr__ = simple_obj_repr`` in a class body."""
    cls = type(obj)
    try:
        params = list(inspect.signature(cls.__init__).parameters.values())[1:]
    except (TypeError, ValueError):
        params = []
    parts = [f"{p.name}={getattr(obj, p.name, None)!r}" for p in params if p.kind not in _SKIPPED_KINDS]
    return f"{cls.__name__}({', '.join(parts)})"


def try_get_caller_name(depth: int = 1, fallback: Optional[str] = None) -> Optional[str]:
    """The function name of the frame ``depth`` levels above the caller (``depth=1``: the function that called the
    function which calls this), or ``fallback`` when the stack is not that deep."""
    try:
        frame = sys._getframe(depth + 1)
    except ValueError:
        return fallback
    return frame.f_code.co_name


def try_get_stack_frame(depth: int = 1) -> Optional[Any]:
    """The frame ``depth`` levels above the caller, or None when the stack is not that deep."""
    try:
        return sys._getframe(depth + 1)
    except ValueError:
        return None


def camel_case_to_snake_case(name: str) -> str:
    """``"CamelCaseOp"`` → ``"camel_case_op"``; a run of capitals is one word
    (``"HTTPServer"`` → ``"http_server"``)."""
    s = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", s).lower()

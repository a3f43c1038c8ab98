"""``rf.build_dict``/``rf.build_from_dict``: a module (or function) and its arguments as a dict ``{"class": name,
**kwargs}``, e.g. for configs. Names of ``returnn.frontend`` objects are ``"rf.<name>"``, others the full dotted
path."""

from __future__ import annotations

import importlib
from typing import Any, Callable, Dict

from returnn.errors import FrontendError

__all__ = ["build_dict", "build_from_dict"]


def _get_cls_name(obj: Any) -> str:
    import returnn.frontend as rf
    name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__")
    if getattr(rf, getattr(obj, "__name__", ""), None) is obj:
        return f"rf.{obj.__name__}"
    return f"{obj.__module__}.{name}"


def build_dict(cls: Callable[..., Any], **kwargs: Any) -> Dict[str, Any]:
    """:return: ``{"class": <name of cls>, **kwargs}`` (observed in the reference: ``{'class': 'rf.Linear', ...}``)"""
    return {"class": _get_cls_name(cls), **kwargs}


def resolve_class(cls: Any) -> Any:
    """:return: ``cls`` itself, or the object a ``"class"`` name of :func:`build_dict` names (``rf.X``, a dotted path)

    :raises FrontendError: a name that does not resolve
    """
    if not isinstance(cls, str):
        return cls
    try:
        return _resolve(cls)
    except AttributeError as exc:
        raise FrontendError("build_from_dict", f"cannot resolve the class {cls!r}: {exc}") from None


def _resolve(name: str) -> Any:
    if name.startswith("rf."):
        import returnn.frontend as rf
        obj: Any = rf
        for part in name[3:].split("."):
            obj = getattr(obj, part)
        return obj
    parts = name.split(".")
    for i in range(len(parts) - 1, 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for part in parts[i:]:
            obj = getattr(obj, part)
        return obj
    raise FrontendError("build_from_dict", f"cannot resolve the class {name!r}")


def build_from_dict(d: Dict[str, Any], *args: Any, **kwargs: Any) -> Any:
    """:return: ``cls(*args, **d_without_class, **kwargs)`` for the ``"class"`` of ``d`` (a class); for a function,
    the function itself, or a ``functools.partial`` of it with the arguments

    :raises FrontendError: no ``"class"`` entry, or a name that does not resolve
    """
    if "class" not in d:
        raise FrontendError("build_from_dict", "the dict needs a 'class' entry", got=d)
    d = dict(d)
    cls = d.pop("class")
    if isinstance(cls, str):
        try:
            cls = _resolve(cls)
        except AttributeError as exc:
            raise FrontendError("build_from_dict", f"cannot resolve the class {d!r}: {exc}") from None
    if isinstance(cls, type):
        return cls(*args, **d, **kwargs)
    if not d and not args and not kwargs:
        return cls  # a function without arguments: the function itself (as the reference)
    import functools
    return functools.partial(cls, *args, **d, **kwargs)

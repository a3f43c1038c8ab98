"""``rf.Module``: a model part holding parameters and sub-modules as attributes; ``rf.Functional`` wraps a
function as a module."""

from __future__ import annotations

from typing import Any, Callable, Dict, Iterator, Optional, Tuple, TypeVar

__all__ = ["Module", "Functional"]

T = TypeVar("T", bound="Module")


class Module:
    """Base class of RF model parts. Parameters (:class:`returnn.frontend.parameter.Parameter`) and sub-modules set
    as attributes are registered in assignment order; names are attribute paths joined with ``"."`` (as the
    reference: ``"layers.0.weight"``)."""

    def __init__(self) -> None:
        pass

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__}.__call__ is not implemented")

    def _own_items(self) -> Iterator[Tuple[str, Any]]:
        return iter(vars(self).items())

    def named_children(self) -> Iterator[Tuple[str, Module]]:
        """:return: (attribute name, module) of the direct sub-modules"""
        for name, value in self._own_items():
            if isinstance(value, Module):
                yield name, value

    def children(self) -> Iterator[Module]:
        for _, m in self.named_children():
            yield m

    def named_modules(self, *, recurse: bool = True, prefix: str = "", memo: Optional[set] = None
                      ) -> Iterator[Tuple[str, Module]]:
        """This module (path ``""``) and every sub-module, level by level (breadth first, as the reference lists
        them), each once.

        :return: (path, module) pairs
        """
        memo = set() if memo is None else memo
        if id(self) in memo:
            return
        memo.add(id(self))
        queue = [(prefix, self)]
        while queue:
            path, module = queue.pop(0)
            yield path, module
            for name, child in module.named_children():
                if id(child) in memo:
                    continue
                memo.add(id(child))
                child_path = f"{path}.{name}" if path else name
                if recurse:
                    queue.append((child_path, child))
                else:
                    yield child_path, child

    def modules(self, *, recurse: bool = True) -> Iterator[Module]:
        for _, m in self.named_modules(recurse=recurse):
            yield m

    def named_parameters(self, *, recurse: bool = True) -> Iterator[Tuple[str, Any]]:
        """Per module in :meth:`named_modules` order its own parameters (each parameter once).

        :return: (path, parameter) pairs
        """
        from returnn.frontend.parameter import Parameter
        seen = set()
        modules = self.named_modules() if recurse else [("", self)]
        for prefix, module in modules:
            for name, value in module._own_items():  # noqa: SLF001 (the same class)
                if isinstance(value, Parameter) and id(value) not in seen:
                    seen.add(id(value))
                    yield (f"{prefix}.{name}" if prefix else name), value

    def parameters(self, *, recurse: bool = True) -> Iterator[Any]:
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def apply(self: T, fn: Callable[[Module], None]) -> T:
        """Calls ``fn`` on every sub-module (children first) and then on this module. :return: self"""
        for child in self.children():
            child.apply(fn)
        fn(self)
        return self

    def get_default_name(self) -> str:
        """:return: the class name in snake case (``ConformerEncoder`` → ``conformer_encoder``)"""
        name = type(self).__name__
        out = []
        for i, c in enumerate(name):
            if c.isupper() and i > 0 and not name[i - 1].isupper():
                out.append("_")
            out.append(c.lower())
        return "".join(out)

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"


class Functional(Module):
    """A module that calls ``func`` (no parameters); ``attribs`` are set as attributes."""

    def __init__(self, func: Callable[..., Any], *, attribs: Optional[Dict[str, Any]] = None):
        super().__init__()
        self.func = func
        for key, value in (attribs or {}).items():
            setattr(self, key, value)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.func(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<Functional {getattr(self.func, '__qualname__', self.func)!r}>"

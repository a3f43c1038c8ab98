"""Containers of modules and parameters: ``rf.ModuleList``, ``rf.Sequential``, ``rf.ParameterList``."""

from __future__ import annotations

from typing import Any, Dict, Iterable, Iterator, Optional, Tuple, Union

from returnn.errors import FrontendError
from returnn.frontend.module import Functional, Module
from returnn.frontend.parameter import Parameter

__all__ = ["ModuleList", "Sequential", "ParameterList", "sequential"]


def _as_module(call: str, value: Any) -> Module:
    if isinstance(value, Module):
        return value
    if callable(value):
        return Functional(value)
    raise FrontendError(call, "expected a module or a function", got=value)


class ModuleList(Module):
    """Modules under the names ``"0"``, ``"1"``, ... (or the keys of a dict). Indexing with a slice gives a new
    ModuleList of the same module objects."""

    def __init__(self, *modules: Union[Module, Iterable[Module], Dict[str, Module]]):
        super().__init__()
        if len(modules) == 1 and isinstance(modules[0], dict):
            items = list(modules[0].items())
        else:
            if len(modules) == 1 and not isinstance(modules[0], Module) and not callable(modules[0]):
                modules = tuple(modules[0])
            items = [(str(i), m) for i, m in enumerate(modules)]
        for key, m in items:
            setattr(self, key, _as_module(type(self).__name__, m))

    def _values(self) -> list:
        return [m for _, m in self.named_children()]

    def append(self, module: Module) -> ModuleList:
        setattr(self, str(len(self)), _as_module("ModuleList.append", module))
        return self

    def extend(self, modules: Iterable[Module]) -> ModuleList:
        for m in modules:
            self.append(m)
        return self

    def __len__(self) -> int:
        return len(self._values())

    def __iter__(self) -> Iterator[Module]:
        return iter(self._values())

    def items(self) -> Iterator[Tuple[str, Module]]:
        return self.named_children()

    def __getitem__(self, idx: Union[int, slice, str]) -> Any:
        if isinstance(idx, str):
            return getattr(self, idx)
        values = self._values()
        if isinstance(idx, slice):
            return type(self)(*values[idx]) if type(self) is not Sequential else Sequential(*values[idx])
        return values[idx]

    def __setitem__(self, idx: int, module: Module) -> None:
        key = list(dict(self.named_children()))[idx]
        setattr(self, key, _as_module("ModuleList.__setitem__", module))


class Sequential(ModuleList):
    """Calls its modules in order, each on the previous one's output (with the other arguments)."""

    def __call__(self, inp: Any, *args: Any, collected_outputs: Optional[Dict[str, Any]] = None,
                 **kwargs: Any) -> Any:
        """:param collected_outputs: if a dict, each module's output is put there under its name (``"0"``, ``"1"``,
            ... or the dict keys it was made with); not passed on to the modules (as the reference, observed)"""
        for name, m in self.items():
            inp = m(inp, *args, **kwargs)
            if collected_outputs is not None:
                collected_outputs[name] = inp
        return inp


def sequential(source: Any, *modules: Any) -> Any:
    """:return: the modules (or functions) applied in order to ``source``"""
    for m in modules:
        source = m(source)
    return source


class ParameterList(Module):
    """Parameters under the names ``"0"``, ``"1"``, ..."""

    def __init__(self, *parameters: Union[Parameter, Iterable[Parameter]]):
        super().__init__()
        if len(parameters) == 1 and not isinstance(parameters[0], Parameter):
            parameters = tuple(parameters[0])
        for i, p in enumerate(parameters):
            if not isinstance(p, Parameter):
                raise FrontendError("ParameterList", "expected Parameters", got=p)
            setattr(self, str(i), p)

    def _values(self) -> list:
        return [p for _, p in self.named_parameters(recurse=False)]

    def append(self, parameter: Parameter) -> ParameterList:
        setattr(self, str(len(self)), parameter)
        return self

    def __len__(self) -> int:
        return len(self._values())

    def __iter__(self) -> Iterator[Parameter]:
        return iter(self._values())

    def __getitem__(self, idx: Union[int, slice]) -> Any:
        values = self._values()
        return ParameterList(*values[idx]) if isinstance(idx, slice) else values[idx]

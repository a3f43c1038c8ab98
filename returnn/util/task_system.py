"""A pickler that also serialises what plain :mod:`pickle` only stores as a reference to an importable name:
classes and functions defined inside a function (``<locals>`` in their qualified name) or otherwise not
reachable under their module and qualified name.

Such a class is stored by value (name, bases, class attributes), such a function by its compiled code (the
interpreter's ``marshal`` format, so the reading process must run the same Python version), its defaults, its
closure cells and the name of its module, whose namespace becomes its globals when read back. Everything
reachable by name is stored by reference, as :mod:`pickle` does. Cycles (a method whose closure holds its own
class, as ``super()`` does; a local function that calls itself) are kept: the class or function is created
first and filled in afterwards.

``Pickler(file, protocol=None)`` writes to a binary file object, ``Unpickler(file)`` reads back (it is
:class:`pickle.Unpickler`; reading needs no special support beyond this module being importable).

With ``SharedMemNumpyConfig["enabled"] = True``, large numpy arrays go through System V shared memory instead of
the pickle stream (:mod:`returnn.util.shared_mem`; re-exported here: ``SharedMem``, ``SharedNumpyArray``,
``SharedMemNumpyConfig``, ``numpy_set_unused``, ...).
"""

from __future__ import annotations

import importlib
import marshal
import pickle
import sys
import types
from typing import Any, Dict, Optional, Tuple

import numpy

from returnn.util.shared_mem import (
    SharedMem as SharedMem,
    SharedMemNumpyConfig as SharedMemNumpyConfig,
    SharedNumpyArray as SharedNumpyArray,
    next_power_of_two as next_power_of_two,
    numpy_copy_and_set_unused as numpy_copy_and_set_unused,
    numpy_set_unused as numpy_set_unused,
    use_shared_mem_for_numpy_array as use_shared_mem_for_numpy_array,
)

_EMPTY_CELL = "<returnn.util.task_system: empty cell>"


def _is_reachable_by_name(obj: Any) -> bool:
    """Whether ``obj`` is what its ``__module__`` and ``__qualname__`` name (so that pickle's by-name reference
    reads it back)."""
    qualname = getattr(obj, "__qualname__", None)
    module_name = getattr(obj, "__module__", None)
    if not qualname or not module_name or "<locals>" in qualname or "<lambda>" in qualname:
        return False
    module = sys.modules.get(module_name)
    if module is None:
        return False
    cur = module
    for part in qualname.split("."):
        cur = getattr(cur, part, None)
        if cur is None:
            return False
    return cur is obj


def _new_class(name: str, bases: Tuple[type, ...], metaclass: type, module_name: str, qualname: str) -> type:
    """An empty class; its attributes follow in :func:`_fill_class`."""
    cls = metaclass(name, bases, {"__module__": module_name})
    cls.__qualname__ = qualname
    return cls


def _fill_class(cls: type, attrs: Dict[str, Any]) -> None:
    for key, value in attrs.items():
        setattr(cls, key, value)


def _new_function(code_bytes: bytes, module_name: Optional[str], name: str, num_cells: int) -> types.FunctionType:
    """A function of the given code with empty closure cells; the rest follows in :func:`_fill_function`."""
    code = marshal.loads(code_bytes)
    if module_name and module_name in sys.modules:
        func_globals = sys.modules[module_name].__dict__
    elif module_name:
        try:
            func_globals = importlib.import_module(module_name).__dict__
        except ImportError:
            func_globals = {"__name__": module_name, "__builtins__": __builtins__}
    else:
        func_globals = {"__builtins__": __builtins__}
    closure = tuple(types.CellType() for _ in range(num_cells)) if num_cells else None
    return types.FunctionType(code, func_globals, name, None, closure)


def _fill_function(func: types.FunctionType, state: Dict[str, Any]) -> None:
    func.__defaults__ = state["defaults"]
    func.__kwdefaults__ = state["kwdefaults"]
    func.__qualname__ = state["qualname"]
    func.__doc__ = state["doc"]
    func.__dict__.update(state["dict"])
    for cell, value in zip(func.__closure__ or (), state["cells"]):
        if value is not _EMPTY_CELL and not (isinstance(value, str) and value == _EMPTY_CELL):
            cell.cell_contents = value


class Pickler(pickle.Pickler):
    """:class:`pickle.Pickler` that stores local classes and functions by value (see the module docstring).

    :param file: a binary file object with ``write``
    :param protocol: the pickle protocol (default: :data:`pickle.DEFAULT_PROTOCOL`)
    """

    def __init__(self, file: Any, protocol: Optional[int] = None):
        super().__init__(file, pickle.DEFAULT_PROTOCOL if protocol is None else protocol)

    def reducer_override(self, obj: Any) -> Any:
        """By-value reductions for unreachable classes and functions; ``NotImplemented`` (pickle's own way)
        for everything else. A numpy array goes through shared memory when
        :func:`use_shared_mem_for_numpy_array` says so."""
        if isinstance(obj, numpy.ndarray):
            if use_shared_mem_for_numpy_array(obj):
                try:
                    return SharedNumpyArray.as_shared(obj).__reduce__()
                except SharedMem.ShmException as exc:  # e.g. all segments in use: pickled as usual
                    print("SharedNumpyArray exception: %s" % exc)
            return NotImplemented
        if isinstance(obj, type):
            if obj.__module__ == "builtins" or _is_reachable_by_name(obj):
                return NotImplemented
            return self._reduce_class(obj)
        if isinstance(obj, types.FunctionType):
            if _is_reachable_by_name(obj):
                return NotImplemented
            return self._reduce_function(obj)
        return NotImplemented

    @staticmethod
    def _reduce_class(cls: type) -> Tuple[Any, ...]:
        attrs = {
            key: value
            for key, value in vars(cls).items()
            if key not in ("__dict__", "__weakref__", "__module__", "__qualname__")
        }
        args = (cls.__name__, cls.__bases__, type(cls), cls.__module__, cls.__qualname__)
        return _new_class, args, attrs, None, None, _fill_class

    @staticmethod
    def _reduce_function(func: types.FunctionType) -> Tuple[Any, ...]:
        cells = []
        for cell in func.__closure__ or ():
            try:
                cells.append(cell.cell_contents)
            except ValueError:  # a cell not assigned yet
                cells.append(_EMPTY_CELL)
        state = {
            "defaults": func.__defaults__,
            "kwdefaults": func.__kwdefaults__,
            "qualname": func.__qualname__,
            "doc": func.__doc__,
            "dict": dict(func.__dict__),
            "cells": cells,
        }
        args = (marshal.dumps(func.__code__), func.__module__, func.__name__, len(cells))
        return _new_function, args, state, None, None, _fill_function


class Unpickler(pickle.Unpickler):
    """:class:`pickle.Unpickler`, named here as the counterpart of :class:`Pickler`.

    :param file: a binary file object with ``read`` and ``readline``
    """

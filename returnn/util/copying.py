"""Copy and serialise config objects: ``deepcopy`` that keeps modules, classes, functions and the builtins dict
shared; ``Entity`` markers that stay the same object through copies and pickling; ``serialize_object`` /
``deserialize_object`` that also handle what plain pickle refuses (``types.FunctionType``, the function inside a
classmethod)."""

from __future__ import annotations

import builtins
import copyreg
import io
import pickle
import struct
import sys
import types
from typing import Any, Dict, Optional, Sequence, Tuple

_ATOMIC = (type(None), bool, int, float, complex, str, bytes, type(Ellipsis), type(NotImplemented), range,
           types.ModuleType, type, types.FunctionType, types.BuiltinFunctionType, types.MethodType,
           types.CodeType, property, types.MethodWrapperType, types.WrapperDescriptorType)


class Entity:
    """A named marker object (like a sentinel) that copies and pickling keep identical: ``deepcopy`` returns the
    object itself, and pickling refers to it by ``global_name`` in ``global_base`` (a module or class; default the
    module that created it).

    :param name: shown by ``str`` and ``repr`` (``<name Entity>``)
    :param global_base: object that holds it as attribute ``global_name``
    :param global_name: the attribute name under which it is reachable, for pickling
    """

    def __init__(self, name: Optional[str] = None, *, global_base: Optional[Any] = None,
                 global_name: Optional[str] = None):
        self.name = name
        self.global_base = global_base
        self.global_name = global_name
        self._module_name = sys._getframe(1).f_globals.get("__name__") if global_base is None else None

    def __str__(self) -> str:
        return self.name or "<Entity>"

    def __repr__(self) -> str:
        return f"<{self.name or 'unnamed'} Entity>"

    def __copy__(self) -> Entity:
        return self

    def __deepcopy__(self, memo: Dict[int, Any]) -> Entity:
        return self

    def __reduce__(self):
        if not self.global_name:
            raise pickle.PicklingError(f"Entity {self.name!r} has no global_name and cannot be pickled")
        if self.global_base is not None:
            return getattr, (self.global_base, self.global_name)
        return _entity_from_module, (self._module_name, self.global_name)


def _entity_from_module(module_name: str, name: str) -> Entity:
    __import__(module_name)
    return getattr(sys.modules[module_name], name)


def deepcopy(x: Any, stop_types: Optional[Sequence[type]] = None) -> Any:
    """A deep copy of ``x`` like ``copy.deepcopy``, except that modules, classes, functions, code objects, the
    ``__builtins__`` dict (as ``exec`` puts it into a config namespace), :class:`Entity` objects and instances of
    ``stop_types`` are not copied but shared.

    :param x: the object (dicts, lists, tuples, sets and objects via ``__deepcopy__`` / ``__reduce_ex__``)
    :param stop_types: further types whose instances are shared
    """
    return _DeepCopier(tuple(stop_types or ())).copy(x, {})


class _DeepCopier:
    def __init__(self, stop_types: Tuple[type, ...]):
        self.stop_types = stop_types

    def copy(self, x: Any, memo: Dict[int, Any]) -> Any:
        if isinstance(x, _ATOMIC) or (self.stop_types and isinstance(x, self.stop_types)):
            return x
        if x is builtins.__dict__:
            return x
        key = id(x)
        if key in memo:
            return memo[key]
        cls = type(x)
        if cls is dict:
            y = {}
            memo[key] = y
            for k, v in x.items():
                y[self.copy(k, memo)] = self.copy(v, memo)
        elif cls is list:
            y = []
            memo[key] = y
            y.extend(self.copy(v, memo) for v in x)
        elif cls is tuple:
            y = tuple(self.copy(v, memo) for v in x)
            if key in memo:  # a recursive tuple got copied on the way
                return memo[key]
            memo[key] = y
        elif cls in (set, frozenset):
            y = cls(self.copy(v, memo) for v in x)
            memo[key] = y
        elif hasattr(x, "__deepcopy__") and not isinstance(x, type):
            y = x.__deepcopy__(memo)
            memo[key] = y
        else:
            y = self._reduce_copy(x, memo)
        memo.setdefault(id(memo), []).append(x)  # keep x alive while memo is, as copy.deepcopy does
        return y

    def _reduce_copy(self, x: Any, memo: Dict[int, Any]) -> Any:
        reductor = copyreg.dispatch_table.get(type(x))
        rv = reductor(x) if reductor is not None else x.__reduce_ex__(4)
        if isinstance(rv, str):  # a global name: the object itself
            return x
        func, args = rv[0], rv[1]
        state = rv[2] if len(rv) > 2 else None
        list_items = rv[3] if len(rv) > 3 else None
        dict_items = rv[4] if len(rv) > 4 else None
        y = func(*[self.copy(a, memo) for a in args])
        memo[id(x)] = y
        if state is not None:
            state = self.copy(state, memo)
            if hasattr(y, "__setstate__"):
                y.__setstate__(state)
            else:
                slot_state = None
                if isinstance(state, tuple) and len(state) == 2:
                    state, slot_state = state
                if state:
                    y.__dict__.update(state)
                if slot_state:
                    for k, v in slot_state.items():
                        setattr(y, k, v)
        if list_items is not None:
            for item in list_items:
                y.append(self.copy(item, memo))
        if dict_items is not None:
            for k, v in dict_items:
                y[self.copy(k, memo)] = self.copy(v, memo)
        return y


# -- serialisation

def _types_attr(name: str) -> Any:
    return getattr(types, name)


def _class_attr_raw(owner: type, name: str) -> Any:
    """The function inside the classmethod / staticmethod ``owner.name``."""
    return owner.__dict__[name].__func__


class _Pickler(pickle.Pickler):
    _types_names = {getattr(types, n): n for n in dir(types)
                    if isinstance(getattr(types, n), type)
                    and getattr(getattr(types, n), "__module__", "") == "builtins"}

    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, type):
            name = self._types_names.get(obj)
            if name is not None and getattr(builtins, obj.__name__, None) is not obj:
                return _types_attr, (name,)
            return NotImplemented
        if isinstance(obj, types.FunctionType):
            owner_name, _, name = obj.__qualname__.rpartition(".")
            module = sys.modules.get(obj.__module__)
            if owner_name and module is not None and "<" not in owner_name:
                owner = module
                for part in owner_name.split("."):
                    owner = getattr(owner, part, None)
                if isinstance(owner, type):
                    raw = owner.__dict__.get(name)
                    if isinstance(raw, (classmethod, staticmethod)) and raw.__func__ is obj:
                        return _class_attr_raw, (owner, name)
        return NotImplemented


def serialize_object(obj: Any) -> bytes:
    """``obj`` pickled (protocol 4) behind a 4-byte little-endian length; classes and functions by reference,
    including the types of the ``types`` module and functions wrapped in a classmethod or staticmethod.

    :raises pickle.PicklingError: ``obj`` holds something that cannot be pickled
    """
    buf = io.BytesIO()
    _Pickler(buf, protocol=4).dump(obj)
    data = buf.getvalue()
    return struct.pack("<i", len(data)) + data


def deserialize_object(data: bytes) -> Any:
    """The object of :func:`serialize_object`'s bytes.

    :raises ValueError: the length header does not match the data
    """
    if len(data) < 4:
        raise ValueError(f"deserialize_object: expected at least 4 bytes, got {len(data)}")
    (size,) = struct.unpack("<i", data[:4])
    if size != len(data) - 4:
        raise ValueError(f"deserialize_object: header says {size} bytes, got {len(data) - 4}")
    return pickle.loads(data[4:])

"""Pickling a :class:`returnn.config.Config` together with the functions and classes its Python config defines,
and the ``__returnn_config__`` module that names them.

A Python config runs with the config's ``typed_dict`` as its globals and ``__name__ == "__returnn_config__"``,
so its functions and classes have ``__module__ == "__returnn_config__"``. As in the reference:

* ``sys.modules["__returnn_config__"]`` is a module whose attributes are the keys of the *global* config
  (:func:`returnn.config.get_global_config`); so a config function pickled on its own (e.g. as a dataset's
  ``post_process``) is found again by name in a process that has the same global config;
* a :class:`Config` pickles its ``typed_dict`` with those functions and classes *by value* (their code and
  their attributes; their globals are the unpickled ``typed_dict`` again), imported modules by name, the
  config itself and ``__builtins__`` by reference. So a config survives a round trip into a fresh process,
  where it becomes the global config if it was the global config of the process that pickled it.

Values that cannot be pickled at all (a lock, a generator) raise ``TypeError`` as in the reference.
"""

from __future__ import annotations

import builtins
import importlib
import io
import marshal
import os
import pickle
import sys
import types
from typing import Any, Dict, Optional

_SELF_ID = "returnn.config.Config.self"
_BUILTINS_ID = "builtins"


class _ConfigModuleProxy(types.ModuleType):
    """``sys.modules["__returnn_config__"]``: attribute lookups go to the global config's typed values."""

    def __getattr__(self, name: str) -> Any:
        from returnn.config import get_global_config

        config = get_global_config(raise_exception=False)
        if config is None or name not in config.typed_dict:
            raise AttributeError(f"module '__returnn_config__' (the global config) has no attribute {name!r}"
                                 + ("" if config is not None else "; no global config is set"))
        return config.typed_dict[name]


def install_config_module_proxy() -> None:
    """Puts the ``__returnn_config__`` module into ``sys.modules`` (once)."""
    from returnn.config import CONFIG_MODULE_NAME

    if not isinstance(sys.modules.get(CONFIG_MODULE_NAME), _ConfigModuleProxy):
        sys.modules[CONFIG_MODULE_NAME] = _ConfigModuleProxy(CONFIG_MODULE_NAME, "the global RETURNN config")


class _ConfigPickler(pickle.Pickler):
    def __init__(self, file, config):
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.config = config

    def persistent_id(self, obj: Any) -> Optional[Any]:
        if obj is self.config or isinstance(obj, _ConfigRef):
            return _SELF_ID
        if obj is builtins or obj is builtins.__dict__:
            return _BUILTINS_ID
        if isinstance(obj, types.ModuleType):
            return ("module", obj.__name__)
        return None

    def reducer_override(self, obj: Any) -> Any:
        # Skeleton first, state second (pickle's state_setter): the skeleton is memoized before its state is
        # pickled, so cycles (a method's ``__class__`` cell holding its class, a function in its own closure) end.
        if isinstance(obj, types.FunctionType) and obj.__globals__ is self.config.typed_dict:
            return _function_skeleton, _function_skeleton_args(obj), _function_state(obj), None, None, \
                _set_function_state
        if isinstance(obj, type) and obj.__module__ == _config_module_name() and \
                self.config.typed_dict.get(obj.__name__) is obj:
            return _class_skeleton, _class_skeleton_args(obj), _class_state(obj), None, None, _set_class_state
        return NotImplemented


class _ConfigUnpickler(pickle.Unpickler):
    def __init__(self, file, config):
        super().__init__(file)
        self.config = config

    def persistent_load(self, pid: Any) -> Any:
        if pid == _SELF_ID:
            return self.config
        if pid == _BUILTINS_ID:
            return builtins
        if isinstance(pid, tuple) and len(pid) == 2 and pid[0] == "module":
            return importlib.import_module(pid[1])
        raise pickle.UnpicklingError(f"unknown persistent id {pid!r} in a pickled Config")


def _config_module_name() -> str:
    from returnn.config import CONFIG_MODULE_NAME

    return CONFIG_MODULE_NAME


def _function_skeleton_args(func: types.FunctionType) -> tuple:
    return _ConfigRef(), marshal.dumps(func.__code__), func.__name__, len(func.__closure__ or ())


def _function_skeleton(config, code_bytes, name, num_cells):
    cells = tuple(types.CellType() for _ in range(num_cells)) if num_cells else None
    return types.FunctionType(marshal.loads(code_bytes), config.typed_dict, name, None, cells)


def _function_state(func: types.FunctionType) -> dict:
    closure = []
    for cell in func.__closure__ or ():
        try:
            closure.append((True, cell.cell_contents))
        except ValueError:  # an empty cell
            closure.append((False, None))
    return {"qualname": func.__qualname__, "defaults": func.__defaults__, "kwdefaults": func.__kwdefaults__,
            "closure": closure, "doc": func.__doc__, "attrs": dict(vars(func))}


def _set_function_state(func: types.FunctionType, state: dict) -> types.FunctionType:
    for cell, (filled, value) in zip(func.__closure__ or (), state["closure"]):
        if filled:
            cell.cell_contents = value
    func.__qualname__ = state["qualname"]
    func.__defaults__ = state["defaults"]
    func.__kwdefaults__ = state["kwdefaults"]
    func.__doc__ = state["doc"]
    func.__module__ = _config_module_name()
    func.__dict__.update(state["attrs"])
    return func


_CLASS_SKIPPED = ("__dict__", "__weakref__")


def _class_skeleton_args(cls: type) -> tuple:
    return type(cls), cls.__name__, cls.__bases__, {"__module__": cls.__module__, "__qualname__": cls.__qualname__}


def _class_skeleton(metaclass, name, bases, namespace):
    return metaclass(name, bases, dict(namespace))


def _class_state(cls: type) -> dict:
    return {k: v for k, v in vars(cls).items() if k not in _CLASS_SKIPPED + ("__module__", "__qualname__")}


def _set_class_state(cls: type, state: dict) -> type:
    for key, value in state.items():
        setattr(cls, key, value)
    return cls


class _ConfigRef:
    """Stands for the config in a pickled function's state; pickled as the config's persistent id."""


def config_getstate(config) -> Dict[str, Any]:
    """The pickled state of ``config``: its typed values (see the module doc), line values, files, and whether it
    is the global config of this process."""
    from returnn.config import get_global_config

    buffer = io.BytesIO()
    _ConfigPickler(buffer, config).dump(config.typed_dict)
    return {"_pid": os.getpid(), "_typed_dict_pickled": buffer.getvalue(),
            "_is_global": get_global_config(raise_exception=False) is config,
            "dict": dict(config.dict), "files": list(config.files), "_cmd_overrides": dict(config._cmd_overrides)}


def config_setstate(config, state: Dict[str, Any]) -> None:
    """Restores ``config`` from :func:`config_getstate`; the functions' globals are the new ``typed_dict``."""
    from returnn.config import get_global_config, set_global_config

    install_config_module_proxy()
    config.__init__()
    typed = _ConfigUnpickler(io.BytesIO(state["_typed_dict_pickled"]), config).load()
    config.typed_dict.update(typed)
    config.dict.update(state.get("dict", {}))
    config.files.extend(state.get("files", []))
    config._cmd_overrides.update(state.get("_cmd_overrides", {}))
    if state.get("_is_global") and state.get("_pid") != os.getpid() and get_global_config(
            raise_exception=False) is None:
        set_global_config(config)

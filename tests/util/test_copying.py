import pickle
import sys
import types

import pytest

from returnn.config import Config
from returnn.util.basic import Entity, NumbersDict, custom_exec, deepcopy, deserialize_object, serialize_object

_module_entity = Entity("module entity", global_name="_module_entity")


class _Holder:
    def __init__(self, items):
        self.items = items


def test_deepcopy_copies_containers_and_objects():
    inner = [42, {"x": (1, 2)}]
    src = {"a": inner, "b": inner, "h": _Holder(inner)}
    out = deepcopy(src)
    assert out == {"a": [42, {"x": (1, 2)}], "b": out["a"], "h": out["h"]}
    assert out["a"] is not inner and out["a"] is out["b"]  # shared stays shared
    assert out["h"] is not src["h"] and out["h"].items is out["a"]


def test_deepcopy_keeps_modules_functions_builtins_entities():
    ns = {}
    custom_exec("def f():\n    return 1\n", "<test>", ns, ns)
    assert isinstance(ns["__builtins__"], dict)
    out = deepcopy({"sys": sys, "f": ns["f"], "ns": ns, "e": _module_entity, "cls": _Holder})
    assert out["sys"] is sys and out["f"] is ns["f"] and out["e"] is _module_entity and out["cls"] is _Holder
    assert out["ns"] is not ns and out["ns"]["__builtins__"] is ns["__builtins__"]


def test_deepcopy_stop_types():
    h = _Holder([1])
    assert deepcopy([h], stop_types=[_Holder])[0] is h
    assert deepcopy([h])[0] is not h


def test_deepcopy_config():
    config = Config({"a": [1, 2]})
    out = deepcopy(config)
    assert out is not config and out.typed_dict == {"a": [1, 2]} and out.typed_dict["a"] is not config.typed_dict["a"]


def test_entity_pickles_by_name():
    assert pickle.loads(pickle.dumps(_module_entity)) is _module_entity
    assert repr(_module_entity) == "<module entity Entity>" and str(_module_entity) == "module entity"
    with pytest.raises(pickle.PicklingError):
        pickle.dumps(Entity("anonymous"))


def test_serialize_object():
    for obj in (types.FunctionType, NumbersDict, NumbersDict.constant_like.__func__):
        assert deserialize_object(serialize_object(obj)) is obj
    m = deserialize_object(serialize_object(NumbersDict.constant_like))
    assert m.__self__ is NumbersDict and m.__func__ is NumbersDict.constant_like.__func__
    data = serialize_object({"a": [1, 2]})
    assert int.from_bytes(data[:4], "little") == len(data) - 4
    assert deserialize_object(data) == {"a": [1, 2]}
    with pytest.raises(ValueError, match="header"):
        deserialize_object(data[:-1])

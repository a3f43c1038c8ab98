import pickle

import numpy
import pytest

from returnn.util.basic import DictAsObj, FrozenDict, ObjAsDict, make_hashable


def test_make_hashable():
    # observed in the reference
    out = make_hashable({"a": [1, (2, [3])], "b": {"c": None}})
    assert out == {"a": (1, (2, (3,))), "b": {"c": None}} and isinstance(out, FrozenDict)
    assert hash(out) == hash(make_hashable({"b": {"c": None}, "a": [1, (2, [3])]}))
    assert make_hashable(frozenset([1])) == frozenset([1])
    with pytest.raises(TypeError, match="hashable"):
        make_hashable({"x": {1, 2}})
    with pytest.raises(TypeError):
        make_hashable(numpy.array([1, 2]))


def test_frozen_dict():
    d = FrozenDict({"a": 1})
    assert d == {"a": 1} and repr(d) == "{'a': 1}"
    with pytest.raises(ValueError, match="cannot be modified"):
        d["b"] = 2
    with pytest.raises(ValueError):
        d.update(b=2)
    assert pickle.loads(pickle.dumps(d)) == d and {d: 1}[FrozenDict({"a": 1})] == 1


def test_dict_as_obj_and_obj_as_dict():
    assert DictAsObj({"a": 1}).a == 1

    class C:
        pass

    c = C()
    c.x = 1
    view = ObjAsDict(c)
    assert view["x"] == 1 and dict(view) == {"x": 1} and view.get("y", 2) == 2
    with pytest.raises(KeyError):
        view["y"]

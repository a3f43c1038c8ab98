"""Tests for NumbersDict arithmetic and comparisons (per data key, with broadcast values)."""

import pytest

from returnn.util.basic import NumbersDict


def test_access_and_broadcast():
    d = NumbersDict({"data": 3, "classes": 2})
    assert d["data"] == 3 and d["missing"] is None
    b = NumbersDict(5)
    assert b["anything"] == 5 and b.value == 5 and not b.dict


def test_arithmetic_per_key():
    a = NumbersDict({"data": 3, "classes": 2})
    assert (a + 1).dict == {"data": 4, "classes": 3}
    assert (a * NumbersDict(2)).dict == {"data": 6, "classes": 4}
    assert (a - NumbersDict({"data": 1})).dict == {"data": 2, "classes": 2}
    assert (10 - a).dict == {"data": 7, "classes": 8}
    s = NumbersDict(0)
    s += a
    s += a
    assert s.dict == {"data": 6, "classes": 4} and s.value == 0


def test_max_min_and_compare():
    a = NumbersDict({"data": 3, "classes": 9})
    b = NumbersDict({"data": 5, "classes": 1})
    assert NumbersDict.max([a, b]).dict == {"data": 5, "classes": 9}
    assert NumbersDict.min([a, b]).dict == {"data": 3, "classes": 1}
    assert a.max_value() == 9 and a.min_value() == 3
    assert not (a > b) and not (a < b)  # holds for some keys only
    assert a.any_compare(b, lambda x, y: x > y)
    assert NumbersDict({"data": 10}) > NumbersDict(5)
    assert NumbersDict({"data": 3}) == NumbersDict({"data": 3})
    assert NumbersDict({"data": 3}) != NumbersDict({"data": 4})


def test_broadcast_rules_match_reference():
    # values observed from the reference
    assert repr(NumbersDict(5) + NumbersDict({"data": 1})) == "NumbersDict(numbers_dict={'data': 6}, broadcast_value=5)"
    assert repr(NumbersDict({"data": 1}) + 1) == "NumbersDict({'data': 2})"
    assert repr(NumbersDict({"data": 1}) * NumbersDict(3)) == "NumbersDict(numbers_dict={'data': 3}, broadcast_value=3)"
    assert repr(NumbersDict({"a": 2}) + NumbersDict({"b": 7})) == "NumbersDict({'a': 2, 'b': 7})"
    assert repr(NumbersDict(2) + NumbersDict(3)) == "NumbersDict(5)"
    assert not NumbersDict(0) and not NumbersDict({"a": 0})


def test_reference_helpers():
    # outputs observed from the reference's NumbersDict
    from returnn.util.basic import NumbersDict as N

    a, b = N({"a": 1, "b": 2}), N(numbers_dict={"a": 3}, broadcast_value=5)
    add = lambda x, y: x + y  # noqa: E731
    assert repr(N.bin_op(a, N(3), op=add, zero=0)) == "NumbersDict(numbers_dict={'a': 4, 'b': 5}, broadcast_value=3)"
    assert repr(N.bin_op(a, N({"c": 1}), op=add, zero=0)) == "NumbersDict({'a': 1, 'b': 2, 'c': 1})"
    assert repr(N.bin_op(a, 2, op=lambda x, y: x * y, zero=0)) == "NumbersDict({'a': 2, 'b': 4})"
    assert repr(N.bin_op(a, b, op=add, zero=0)) == "NumbersDict(numbers_dict={'a': 4, 'b': 7}, broadcast_value=5)"
    assert repr(N.bin_op_scalar_optional(a, None, zero=0, op=add)) == "NumbersDict({'a': 1, 'b': 2})"
    assert repr(a.elem_eq(N({"a": 1}))) == "NumbersDict({'a': True, 'b': None})"
    assert repr(N(2).elem_eq(N(2))) == "NumbersDict(True)"
    assert N.keys_union(a, N({"c": 1}), N(3)) == ["a", "b", "c"]
    assert repr(N(numbers_dict={"a": 1}, broadcast_value=4).unary_op(lambda x: x * 10)) == \
        "NumbersDict(numbers_dict={'a': 10}, broadcast_value=40)"
    assert repr(N.copy_like(N(numbers_dict={"a": 1}, broadcast_value=4), N({"x": 1}))) == "NumbersDict({'x': 4})"
    assert repr(N(4).copy_like(N(numbers_dict={"x": 1}, broadcast_value=0))) == \
        "NumbersDict(numbers_dict={'x': 4}, broadcast_value=4)"
    assert repr(N.constant_like(0, N({"a": 5, "b": 5}))) == "NumbersDict({'a': 0, 'b': 0})"
    assert repr(N.constant_like(3, N(numbers_dict={"a": 1}, broadcast_value=2))) == \
        "NumbersDict(numbers_dict={'a': 3}, broadcast_value=3)"
    # a classmethod, as the reference (observed): on an instance, the instance's own keys play no part
    assert repr(N({"a": 1}).constant_like(3, N({"b": 2}))) == "NumbersDict({'b': 3})"
    assert N.constant_like.__self__ is N
    x = N({"a": 1})
    assert x.pop("a") == 1 and x.pop("zz", 7) == 7 and repr(x) == "NumbersDict({})"
    with pytest.raises(KeyError):
        x.pop("zz")

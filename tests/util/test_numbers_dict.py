"""Tests for NumbersDict arithmetic and comparisons (per data key, with broadcast values)."""

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

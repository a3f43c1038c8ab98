"""obj_diff_list / obj_diff_str: the expected lines were observed by running the reference on the same inputs."""

import numpy
import pytest

from returnn.util.basic import obj_diff_list, obj_diff_str


@pytest.mark.parametrize("a, b, expected", [
    ({"a": [1, 2], "b": {"x": 1}}, {"a": [1, 3, 4], "c": 2},
     ["dict diff:", "  key 'b' not in other", "  key 'c' not in self",
      "['a'] list diff len: len self: 2, len other: 3"]),
    ((1, 2), [1, 2], ["type diff: self is tuple but other is list"]),
    ({1, 2}, {1, 3}, ["set diff value: self: 2 != other: 3"]),
    ({1, 2, 3}, {1, 4, 5}, ["set diff:", "  2 not in other", "  3 not in other", "  4 not in self", "  5 not in self"]),
    (numpy.array([1, 2]), numpy.array([1, 3]), ["self: array([1, 2]) != other: array([1, 3])"]),
    (numpy.array([1, 2]), numpy.array([1, 2]), []),
    ([[1, 2]], [[1, 3]], ["list diff:", "[0] list diff:", "[0] [1] self: 2 != other: 3"]),
    ({"a": {"b": [1, {"c": 2}]}}, {"a": {"b": [1, {"c": 3}]}},
     ["dict diff:", "['a'] dict diff:", "['a'] ['b'] list diff:", "['a'] ['b'] [1] dict diff:",
      "['a'] ['b'] [1] ['c'] self: 2 != other: 3"]),
    (None, 1, ["self is None and other is 1"]),
    (True, 1, ["type diff: self is bool but other is int"]),
    ({"x": 1, "a": 2}, {"a": 3, "x": 2}, ["dict diff:", "['a'] self: 2 != other: 3", "['x'] self: 1 != other: 2"]),
    (frozenset([1]), frozenset([2]), ["self: frozenset({1}) != other: frozenset({2})"]),
])
def test_obj_diff_list(a, b, expected):
    assert obj_diff_list(a, b) == expected


def test_obj_diff_str():
    assert obj_diff_str({"a": 1, "b": 2}, {"a": 1, "b": 3}) == "dict diff:\n['b'] self: 2 != other: 3"
    assert obj_diff_str({1: 1, 2: 2}, {1: 1, 2: 3}) == "dict diff:\n[2] self: 2 != other: 3"
    assert obj_diff_str({1: 1}, {1: 1}) == "No diff."


def _a_to_b(a, b):
    return isinstance(a, str) and isinstance(b, str) and a.startswith("A:") and b.startswith("B:")


@pytest.mark.parametrize("a, b, expected", [
    # a pair found anywhere applies everywhere (here found in 'd', used in 'z', which sorts later anyway)
    ({"z": {"A:b": 2}, "d": {"A:b"}}, {"z": {"B:b": 2}, "d": {"B:x"}},
     ["dict diff:", "['z'] dict diff:", "['z']   key 'A:b' not in other", "['z']   key 'B:b' not in self"]),
    ({"b": {"A:b": 2}, "d": {"A:b"}}, {"b": {"B:b": 2}, "d": {"B:x"}},
     ["dict diff:", "['d'] set diff value: self: 'B:b' != other: 'B:x'"]),
    (["A:a", "A:a"], ["B:a", "B:b"], ["list diff:", "[1] self: 'B:a' != other: 'B:b'"]),
    (["A:a", "A:b"], ["B:a", "B:a"], ["list diff:", "[1] self: 'A:b' != other: 'B:a'"]),
    ("A:a", "B:a", []),
    # several unmatched keys are not paired by themselves
    ({"b": {"A:a": 1, "A:b": 2}}, {"b": {"B:a": 1, "B:b": 2}},
     ["dict diff:", "['b'] dict diff:", "['b']   key 'A:a' not in other", "['b']   key 'A:b' not in other",
      "['b']   key 'B:a' not in self", "['b']   key 'B:b' not in self"]),
    # ... but they are once pairs are known from elsewhere (a second round)
    ({"a": 1, "b": {"A:a": 1, "A:b": 2}, "c": ["A:a"], "d": {"A:b"}},
     {"a": 1, "b": {"B:a": 1, "B:b": 2}, "c": ["B:a"], "d": {"B:b"}}, []),
])
def test_obj_diff_list_allowed_mapping(a, b, expected):
    assert obj_diff_list(a, b, allowed_mapping=_a_to_b) == expected

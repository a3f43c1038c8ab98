"""Tests for the small helpers re-exported by returnn.util.basic (py2 names, generic_import_module, to_bool, ...),
with the values observed from the reference."""

import sys

import numpy
import pytest

from returnn.util import basic


def test_py2_names():
    assert basic.PY3 is True
    assert basic.unicode is str and basic.long is int
    assert basic.py2_utf8_str_to_unicode("ä") == "ä"
    assert basic.py2_utf8_str_to_unicode("ä".encode("utf8")) == "ä"
    assert basic.unicode_to_str(b"x") == "x" and basic.as_str(b"\xc3\xa4") == "ä"
    with pytest.raises(TypeError, match="expected str or bytes, got int 5"):
        basic.as_str(5)


def test_legacy_util_module_names():
    from Util import PY3, cleanup_env_var_path, py2_utf8_str_to_unicode  # noqa: F401 (as the 2018-2020 configs)
    import Util

    assert Util.cf is basic.cf and PY3 is True


def test_generic_import_module_by_path(tmp_path, monkeypatch):
    (tmp_path / "h1_phone_utils.py").write_text("VALUE = 7\ndef f():\n    return 3\n")
    monkeypatch.setattr(sys, "path", list(sys.path))
    mod = basic.generic_import_module(str(tmp_path / "h1_phone_utils.py"))
    try:
        assert mod.__name__ == "h1_phone_utils" and mod.VALUE == 7 and mod.f() == 3
        assert sys.modules["h1_phone_utils"] is mod
        assert sys.path[-1] == str(tmp_path)
        assert basic.generic_import_module(str(tmp_path / "h1_phone_utils.py")) is mod
    finally:
        sys.modules.pop("h1_phone_utils", None)


def test_generic_import_module_by_name_and_errors(tmp_path):
    import json

    assert basic.generic_import_module("json") is json
    with pytest.raises(ModuleNotFoundError):
        basic.generic_import_module("h1_no_such_module_xyz")
    with pytest.raises(ModuleNotFoundError, match="no such file or directory"):
        basic.generic_import_module(str(tmp_path / "missing.py"))


@pytest.mark.parametrize("value, expected", [
    ("TRUE", True), ("yes", True), ("on", True), ("1", True), ("NO", False), ("off", False), ("0", False),
    ("false", False), (2, True), (0, False), (1.0, True), (True, True), (False, False),
])
def test_to_bool(value, expected):
    assert basic.to_bool(value) is expected


def test_to_bool_errors():
    with pytest.raises(ValueError, match="to_bool cannot handle ''"):
        basic.to_bool("")
    with pytest.raises(ValueError, match="to_bool cannot handle 'y'"):
        basic.to_bool("y")
    with pytest.raises(TypeError):
        basic.to_bool(None)


def test_value_helpers():
    assert [basic.str_is_number(s) for s in ("1e3", " 5", "inf", "nan", "1_000", "x", "")] == [True] * 5 + [False] * 2
    assert basic.dict_joined({"a": 1}, {"a": 2, "b": 3}) == {"a": 2, "b": 3}
    assert basic.prod([2, 3, 4]) == 24 and basic.prod([]) == 1 and basic.prod([2.5, 2]) == 5.0
    numpy.testing.assert_allclose(basic.softmax(numpy.array([1.0, 2.0, 3.0])),
                                  [0.09003057, 0.24472847, 0.66524096], rtol=1e-6)
    numpy.testing.assert_allclose(basic.softmax(numpy.array([[1.0, 2.0], [3.0, 5.0]]), axis=0),
                                  [[0.11920292, 0.04742587], [0.88079708, 0.95257413]], rtol=1e-6)
    numpy.testing.assert_allclose(basic.softmax(numpy.array([[1.0, 2.0], [3.0, 5.0]])),
                                  [[0.01521943, 0.0413707], [0.11245721, 0.83095266]], rtol=1e-6)
    assert isinstance(basic.NotSpecified, type)


@pytest.mark.parametrize("filename, epoch, pattern", [
    ("/x/model.012", 12, "/x/model.012"), ("/x/model.012.index", 12, "/x/model.012"),
    ("/x/model.012.meta", 12, "/x/model.012"),
    ("/x/model.012.data-00000-of-00001", 12, "/x/model.012.data-00000-of-00001"),
    ("/x/model.pretrain.005", 5, "/x/model.pretrain.005"), ("/x/model", None, "/x/model"),
    ("/x/model.abc", None, "/x/model.abc"), ("/x/m.1.2", 2, "/x/m.1.2"),
])
def test_checkpoint_names(filename, epoch, pattern):
    assert basic.model_epoch_from_filename(filename) == epoch
    assert basic.get_checkpoint_filepattern(filename) == pattern


@pytest.mark.parametrize("obj, text", [
    ({"b": 1, "a": [1, 2.5, "x", (3,)], "c": {2: None}}, "{\n'a': [\n1,\n2.5,\n'x',\n(3,),\n],\n'b': 1,\n'c': {2: None},\n}"),
    ([1, 2], "[\n1,\n2,\n]"), ([], "[\n]"), ((1,), "(1,)"), ((1, 2), "(1, 2)"), ("s", "'s'"), ({}, "{}"),
    ({"a": [1, 2]}, "{'a': [\n1,\n2,\n]}"), ({"b": 1, "a": 2}, "{'a': 2, 'b': 1}"),
    ([{"a": 1, "b": 2}, 3], "[\n{'a': 1, 'b': 2},\n3,\n]"), ((1, (2, 3)), "(1, (2, 3))"),
    ({1, 2}, "set([\n1,\n2,\n])"), ((1, [2]), "(1, [\n2,\n])"), (([1, 2],), "([1, 2],)"),
    ({"a": "x" * 32}, "{'a': '%s'}" % ("x" * 32)), ({"a": "x" * 33}, "{\n'a': '%s',\n}" % ("x" * 33)),
    ({"aaaaaaaaaaaaaa": [1, 2, 3], "b": "cccccc"}, "{\n'aaaaaaaaaaaaaa': [\n1,\n2,\n3,\n],\n'b': 'cccccc',\n}"),
])
def test_better_repr(obj, text):
    # outputs observed from the reference's better_repr
    assert basic.better_repr(obj) == text
    assert eval(text) == obj or isinstance(obj, set)

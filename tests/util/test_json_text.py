import pytest

from returnn.util.basic import json_remove_comments, load_json


def test_json_remove_comments():
    # observed in the reference
    assert json_remove_comments('{\n// c\n"a": 1 // x\n}') == '{"a":1}'
    assert json_remove_comments('{\n  // c\n  "a": "x // y", \n  "b": 1}', strip_space=False) == \
        '{    "a": "x // y",   "b": 1}'
    assert json_remove_comments("  {'a': 1}  ") == "  {'a': 1}  "  # no comment: unchanged
    assert json_remove_comments('{"a": "\\" // x"} // y') == '{"a":"\\" // x"}'


def test_load_json(tmp_path):
    assert load_json(content='{\n// c\n"a": 1, "b": [1, 2]\n}') == {"a": 1, "b": [1, 2]}
    fn = tmp_path / "x.json"
    fn.write_text('{"a": 2} // end\n')
    assert load_json(filename=str(fn)) == {"a": 2}
    with pytest.raises(ValueError):
        load_json()

import ast
import pickle

import pytest

from returnn.util import literal_py_to_pickle


@pytest.mark.parametrize("s", ["0", "1.23", "'abc'", '"a\\n\\x00\\"b"', "'hällö'", "[1, 2]", "{'a': None, 1: 2}",
                               "{1, 2}", "(1, (2,))", "None", "True"])
def test_literal_eval(s):
    assert literal_py_to_pickle.literal_eval(s) == ast.literal_eval(s)
    assert pickle.loads(literal_py_to_pickle.py_to_pickle(s)) == ast.literal_eval(s)


def test_not_a_literal():
    with pytest.raises(ValueError):
        literal_py_to_pickle.literal_eval("foo()")

"""tools/dump-pickle.py; the expected output was observed with the reference's tool on the same pickle."""

import pickle

import numpy as np

from tests.tools._tool_inputs import run_tool

EXPECTED = """{
'a': 1,
'arr': array([[0., 1., 2.],
       [3., 4., 5.]], dtype=float32),
'b': [
1.5,
'x',
None,
],
'c': (1, 2),
'd': {'nested': {'k': b'bytes'}},
'set': set([
1,
2,
3,
]),
}
"""


def test_output_as_reference(tmp_path):
    filename = tmp_path / "p1.pkl"
    with open(filename, "wb") as f:
        pickle.dump({"a": 1, "b": [1.5, "x", None], "c": (1, 2), "d": {"nested": {"k": b"bytes"}},
                     "arr": np.arange(6).reshape(2, 3).astype("float32"), "set": {3, 1, 2}}, f)
    assert run_tool("dump-pickle.py", str(filename))[:2] == (0, EXPECTED)
    bad = tmp_path / "bad.pkl"
    bad.write_text("not a pickle")
    code, out, err = run_tool("dump-pickle.py", str(bad))
    assert code == 1 and out == "" and "bad.pkl" in err and "UnpicklingError" in err

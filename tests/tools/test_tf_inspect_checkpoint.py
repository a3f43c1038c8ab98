"""tools/tf_inspect_checkpoint.py; expected outputs observed with the reference's tool on the same checkpoint."""

import argparse

import numpy as np
import pytest

from tests.tools._tool_inputs import INSPECT_VALUES, run_tool, write_checkpoint

LISTING = "enc/W (DT_FLOAT) [3,4]\nenc/b (DT_FLOAT) [2]\nglobal_step (DT_INT64) []\n\n"
TENSOR_W = """tensor_name:  enc/W
[[-0.5        -0.35714287 -0.2142857  -0.07142857]
 [ 0.0714286   0.21428573  0.35714287  0.5       ]
 [ 0.6428572   0.78571427  0.92857146  1.0714285 ]]
mean: 0.2857143
stddev: 0.49315035
rms: 0.56993854
min: -0.5
max: 1.0714285
"""
TENSOR_STEP = "tensor_name:  global_step\n42\nmean: 42.0\nstddev: 0.0\nrms: 42.0\nmin: 42\nmax: 42\n"
ALL = """tensor_name:  enc/W
[[-0.5        -0.35714287 -0.2142857  -0.07142857]
 [ 0.0714286   0.21428573  0.35714287  0.5       ]
 [ 0.6428572   0.78571427  0.92857146  1.0714285 ]]
tensor_name:  enc/b
[ 0.25 -0.75]
tensor_name:  global_step
42
"""
TENSOR_B_PRECISION_3 = "tensor_name:  enc/b\n[ 0.25 -0.75]\nmean: -0.25\nstddev: 0.5\nrms: 0.559017\nmin: -0.75\nmax: 0.25\n"


@pytest.fixture
def checkpoint(tmp_path):
    prefix = str(tmp_path / "insp")
    write_checkpoint(prefix, INSPECT_VALUES)
    return prefix


def test_outputs_as_reference(checkpoint, capsys):
    from returnn.tf.util.checkpoint_inspect import inspect_checkpoint

    for kwargs, expected, ok in (({}, LISTING, True), ({"tensor_name": "enc/W"}, TENSOR_W, True),
                                 ({"tensor_name": "global_step"}, TENSOR_STEP, True),
                                 ({"all_tensors": True}, ALL, True), ({"all_tensors": True, "tensor_name": "x"}, ALL, True),
                                 ({"tensor_name": "foo"}, "tensor_name:  foo\nKey foo not found in checkpoint\n", False)):
        assert inspect_checkpoint(checkpoint, **kwargs) is ok
        assert capsys.readouterr().out == expected, kwargs
    assert inspect_checkpoint(checkpoint + "x") is False
    assert "Failed to find any matching files for %sx" % checkpoint in capsys.readouterr().out


def test_command_line(checkpoint):
    code, out, _ = run_tool("tf_inspect_checkpoint.py", "--file_name", checkpoint, "--tensor_name", "enc/b",
                            "--printoptions", "precision=3")
    assert (code, out) == (0, TENSOR_B_PRECISION_3)
    code, out, _ = run_tool("tf_inspect_checkpoint.py")
    assert (code, out) == (1, "Usage: inspect_checkpoint --file_name=checkpoint_file_name "
                              "[--tensor_name=tensor_to_print]\n")


def test_printoptions_parsing():
    from returnn.tf.util.checkpoint_inspect import parse_printoption

    assert parse_printoption("precision=3") == ("precision", 3)
    assert parse_printoption("suppress=T") == ("suppress", True)
    assert parse_printoption("nanstr=x=y") == ("nanstr", "x=y")
    # the messages of the reference's tool
    for text, message in (("foo", "'foo' is not in the form k=v."), ("=3", "'=3' is not in the form k=v."),
                          ("foo=1", "'foo' is not a valid printoption."),
                          ("precision=x", "invalid literal for int() with base 10: 'x'"),
                          ("legacy=1.13", "('Non-boolean argument to boolean flag', '1.13')"),
                          ("formatter=1", "Setting 'formatter' from the command line is not supported.")):
        with pytest.raises(argparse.ArgumentTypeError) as exc:
            parse_printoption(text)
        assert str(exc.value) == message


def test_stats_dtype():
    from returnn.tf.util.checkpoint_inspect import tensor_stats

    stats = tensor_stats(np.array([3, -4], np.int32))
    assert stats["rms"] == pytest.approx(np.sqrt(12.5)) and stats["min"] == -4 and stats["mean"] == -0.5

"""tools/tf_avg_checkpoints.py on small checkpoints written by the test. The expected averages were observed by
running the reference's tool on the same three checkpoints (float variables only: it stops on integer ones)."""

import os

import numpy as np
import pytest
import tensorflow as tf

from tests.tools._tool_inputs import AVG_INPUTS, run_tool, write_checkpoint

# observed: reference tools/tf_avg_checkpoints.py --checkpoints m.001,m.002,m.003 on AVG_INPUTS
REFERENCE_AVERAGE = {
    "half": (np.float16, [0.291748046875, 1.25, -0.333251953125]),
    "layer/W": (np.float32, [[0.3033333420753479, 0.06666667014360428, 0.3111000061035156],
                             [0.0016666667070239782, 0.1666666716337204, 33333336.0]]),
    "layer/b": (np.float64, [2.3333333333333335, 1.8333333333333333]),
}


def _write_inputs(tmp_path, with_step=False):
    for i, values in enumerate(AVG_INPUTS):
        values = dict(values)
        if with_step:
            values["global_step"] = np.int64(100 * (i + 1))
        write_checkpoint(str(tmp_path / ("m.%03d" % (i + 1))), values)


def _read(prefix):
    reader = tf.train.load_checkpoint(prefix)
    return {name: reader.get_tensor(name) for name in reader.get_variable_to_shape_map()}


def test_average_equals_reference(tmp_path):
    _write_inputs(tmp_path)
    out = str(tmp_path / "out" / "avg")
    os.makedirs(os.path.dirname(out))
    code, _, err = run_tool("tf_avg_checkpoints.py", "--checkpoints", "m.001,m.002,m.003",
                            "--prefix", str(tmp_path) + "/", "--output_path", out)
    assert code == 0, err
    values = _read(out)
    assert sorted(values) == sorted(REFERENCE_AVERAGE)
    for name, (dtype, expected) in REFERENCE_AVERAGE.items():
        assert values[name].dtype == dtype
        np.testing.assert_array_equal(values[name], np.array(expected, dtype))
        # and it is the float64 mean, cast back (a float32 sum would differ for layer/W)
        mean = (sum(v[name].astype(np.float64) for v in AVG_INPUTS) / 3).astype(dtype)
        np.testing.assert_array_equal(values[name], mean)
    assert "Averaged checkpoints saved in %s" % out in err
    # as the reference: the 'checkpoint' state file of the output directory names the average, and a .meta exists
    state = tf.train.get_checkpoint_state(os.path.dirname(out))
    assert state.model_checkpoint_path == out
    assert os.path.exists(out + ".meta")


def test_integer_variable_from_last_checkpoint_and_num_last(tmp_path, caplog):
    from returnn.tf.util.checkpoint_average import run_average_tool

    _write_inputs(tmp_path, with_step=True)
    # the 'checkpoint' state file lists the checkpoints for --num_last_checkpoints
    with open(tmp_path / "checkpoint", "w") as f:
        f.write('model_checkpoint_path: "m.003"\n' + "".join(
            'all_model_checkpoint_paths: "m.%03d"\n' % i for i in (1, 2, 3)))
    out = str(tmp_path / "avg2")
    with caplog.at_level("INFO"):
        assert run_average_tool(num_last_checkpoints=2, prefix=str(tmp_path), output_path=out) == out
    values = _read(out)
    assert values["global_step"] == 300 and values["global_step"].dtype == np.int64
    expected = ((AVG_INPUTS[1]["layer/W"].astype(np.float64) + AVG_INPUTS[2]["layer/W"]) / 2).astype(np.float32)
    np.testing.assert_array_equal(values["layer/W"], expected)
    assert "Read from checkpoint %s" % (tmp_path / "m.002") in caplog.text and "m.001" not in caplog.text


def test_missing_checkpoints(tmp_path):
    from returnn.errors import DataFileError
    from returnn.tf.util.checkpoint_average import resolve_checkpoints

    _write_inputs(tmp_path)
    prefix = str(tmp_path) + "/"
    # a missing one is left out (as the reference)
    assert resolve_checkpoints("m.001, m.009,", prefix=prefix) == [prefix + "m.001"]
    with pytest.raises(DataFileError, match="None of the provided checkpoints exist"):
        resolve_checkpoints("x.1,x.2", prefix=prefix)
    with pytest.raises(ValueError, match="Must average at least one model"):
        resolve_checkpoints("", 0)
    os.makedirs(tmp_path / "empty")
    with pytest.raises(DataFileError, match="no checkpoint state file"):
        resolve_checkpoints("", 2, prefix=str(tmp_path / "empty"))


def test_different_variables(tmp_path):
    from returnn.errors import DataFileError
    from returnn.tf.util.checkpoint_average import average_checkpoints

    write_checkpoint(str(tmp_path / "a"), {"x": np.zeros(2, np.float32)})
    write_checkpoint(str(tmp_path / "b"), {"x": np.zeros(3, np.float32)})
    write_checkpoint(str(tmp_path / "c"), {"y": np.zeros(2, np.float32)})
    with pytest.raises(DataFileError, match="'x' has shape \\[3\\]"):
        average_checkpoints([str(tmp_path / "a"), str(tmp_path / "b")])
    with pytest.raises(DataFileError, match="missing: \\['x'\\], extra: \\['y'\\]"):
        average_checkpoints([str(tmp_path / "a"), str(tmp_path / "c")])

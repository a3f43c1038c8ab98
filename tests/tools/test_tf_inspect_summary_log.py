"""tools/tf_inspect_summary_log.py; expected outputs observed with the reference's tool on the same events file."""

from tests.tools._tool_inputs import run_tool, write_summary_log


def test_output_as_reference(tmp_path):
    from returnn.tf.util.summary_log import scalar_values

    filename = write_summary_log(str(tmp_path))
    code, out, _ = run_tool("tf_inspect_summary_log.py", filename)
    assert code == 0
    assert out == ("file: %s\ntag: objective/loss\nstep 0: 0.10000000149011612\nstep 3: nan\n"
                   "step 6: 1.0000000150474662e+30\nstep 9: -2.0\nstep 9: 2.5\nstep 9: 3.5\nstep 11: 0.0\ndone\n"
                   % filename)
    assert scalar_values(filename, "cost/output") == [(0, 4.25), (5, 1.125)]
    assert scalar_values(filename, "nonexist") == []


def test_truncated_and_missing(tmp_path):
    import pytest

    from returnn.errors import DataFileError
    from returnn.tf.util.summary_log import scalar_values

    filename = write_summary_log(str(tmp_path))
    with open(filename, "rb") as f:
        data = f.read()
    with open(filename, "wb") as f:  # the last record cut off, as while a writer is still writing
        f.write(data[:-7])
    assert scalar_values(filename, "cost/output") == [(0, 4.25)]
    with pytest.raises(DataFileError, match="cannot open"):
        scalar_values(str(tmp_path / "nonexist"))

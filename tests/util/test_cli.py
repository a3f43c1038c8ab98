"""returnn.util.cli.run_tool: exit status of a tool's main, and quiet end when the reader stops (``| head``)."""

import subprocess
import sys

import pytest

from returnn.util.cli import run_tool


def test_exit_status_is_mains_return_value():
    with pytest.raises(SystemExit) as exc:
        run_tool(lambda: 3)
    assert exc.value.code == 3
    with pytest.raises(SystemExit) as exc:
        run_tool(lambda: None)
    assert exc.value.code == 0


def test_reader_that_stops_reading_ends_the_tool_quietly():
    code = ("from returnn.util.cli import run_tool\n"
            "def main():\n"
            "    for i in range(200000):\n"
            "        print('line %i' % i)\n"
            "run_tool(main)\n")
    proc = subprocess.run(f"{sys.executable} -c \"{code}\" | head -n 2", shell=True, capture_output=True, text=True,
                          timeout=60)
    assert proc.stdout == "line 0\nline 1\n"
    assert "Traceback" not in proc.stderr and "BrokenPipe" not in proc.stderr

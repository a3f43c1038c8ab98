import io
import os

import pytest

from returnn.util.basic import (CalledProcessError, custom_exec, expand_env_vars, sys_cmd_out_lines, sys_exec_out,
                                terminal_size, which)


def test_sys_cmd_out_lines():
    assert sys_cmd_out_lines("echo 1; echo 2; echo x >&2") == ["1", "2"]
    assert sys_cmd_out_lines("true") == []
    with pytest.raises(CalledProcessError):
        sys_cmd_out_lines("exit 3")


def test_sys_exec_out_and_which():
    assert sys_exec_out("echo", " a b ") == "a b"
    assert which("sh") is not None and os.path.isabs(which("sh"))
    assert which("no-such-program-xyz") is None


def test_expand_env_vars(monkeypatch):
    monkeypatch.setenv("TMPA", "/testA")
    monkeypatch.setenv("TMPB", "testB")
    assert expand_env_vars("$TMPA/${TMPB}/x/$NO_SUCH_VAR_XYZ") == "/testA/testB/x/$NO_SUCH_VAR_XYZ"


def test_terminal_size_not_a_tty():
    assert terminal_size(io.StringIO()) == (-1, -1)


def test_custom_exec_traceback_shows_source():
    ns = {}
    custom_exec("x = 1\ndef f():\n    raise ValueError('boom')\n", "<my-source>", ns, ns)
    assert ns["x"] == 1
    with pytest.raises(ValueError) as exc_info:
        ns["f"]()
    import traceback
    text = "".join(traceback.format_exception(exc_info.value))
    assert "raise ValueError('boom')" in text and "<my-source>" in text


def test_which_pip_prefers_the_interpreters_own_dir(tmp_path, monkeypatch):
    import sys
    from returnn.util.basic import which_pip
    fake_pip = tmp_path / "pip3"
    fake_pip.write_text("#!/bin/sh\n")
    fake_pip.chmod(0o755)
    (tmp_path / "pip").write_text("not executable")
    monkeypatch.setattr(sys, "executable", str(tmp_path / "python3"))
    assert which_pip() == str(fake_pip)


def test_which_pip_none_found(tmp_path, monkeypatch):
    import sys
    from returnn.util.basic import which_pip
    monkeypatch.setattr(sys, "executable", str(tmp_path / "python3"))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(FileNotFoundError, match="no pip found"):
        which_pip()

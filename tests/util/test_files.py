"""Tests for returnn.util.files (cf, cleanup_env_var_path, load_txt_vector, temp dirs), with the outputs observed
from the reference's returnn.util.basic."""

import os

import pytest

import returnn.util.files as files_mod
from returnn.errors import DataFileError
from returnn.util.basic import cf, cleanup_env_var_path, get_cache_dir, get_temp_dir, load_txt_vector


@pytest.mark.parametrize("value, prefix, expected, removed", [
    ("/a/b:/u/x/y:/c:/u/z", "/u/x/y", "/a/b:/c:/u/z", ["/u/x/y"]),
    ("/a/b:/u/x/y:/c:/u/z", "/u/x", "/a/b:/c:/u/z", ["/u/x/y"]),
    ("/a/b:/u/x/y:/c:/u/z", "/u/x/", "/a/b:/u/x/y:/c:/u/z", []),
    ("/a/b:/u/x/y:/c:/u/z", "/u/", "/a/b:/u/x/y:/c:/u/z", []),
    ("/u/x:/u/x:/b", "/u/x", "/b", ["/u/x", "/u/x"]),
    ("/u/x/", "/u/x", "", ["/u/x/"]),
    ("/u/x/:/u/x", "/u/x/", "/u/x", ["/u/x/"]),
    ("/ua:/u", "/u", "/ua", ["/u"]),
    ("/a:/b", "", "", ["/a", "/b"]),
    ("/a::/b", "/u", "/a::/b", []),
    ("", "/u", "", []),
])
def test_cleanup_env_var_path(monkeypatch, capsys, value, prefix, expected, removed):
    monkeypatch.setenv("RETURNN_TEST_PATH", value)
    assert cleanup_env_var_path("RETURNN_TEST_PATH", prefix) is None
    assert os.environ["RETURNN_TEST_PATH"] == expected
    assert capsys.readouterr().out == "".join(f"Removing {e} from RETURNN_TEST_PATH.\n" for e in removed)


def test_cleanup_env_var_path_unset_variable(monkeypatch, capsys):
    monkeypatch.delenv("RETURNN_TEST_PATH", raising=False)
    cleanup_env_var_path("RETURNN_TEST_PATH", "/u")
    assert "RETURNN_TEST_PATH" not in os.environ
    assert capsys.readouterr().out == ""


def test_cf_returns_path_and_prints_once(monkeypatch, capsys):
    monkeypatch.setattr(files_mod, "_cf_message_printed", False)
    assert cf("/data/a.hdf") == "/data/a.hdf"
    assert cf("/data/b.hdf") == "/data/b.hdf"
    assert capsys.readouterr().out == "Cache manager: not used, use local file: /data/a.hdf (discard further messages)\n"


def test_load_txt_vector(tmp_path):
    path = tmp_path / "prior.txt"
    path.write_text("1.5\n\n-2\n3e-1\n")
    assert load_txt_vector(str(path)) == [1.5, -2.0, 0.3]


def test_load_txt_vector_errors(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text("1\n2 3\n")
    with pytest.raises(ValueError, match=r"line 2: expected one number per line, got '2 3'") as info:
        load_txt_vector(str(path))
    assert isinstance(info.value, DataFileError)
    with pytest.raises(FileNotFoundError, match="does not exist"):
        load_txt_vector(str(tmp_path / "missing.txt"))


def test_temp_and_cache_dir(monkeypatch):
    monkeypatch.setenv("USER", "alice")
    monkeypatch.setenv("TMPDIR", "/tmp/xx")
    monkeypatch.delenv("RETURNN_CACHE_DIR", raising=False)
    assert get_temp_dir() == "/tmp/xx/alice"
    assert get_temp_dir(with_username=False) == "/tmp/xx"
    assert get_cache_dir() == "/tmp/xx/alice"
    monkeypatch.setenv("RETURNN_CACHE_DIR", "/tmp/cc")
    assert get_cache_dir() == "/tmp/cc"
    monkeypatch.delenv("TMPDIR")
    assert get_temp_dir(with_username=False) == "/var/tmp"

"""Tests for returnn.log: verbosity levels per target, file logs (append, flush per line, dir creation)."""

from returnn.config import Config
from returnn.log import Log


def test_levels_and_files(tmp_path, capsys):
    log = Log()
    low = tmp_path / "sub" / "dir" / "low.log"  # directory does not exist yet
    high = tmp_path / "high.log"
    log.initialize(logs=[str(low), str(high)], verbosity=[2, 5])
    print("level1", file=log.v1)
    print("level3", file=log.v3)
    print("level5", file=log.v5)
    # written and flushed without closing
    assert low.read_text() == "level1\n"
    assert high.read_text() == "level1\nlevel3\nlevel5\n"
    # stdout gets the first verbosity (2)
    assert capsys.readouterr().out == "level1\n"
    log.close()


def test_file_log_appends(tmp_path):
    path = tmp_path / "a.log"
    path.write_text("old line\n")
    log = Log()
    log.initialize(logs=[str(path)], verbosity=[3])
    print("new line", file=log.v3)
    log.close()
    assert path.read_text() == "old line\nnew line\n"


def test_init_by_config_and_timed_format(tmp_path, capsys):
    path = tmp_path / "t.log"
    log = Log()
    log.init_by_config(Config({"log": str(path), "log_verbosity": 4, "log_format": "timed"}))
    print("hello", file=log.v4)
    log.close()
    line = path.read_text()
    assert line.endswith(" hello\n") and line[:4].isdigit() and line[4] == "-"


def test_enabled_and_default():
    log = Log()
    assert log.v3.is_enabled() and not log.v4.is_enabled()  # default verbosity 3
    log.initialize(verbosity=5)
    assert log.v5.is_enabled()

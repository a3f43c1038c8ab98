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


def test_print_warning_once_per_text(capsys):
    # lines and de-duplication observed from the reference's Log.print_warning / print_deprecation_warning
    log = Log()
    log.initialize(verbosity=[5])
    log.print_warning("w1", prefix_text="W!", extra_text="extra")
    log.print_warning("w2", extra_text="extra2")
    log.print_warning("w3\nline2")
    log.print_warning("w1")
    log.print_deprecation_warning("d1", behavior_version=5)
    log.print_deprecation_warning("d1", behavior_version=6)
    log.print_warning("d1")
    log.print_deprecation_warning("d2")
    assert capsys.readouterr().out == (
        "W! w1\nextra\nWARNING: w2\nextra2\nWARNING: w3\nline2\n"
        "DEPRECATION WARNING: d1\nThis will be disallowed with behavior_version 5.\n"
        "DEPRECATION WARNING: d2\nThis might be disallowed with a future behavior_version.\n")


def test_warnings_go_to_v2(capsys):
    log = Log()
    log.initialize(verbosity=[1])
    log.print_warning("hidden")
    assert capsys.readouterr().out == ""
    log.initialize(verbosity=[2])
    log.print_warning("shown")
    assert capsys.readouterr().out == "WARNING: shown\n"


def test_propagate_to_python_logging(tmp_path, capsys):
    import logging

    records = []

    class Collect(logging.Handler):
        def emit(self, record):
            records.append((record.name, record.levelno, record.levelname, record.getMessage()))

    root = logging.getLogger()
    handler, old_level = Collect(level=1), root.level
    root.addHandler(handler)
    root.setLevel(1)
    try:
        log = Log()
        path = tmp_path / "f.log"
        log.initialize(logs=[str(path)], verbosity=[3], propagate=True)
        assert log.filename == str(path)
        for level in range(1, 6):
            print(f"line v{level}", file=log.v[level])
        log.v3.write("partial ")
        log.v3.write("rest\n")
        log.close()
    finally:
        root.removeHandler(handler)
        root.setLevel(old_level)
    # levels as observed from the reference; nothing on stdout; the file gets its verbosity
    assert records == [("returnn", 21, "INFO", "line v1"), ("returnn", 20, "INFO", "line v2"),
                       ("returnn", 12, "DEBUG", "line v3"), ("returnn", 11, "DEBUG", "line v4"),
                       ("returnn", 10, "DEBUG", "line v5"), ("returnn", 12, "DEBUG", "partial rest")]
    assert capsys.readouterr().out == ""
    assert path.read_text() == "line v1\nline v2\nline v3\npartial rest\n"


def test_global_log_streams():
    from returnn.log import log

    assert [log.v0, log.v1, log.v2, log.v3, log.v4, log.v5] == log.v and log.error is log.v1
    assert log.filename is None

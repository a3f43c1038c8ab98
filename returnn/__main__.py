"""The command-line entry point: ``rnn.py CONFIG [CONFIG ...] [options] [++key value ...]``.

Also ``python3 -m returnn CONFIG ...``. Several config files are loaded in the order given (later ones
override earlier ones); ``++key value`` and the named options override them all (see
:mod:`returnn.config`). A user's mistake (bad config file, bad value, unknown task, ...) ends in one
message naming the problem and exit code 1; the Python traceback is only shown with
``log_verbosity >= 5`` or ``--debug``.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any, Dict, List, Optional, Sequence

from returnn import __long_version__
from returnn.config import NAMED_OPTIONS, Config, set_global_config
from returnn.errors import ReturnnError
from returnn.log import log
from returnn.util.backend import BackendEngine
from returnn.util.behavior_version import BehaviorVersion
from returnn.util.system import get_hostname
from returnn.util.timefmt import hms_fraction

#: the config of the running program (as in the reference, module-level)
config: Optional[Config] = None
#: the TF engine, once a task created it
engine: Any = None

_EXIT_USER_ERROR = 1
_EXIT_INTERRUPTED = 130


def usage_text(prog: str = "rnn.py") -> str:
    """The ``--help`` text."""
    lines = [
        f"Usage: {prog} [config_filename]* [option]* [++key value]*",
        "",
        "Runs the task (config key 'task': train, eval, forward, search, ...) described by the config files.",
        "Config files: Python (first line '#!'), JSON (starts with '{') or 'key value' lines.",
        "++key value     set any config key; value is parsed as a Python literal where it is one",
        "                (e.g. ++num_epochs 2, ++train None, ++train '{\"class\": \"DummyDataset\"}')",
        "",
        "Options:",
        "  -h, --help      show this help message and exit",
        "  -V, --version   show the version and exit",
        "  --debug         show Python tracebacks for errors in the config",
    ]
    for short, long_opt, key in NAMED_OPTIONS:
        names = f"{short}, {long_opt}" if short else f"    {long_opt}"
        lines.append(f"  {names} {key.upper()}".ljust(40) + f" sets config key '{key}'")
    return "\n".join(lines)


def print_startup_banner(argv: Sequence[str]) -> None:
    """Prints the reference's start-up lines (version, date/time, pid, cwd, Python; options and host at v4)."""
    now = time.localtime()
    offset = time.strftime("%z", now) or "+0000"
    print(f"RETURNN starting up, version {__long_version__}, date/time {time.strftime('%Y-%m-%d-%H-%M-%S', now)} "
          f"(UTC{offset}), pid {os.getpid()}, cwd {os.getcwd()}, Python {sys.executable}", file=log.v3)
    print(f"RETURNN command line options: {list(argv)}", file=log.v4)
    print(f"Hostname: {get_hostname()}", file=log.v4)


def init_config(command_line_options: Sequence[str] = (), config_updates: Optional[Dict[str, Any]] = None,
                default_config: Optional[Dict[str, Any]] = None) -> Config:
    """Builds the config from command-line arguments: positional config files in order, then overrides.

    :param command_line_options: ``sys.argv[1:]``-style list
    :param config_updates: applied last (programmatic use)
    :param default_config: typed values set before anything is loaded
    :raises ReturnnError: bad config files or arguments
    """
    cfg = Config(default_config)
    files = cfg.parse_cmd_args(command_line_options)
    for filename in files:
        cfg.load_file(filename)
    cfg.apply_cmd_overrides()
    if config_updates:
        cfg.update(config_updates)
    return cfg


def _start_up(cfg: Config, argv: Sequence[str]) -> None:
    """Installs ``cfg`` globally, initializes the log from it, prints the banner and selects the backend."""
    set_global_config(cfg)
    if cfg.bool("use_horovod", False) or cfg.bool("distributed", False):
        from returnn.tf.distributed.engine_hooks import rank_log_config

        rank_log_config(cfg)  # workers with rank > 0 log to <log>.rank<N>, start-up lines included
    log.init_by_config(cfg)
    print_startup_banner(argv)
    BehaviorVersion.set(cfg.int("behavior_version", None))
    BackendEngine.select_engine(config=cfg)


def init(config_filename: Optional[str] = None, command_line_options: Sequence[str] = (),
         config_updates: Optional[Dict[str, Any]] = None, extra_greeting: Optional[str] = None) -> Config:
    """Initializes config, log and backend the way ``rnn.py`` does (for scripts that use the toolkit as a library).

    :return: the global config
    """
    global config
    args = ([config_filename] if config_filename else []) + list(command_line_options)
    config = init_config(args, config_updates)
    _start_up(config, args)
    if extra_greeting:
        print(extra_greeting, file=log.v1)
    return config


def execute_main_task() -> None:
    """Runs the task of the global config (default ``train``)."""
    from returnn.tasks import execute_main_task as run_task

    assert config is not None, "call init() first"
    task = config.value("task", "train")
    start = time.time()
    run_task(config, task)
    print(f"elapsed: {hms_fraction(time.time() - start)}", file=log.v3)


def finalize() -> None:
    """Flushes and closes the logs."""
    print("Quitting", file=log.v4)
    log.flush()


def _wants_traceback(argv: Sequence[str]) -> bool:
    if "--debug" in argv:
        return True
    if config is not None:
        try:
            return max(config.int_list("log_verbosity", [0])) >= 5
        except ReturnnError:
            return False
    for i, arg in enumerate(argv[:-1]):
        if arg in ("++log_verbosity", "--log_verbosity", "-v", "--verbose"):
            try:
                return int(argv[i + 1]) >= 5
            except ValueError:
                return False
    return False


def _report_error(exc: BaseException, argv: Sequence[str], *, user_error: bool) -> None:
    if not user_error or _wants_traceback(argv):
        from returnn.util.better_exchook import format_exception

        sys.stderr.write(format_exception(exc))
    name = type(exc).__name__
    print(f"{name}: {exc}", file=sys.stderr)
    log.write_to_files(1, f"{name}: {exc}\n")
    if user_error and not _wants_traceback(argv):
        print("(run with --debug or ++log_verbosity 5 for the Python traceback)", file=sys.stderr)


def main(argv: Optional[List[str]] = None) -> None:
    """``rnn.py`` main. Exits with 0 on success, 1 on a user error, 130 on interrupt.

    :param argv: full argument vector including the program name (default ``sys.argv``)
    """
    global config
    argv = list(sys.argv if argv is None else argv)
    args = [a for a in argv[1:] if a != "--debug"]
    if any(a in ("-h", "--help") for a in args):
        print(usage_text(os.path.basename(argv[0]) if argv else "rnn.py"))
        sys.exit(0)
    if any(a in ("-V", "--version") for a in args):
        print(f"RETURNN version {__long_version__}")
        sys.exit(0)
    try:
        config = init_config(args)
        _start_up(config, argv[1:])
        from returnn.tasks import check_task

        check_task(config.value("task", "train"))
        execute_main_task()
    except ReturnnError as exc:
        _report_error(exc, argv, user_error=True)
        sys.exit(_EXIT_USER_ERROR)
    except KeyboardInterrupt:
        print("KeyboardInterrupt: stopped by the user", file=sys.stderr)
        sys.exit(_EXIT_INTERRUPTED)
    except SystemExit:
        raise
    except BaseException as exc:  # a bug: full traceback
        _report_error(exc, argv, user_error=False)
        sys.exit(_EXIT_USER_ERROR)
    finally:
        log.flush()
    finalize()


if __name__ == "__main__":
    main()

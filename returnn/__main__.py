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
from returnn.options import LogOptions, RunOptions
from returnn.options.unknown_keys import warn_misspelled_keys
from returnn.util.backend import BackendEngine
from returnn.util.behavior_version import BehaviorVersion
from returnn.util.system import get_hostname
from returnn.util.timefmt import hms_fraction

#: the config of the running program (as in the reference, module-level; set by :func:`init_config`)
config: Optional[Config] = None
#: the TF engine (set by :func:`init` / :func:`init_engine`)
engine: Any = None
#: the datasets of the config (set by :func:`init` / :func:`init_data`, when the task needs data)
train_data: Any = None
dev_data: Any = None
eval_data: Any = None
_eval_datasets: Dict[str, Any] = {}
#: set by :func:`finalize`
quit_returnn = False

_EXIT_USER_ERROR = 1
_EXIT_INTERRUPTED = 130
#: tasks that need no datasets (the reference's ``need_data``)
_TASKS_WITHOUT_DATA = ("nop", "nop_init_net_train", "cleanup_old_models")


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


def print_startup_banner(argv: Sequence[str], config_filename: Optional[str] = None) -> None:
    """Prints the reference's start-up lines: version, date/time, pid, cwd, Python (v3); the config file when
    given by name (``RETURNN config: <file>``), the command line options and the host (v4)."""
    now = time.localtime()
    offset = time.strftime("%z", now) or "+0000"
    print(f"RETURNN starting up, version {__long_version__}, date/time {time.strftime('%Y-%m-%d-%H-%M-%S', now)} "
          f"(UTC{offset}), pid {os.getpid()}, cwd {os.getcwd()}, Python {sys.executable}", file=log.v3)
    if config_filename:
        print(f"RETURNN config: {config_filename}", file=log.v4)
    print(f"RETURNN command line options: {argv!r}", file=log.v4)
    print(f"Hostname: {get_hostname()}", file=log.v4)


def returnn_greeting(config_filename: Optional[str] = None, command_line_options: Optional[Sequence[str]] = None
                     ) -> None:
    """The start-up lines (:func:`print_startup_banner`), as the reference's function of this name."""
    print_startup_banner(command_line_options if command_line_options is not None else list(sys.argv[1:]),
                         config_filename)


def init_config(config_filename: Optional[str] = None, command_line_options: Sequence[str] = (),
                default_config: Optional[Dict[str, Any]] = None,
                extra_updates: Optional[Dict[str, Any]] = None) -> Config:
    """Builds the config and installs it as :data:`config` and as the global config (the reference's signature).

    :param config_filename: a config file, loaded before the config files among ``command_line_options``
    :param command_line_options: ``sys.argv[1:]``-style list: config files (in order), ``++key value`` and the
        named options (applied before and after the files, so they win)
    :param default_config: typed values set before anything is loaded
    :param extra_updates: typed values applied last
    :raises ReturnnError: bad config files or arguments
    """
    global config
    cfg = Config(default_config)
    files = cfg.parse_cmd_args(command_line_options)
    for filename in ([config_filename] if config_filename else []) + files:
        cfg.load_file(filename)
    cfg.apply_cmd_overrides()
    if extra_updates:
        cfg.update(extra_updates)
    config = cfg
    set_global_config(cfg)
    BehaviorVersion.set(RunOptions.read_one(cfg, "behavior_version"))
    return cfg


def init_log() -> None:
    """Initializes :data:`returnn.log.log` from the config keys ``log``, ``log_verbosity``, ``log_format``.

    For a task of the TF engine, :func:`returnn.tf.distributed.startup.rank_log_config` may rename the ``log``
    files first (a worker of rank > 0 of a distributed run logs to ``<log>.rank<N>``, its start-up lines
    included); the other tasks (``nop``, ``config:<name>``) never import TensorFlow."""
    from returnn.tasks import task_needs_tensorflow

    assert config is not None, "call init_config() first"
    if task_needs_tensorflow(str(RunOptions.read_one(config, "task"))):
        from returnn.tf.distributed.startup import rank_log_config

        rank_log_config(config)
    log.init_by_config(config)


def init_backend_engine() -> None:
    """Selects the backend from the config (TensorFlow is the only one provided).

    :raises BackendError: a backend this project does not provide
    """
    assert config is not None, "call init_config() first"
    BackendEngine.select_engine(config=config)


def _start_up(cfg: Config, argv: Sequence[str]) -> None:
    """``rnn.py``'s start-up after the config is built: log, banner, warnings about misspelled keys, backend."""
    init_log()
    print_startup_banner(list(argv))
    warn_misspelled_keys(cfg)
    init_backend_engine()


def need_data() -> bool:
    """Whether the task needs the datasets: the config key ``need_data`` (default True), False for the tasks
    ``nop``, ``nop_init_net_train`` and ``cleanup_old_models`` (observed from the reference)."""
    assert config is not None, "call init_config() first"
    if not RunOptions.read_one(config, "need_data"):
        return False
    return RunOptions.read_one(config, "task") not in _TASKS_WITHOUT_DATA


def init_data() -> None:
    """Builds the datasets of the config (``train``, ``dev``, ``eval``, ...) into :data:`train_data`,
    :data:`dev_data`, :data:`eval_data` (:func:`print_task_properties` prints their summary).

    :raises ReturnnError: a dataset the config cannot build (e.g. a missing data file), as the reference
    """
    global train_data, dev_data, eval_data, _eval_datasets
    from returnn.datasets.from_config import init_datasets_from_config

    assert config is not None, "call init_config() first"
    datasets = init_datasets_from_config(config)
    train_data, dev_data, eval_data = datasets.get("train"), datasets.get("dev"), datasets.get("eval")
    _eval_datasets = datasets.get("eval_datasets") or {}


def get_cache_byte_sizes() -> List[int]:
    """The reference's data cache sizes of the train, dev and eval datasets, from the config key ``cache_size``
    (default ``"16G"``; see :func:`returnn.options.data.cache_size_bytes`). The datasets here read lazily; this
    only reports the numbers.

    :return: ``[train, dev, eval]`` byte counts (the same number three times)
    :raises ConfigValueError: ``cache_size`` is not a number with an optional unit K, M or G
    """
    from returnn.options.data import DataOptions, cache_size_bytes

    assert config is not None, "call init_config() first"
    size = cache_size_bytes(DataOptions.read_one(config, "cache_size"))
    return [size, size, size]


def print_task_properties() -> None:
    """Prints the summary of the datasets of :func:`init_data` (``Train data:``, ``Dev data:``, ``Eval data:``
    blocks, v2), as the reference."""
    from returnn.datasets.from_config import print_datasets_summary

    print_datasets_summary({"train": train_data, "dev": dev_data, "eval": eval_data})


def init_better_exchook() -> None:
    """Installs ``better_exchook`` as ``sys.excepthook`` (tracebacks with the values of local variables)."""
    from returnn.util import better_exchook

    better_exchook.install()


def init_faulthandler(sigusr1_chain: bool = False) -> None:
    """Tracebacks of all threads on a fatal signal and on SIGUSR1 (:func:`returnn.util.debug.init_faulthandler`).

    :param sigusr1_chain: also call the previous SIGUSR1 handler
    """
    from returnn.util.debug import init_faulthandler as _init

    _init(sigusr1_chain=sigusr1_chain)


def init_thread_exc_hook() -> None:
    """Installs ``threading.excepthook``: an exception that ends a thread (other than ``SystemExit``) is printed
    with its traceback after ``Unhandled exception in thread <thread>, going to interrupt main thread:`` and the
    main thread gets a ``KeyboardInterrupt``, so that a crashed helper thread stops the run (as the reference's
    ``rnn.py``; the main thread then exits with the interrupt status)."""
    import _thread
    import threading
    import traceback

    def _hook(args: threading.ExceptHookArgs) -> None:
        if args.exc_type is SystemExit:
            return
        print(f"Unhandled exception in thread {args.thread}, going to interrupt main thread:", file=sys.stderr)
        traceback.print_exception(args.exc_type, args.exc_value, args.exc_traceback, file=sys.stderr)
        sys.stderr.flush()
        _thread.interrupt_main()

    threading.excepthook = _hook


def init_thread_join_hack() -> None:
    """Accepted for the reference's scripts; nothing to do here (``Thread.join`` is interruptible by Ctrl+C in
    the Python versions this project supports)."""


def init_engine() -> None:
    """Creates the TF engine (:data:`engine`) for the config, with the datasets of :func:`init_data`."""
    global engine
    from returnn.tasks import print_tensorflow_version
    from returnn.tf.engine.engine import Engine

    assert config is not None, "call init_config() first"
    print_tensorflow_version()
    engine = Engine(config=config)
    engine.set_datasets(train_data, dev_data, eval_data, _eval_datasets)


def init(config_filename: Optional[str] = None, command_line_options: Sequence[str] = (),
         config_updates: Optional[Dict[str, Any]] = None, extra_greeting: Optional[str] = None) -> None:
    """Initializes everything the way the reference's ``init`` does, for scripts using the toolkit as a library:
    config (:data:`config`, also the global config), log, start-up lines, backend, the datasets if the task
    needs data (:func:`need_data`; a dataset that cannot be built raises, as in the reference) and the engine
    (:data:`engine`, a :class:`returnn.tf.engine.Engine` with no network yet: call
    ``engine.init_network_from_config(config)`` or ``init_train_from_config``).

    :param config_filename: the config file
    :param command_line_options: further command-line arguments (``++key value``, named options, config files)
    :param config_updates: typed values applied last
    :param extra_greeting: a line printed before the start-up lines
    """
    init_config(config_filename=config_filename, command_line_options=command_line_options,
                extra_updates=config_updates)
    init_log()
    if extra_greeting:
        print(extra_greeting, file=log.v1)
    print_startup_banner(command_line_options, config_filename)
    warn_misspelled_keys(config)
    init_backend_engine()
    if need_data():
        init_data()
        print_task_properties()
    else:
        _forget_data()
    init_engine()


def _forget_data() -> None:
    """No datasets (those of an earlier :func:`init` in this process are not the config's)."""
    global train_data, dev_data, eval_data, _eval_datasets
    train_data = dev_data = eval_data = None
    _eval_datasets = {}


def execute_main_task() -> None:
    """Runs the task of the global config (default ``train``)."""
    from returnn.tasks import run_task

    assert config is not None, "call init() first"
    task = RunOptions.read_one(config, "task")
    start = time.time()
    run_task(config, task)
    print(f"elapsed: {hms_fraction(time.time() - start)}", file=log.v3)


def finalize(error_occurred: bool = False) -> None:
    """Ends the run: releases the engine's session, prints ``Quitting`` (v4) and flushes the logs.

    :param error_occurred: the run ended with an error (accepted for the reference's signature)
    """
    global quit_returnn
    quit_returnn = True
    print("Quitting", file=log.v4)
    if engine is not None and hasattr(engine, "finalize"):
        engine.finalize()
    log.flush()


def _wants_traceback(argv: Sequence[str]) -> bool:
    if "--debug" in argv:
        return True
    if config is not None:
        try:
            return max(LogOptions.read_one(config, "log_verbosity") or [0]) >= 5
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
    init_thread_exc_hook()
    try:
        init_config(command_line_options=args)
        _start_up(config, argv[1:])
        from returnn.tasks import check_task

        check_task(RunOptions.read_one(config, "task"))
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

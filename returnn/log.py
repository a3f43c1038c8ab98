"""Logging to stdout and log files with the reference's verbosity levels.

``from returnn.log import log``, then ``print("...", file=log.v3)``. The levels mean, as in the reference:

* ``v0``/``v1``: errors and essential messages; ``v2``: important progress;
* ``v3``: the default (epoch lines, dev scores); ``v4``: more detail (dataset and network summaries);
* ``v5``: one line per mini-batch.

Each log target (stdout, or a file from the ``log`` config key) has its own verbosity (``log_verbosity``,
an int or a list with one entry per ``log`` entry); a line written to ``vN`` goes to every target whose
verbosity is at least N. Files are opened in append mode (the directory is created if missing), and every
target is flushed at each newline, so a crashed run's log is complete up to its last line.
"""

from __future__ import annotations

import datetime
import io
import logging
import os
import sys
import threading
from typing import Any, Dict, List, Optional, Sequence, Set, TextIO, Union

#: levels of the streams v0..v5
NUM_LEVELS = 6
#: verbosity before :meth:`Log.initialize` is called (library use)
DEFAULT_VERBOSITY = 3


class _Target:
    """One output (stdout or a file) with its verbosity and line format."""

    def __init__(self, stream: TextIO, verbosity: int, fmt: str, owned: bool):
        self.stream = stream
        self.verbosity = verbosity
        self.fmt = fmt
        self.owned = owned
        self.at_line_start = True

    def write(self, text: str, level: int) -> None:
        if self.fmt in ("timed", "verbose"):
            text = self._prefix_lines(text, level)
        self.stream.write(text)
        if "\n" in text:
            self.stream.flush()

    def _prefix_lines(self, text: str, level: int) -> str:
        stamp = datetime.datetime.now().strftime("%Y-%m-%d %H:%M:%S,%f")[:-3]
        prefix = f"{stamp} " if self.fmt == "timed" else f"{stamp} [v{level}] "
        out = []
        for piece in text.splitlines(keepends=True):
            if self.at_line_start:
                out.append(prefix)
            out.append(piece)
            self.at_line_start = piece.endswith("\n")
        return "".join(out)


class _LoggingTarget:
    """``propagate=True``: every line, of every level, goes to the Python ``logging`` logger ``"returnn"`` (whose
    records propagate to the root logger's handlers), as the reference does. Levels as observed from the
    reference: v1 → 21, v2 → 20 (named INFO), v3 → 12, v4 → 11, v5 → 10 (named DEBUG); v0 → 22."""

    LEVELS = {0: 22, 1: 21, 2: 20, 3: 12, 4: 11, 5: 10}
    verbosity = NUM_LEVELS - 1  # receives all levels
    owned = False
    stream = None

    def __init__(self):
        self.logger = logging.getLogger("returnn")
        self._partial: Dict[int, str] = {}

    def write(self, text: str, level: int) -> None:
        text = self._partial.pop(level, "") + text
        *lines, rest = text.split("\n")
        if rest:
            self._partial[level] = rest
        py_level = self.LEVELS[level]
        for line in lines:
            if not self.logger.isEnabledFor(py_level):
                continue
            record = self.logger.makeRecord(self.logger.name, py_level, "(returnn.log)", 0, line, None, None)
            record.levelname = "INFO" if py_level >= logging.INFO else "DEBUG"
            self.logger.handle(record)

    def flush(self) -> None:
        """Lines are handed over complete; nothing buffered to flush."""


class Stream(io.TextIOBase):
    """A writable text stream for one verbosity level (``log.v3``); usable with ``print(..., file=...)``."""

    def __init__(self, owner: Log, level: int):
        super().__init__()
        self._owner = owner
        self.level = level

    def write(self, text: str) -> int:
        self._owner.write(self.level, text)
        return len(text)

    def flush(self) -> None:
        self._owner.flush()

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return self._owner.isatty(self.level)

    def is_enabled(self) -> bool:
        """Whether anything written here reaches at least one target (cheap check before formatting)."""
        return self._owner.enabled(self.level)


class Log:
    """The set of log targets and the per-level streams ``v0`` ... ``v5``.

    A module-level instance :data:`log` is what the rest of the code writes to.
    """

    def __init__(self):
        self._lock = threading.RLock()
        self._targets: List[_Target] = [_Target(sys.stdout, DEFAULT_VERBOSITY, "default", owned=False)]
        self._stdout_default = True
        self.initialized = False
        #: the first log file, once :meth:`initialize` opened one (as the reference)
        self.filename: Optional[str] = None
        self.verbose = [False] * NUM_LEVELS
        self.v = [Stream(self, level) for level in range(NUM_LEVELS)]
        self.v0, self.v1, self.v2, self.v3, self.v4, self.v5 = self.v
        self.error = self.v1
        self._printed_warning_history: Set[str] = set()

    def initialize(self, logs: Union[None, str, Sequence[str]] = None,
                   verbosity: Union[None, int, Sequence[int]] = None,
                   formatter: Union[None, str, Sequence[str]] = None, propagate: bool = False) -> None:
        """(Re)configures the targets (the reference's signature).

        :param logs: file paths; ``"stdout"`` means standard output. ``$date`` in a path is replaced by the
            current date/time. Standard output is always a target (with the first verbosity) unless listed
            explicitly, or ``propagate`` is set.
        :param verbosity: int or one int per log (missing entries repeat the last; default 3)
        :param formatter: ``"default"``/``"raw"`` (plain lines), ``"timed"`` (date/time prefix) or ``"verbose"``
            (date/time and level), one per log or one for all
        :param propagate: hand every line to the Python ``logging`` logger ``"returnn"`` (so the application's
            logging handlers get it) instead of printing to stdout; log files are written as usual
        :raises OSError: if a log file cannot be opened (the directory is created when missing)
        """
        logs = [logs] if isinstance(logs, str) else list(logs or [])
        verbosities = [verbosity] if isinstance(verbosity, int) else list(verbosity or [DEFAULT_VERBOSITY])
        formatters = [formatter] if isinstance(formatter, str) else list(formatter or ["default"])
        with self._lock:
            self._close_owned()
            targets: List[Any] = []
            if propagate:
                targets.append(_LoggingTarget())
            elif "stdout" not in logs:
                targets.append(_Target(sys.stdout, int(verbosities[0]), _pick(formatters, 0), owned=False))
            self.filename = None
            for i, path in enumerate(logs):
                level = int(_pick(verbosities, i))
                fmt = _pick(formatters, i)
                if path == "stdout":
                    if not propagate:
                        targets.append(_Target(sys.stdout, level, fmt, owned=False))
                    continue
                path = path.replace("$date", datetime.datetime.now().strftime("%Y-%m-%d-%H-%M-%S"))
                directory = os.path.dirname(path)
                if directory:
                    os.makedirs(directory, exist_ok=True)
                targets.append(_Target(open(path, "a", encoding="utf8"), level, fmt, owned=True))
                if self.filename is None:
                    self.filename = path
            self._targets = targets
            self._stdout_default = False
            self.initialized = True
            max_level = max(int(v) for v in verbosities)
            self.verbose = [level <= max_level for level in range(NUM_LEVELS)]

    def print_warning(self, text: str, prefix_text: str = "WARNING:", extra_text: Optional[str] = None) -> None:
        """Writes ``"<prefix_text> <text>"`` (and ``extra_text`` on the next line) to ``v2``, once per ``text`` and
        process, as the reference (a repeated text is not printed again, whatever its prefix)."""
        if text in self._printed_warning_history:
            return
        self._printed_warning_history.add(text)
        print(prefix_text, text, file=self.v2)
        if extra_text:
            print(extra_text, file=self.v2)

    def print_deprecation_warning(self, text: str, behavior_version: Optional[int] = None) -> None:
        """:meth:`print_warning` with the prefix ``DEPRECATION WARNING:`` and the line
        ``This will be disallowed with behavior_version N.`` (or ``This might be disallowed with a future
        behavior_version.`` without a version), as the reference."""
        if behavior_version is not None:
            extra = f"This will be disallowed with behavior_version {behavior_version}."
        else:
            extra = "This might be disallowed with a future behavior_version."
        self.print_warning(text, prefix_text="DEPRECATION WARNING:", extra_text=extra)

    def init_by_config(self, config) -> None:
        """Initializes from the config keys ``log``, ``log_verbosity`` and ``log_format`` (parsed as
        :class:`~returnn.options.logging.LogOptions`).

        :raises ConfigValueError: an unknown ``log_format`` entry (names it, with did-you-mean)
        """
        from returnn.options.logging import LogOptions

        self.init_by_options(LogOptions.from_config(config))

    def init_by_options(self, opts) -> None:
        """Initializes from the parsed :class:`~returnn.options.logging.LogOptions`."""
        self.initialize(logs=list(opts.log), verbosity=list(opts.log_verbosity),
                        formatter=list(opts.log_format) or None)

    def write(self, level: int, text: str) -> None:
        """Writes ``text`` to every target whose verbosity is at least ``level``."""
        if not text:
            return
        with self._lock:
            for target in self._targets:
                if target.verbosity >= level:
                    if isinstance(target, _Target) and (target.stream is sys.stdout or not target.owned):
                        target.stream = sys.stdout  # follow redirection (tests, pytest capture)
                    target.write(text, level)

    def write_to_files(self, level: int, text: str) -> None:
        """Writes ``text`` only to the log files (not stdout) whose verbosity is at least ``level``; used for
        error messages that go to stderr themselves."""
        with self._lock:
            for target in self._targets:
                if target.owned and target.verbosity >= level:
                    target.write(text, level)

    def enabled(self, level: int) -> bool:
        """Whether level ``level`` reaches any target."""
        return any(t.verbosity >= level for t in self._targets)

    def isatty(self, level: int) -> bool:
        """Whether all targets of ``level`` are terminals (used for progress bars)."""
        targets = [t for t in self._targets if t.verbosity >= level and isinstance(t, _Target)]
        return bool(targets) and all(_isatty(t.stream) for t in targets)

    def flush(self) -> None:
        with self._lock:
            for target in self._targets:
                try:
                    (target.stream or target).flush()
                except ValueError:  # closed
                    pass

    def max_verbosity(self) -> int:
        """The highest verbosity of all targets."""
        return max(t.verbosity for t in self._targets)

    def _close_owned(self) -> None:
        for target in self._targets:
            if target.owned:
                target.stream.close()

    def close(self) -> None:
        """Closes the log files and goes back to the default (stdout only)."""
        with self._lock:
            self.flush()
            self._close_owned()
            self._targets = [_Target(sys.stdout, DEFAULT_VERBOSITY, "default", owned=False)]
            self.initialized = False
            self.filename = None


def _pick(values: Sequence[Any], index: int) -> Any:
    return values[index] if index < len(values) else values[-1]


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


#: the global log
log = Log()

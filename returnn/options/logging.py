"""Keys of the log (:mod:`returnn.log`): where it goes, how verbose, in which format."""

from __future__ import annotations

import dataclasses
from typing import Any, List

from returnn.errors import ConfigValueError
from returnn.options.declare import OptionGroup, option

#: the values of ``log_format`` (one per log target): the line as written, ``raw`` the same, ``timed`` with the
#: time in front, ``verbose`` with the time and the level
LOG_FORMATS = ("default", "raw", "timed", "verbose")


def _read_formats(config, key: str, default: Any) -> List[str]:
    """``log_format`` as a list (:meth:`Config.list`), each entry checked against :data:`LOG_FORMATS`."""
    formats = config.list(key, default)
    for fmt in formats:
        if fmt not in LOG_FORMATS:
            from returnn.util.suggest import close_matches

            raise ConfigValueError(key, expected=" | ".join(LOG_FORMATS), got=fmt,
                                   suggestions=close_matches(fmt, LOG_FORMATS))
    return list(formats)


@dataclasses.dataclass(frozen=True)
class LogOptions(OptionGroup):
    """The log (:meth:`returnn.log.Log.init_by_config`), read at start-up."""

    topic = "log"

    log: List[str] = option((), "the log files (a list; 'stdout' for the terminal); unset: the terminal only",
                            kind="list")
    log_verbosity: List[int] = option((3,), "the verbosity of each log (0..5; default 3)", kind="int_list")
    log_format: List[str] = option((), "the line format of each log: " + " | ".join(LOG_FORMATS), kind="list",
                                   reader=_read_formats)

"""The config: every setting of a run, read from config files and the command line.

Three file syntaxes are detected from the file's content, as in the reference:

* first line starts with ``#!`` (or the file name ends in ``.py``): Python code, executed with ``config``
  (the :class:`Config` being built) in scope. As in the reference, the code runs with :attr:`Config.typed_dict`
  itself as its global namespace: every global it defines (functions, classes, imported modules and
  ``_private`` names included) is a typed config key, and functions defined in the config see later changes
  of the config (``config.set(...)``, ``++`` overrides) as their globals. Several Python configs share this
  namespace (a later one sees the earlier one's globals);
* first non-blank character is ``{``: a JSON object, each member a typed key;
* otherwise line-based ``key value`` lines (``#`` starts a comment); the value is kept as a string and
  split at ``,`` into a list of strings, converted by the typed getters (``config.int(...)``).

Command-line overrides ``++key value`` set a typed value: ``value`` is parsed as a Python literal
(:func:`ast.literal_eval`) where it is one (``5``, ``1e-3``, ``None``, ``{"class": ...}``), else kept as a
string; a key whose config value is a string keeps the text as given (``++name 5`` stays ``"5"``), as the
reference. They are applied both before a Python config runs (so it can read them) and after (so they win).

A :class:`Config` pickles with its Python config's functions and classes (by value, see
:mod:`returnn.config_pickle`), so it can be sent to subprocesses, as the reference's does.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import json
import os
import sys
import traceback
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple, Union

from returnn.errors import ConfigFileError, ConfigValueError

_NO_DEFAULT = object()

# Named command-line options of the reference (optparse style), mapped to config keys.
# (short option, long option, config key)
NAMED_OPTIONS: List[tuple] = [
    ("-a", "--activation", "activation"),
    ("-b", "--batch_size", "batch_size"),
    ("-c", "--chunking", "chunking"),
    ("-d", "--description", "description"),
    ("-e", "--epoch", "epoch"),
    ("-E", "--eval", "eval"),
    ("-f", "--gate_factors", "gate_factors"),
    ("-g", "--lreg", "lreg"),
    ("-i", "--save_interval", "save_interval"),
    ("-j", "--dropout", "dropout"),
    ("-k", "--output_file", "output_file"),
    ("-l", "--log", "log"),
    ("-L", "--load", "load"),
    ("-m", "--momentum", "momentum"),
    ("-n", "--num_epochs", "num_epochs"),
    ("-o", "--order", "order"),
    ("-p", "--loss", "loss"),
    ("-q", "--cache", "cache_size"),
    ("-r", "--learning_rate", "learning_rate"),
    ("-s", "--hidden_sizes", "hidden_sizes"),
    ("-t", "--truncate", "truncate"),
    ("-u", "--device", "device"),
    ("-v", "--verbose", "log_verbosity"),
    ("-w", "--window", "window"),
    ("-x", "--task", "task"),
    ("-y", "--hidden_type", "hidden_type"),
    ("-z", "--max_sequences", "max_seqs"),
    (None, "--log_verbosity", "log_verbosity"),
    (None, "--max_seqs", "max_seqs"),
    (None, "--load_epoch", "load_epoch"),
    (None, "--model", "model"),
]


def parse_literal(text: str) -> Any:
    """Parses a command-line value: a Python literal where it is one (``"5"`` → 5, ``"None"`` → None,
    ``"{'a': 1}"`` → dict), else the string itself."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return text


#: the ``__name__`` of a Python config's namespace (functions defined there have it as ``__module__``)
CONFIG_MODULE_NAME = "__returnn_config__"
#: ``__file__`` of a config loaded from a file object without a name (as the reference)
CONFIG_STRING_FILENAME = "<config string>"


def get_config_file_type(filename: str) -> str:
    """Detects a config file's syntax: ``"py"``, ``"js"`` (JSON) or ``"txt"`` (line-based).

    :raises ConfigFileError: if the file does not exist or cannot be read
    """
    return _content_type(filename, _read_file(filename))


def _content_type(filename: str, content: str) -> str:
    if filename.endswith(".py") or content.lstrip().startswith("#!"):
        return "py"
    if content.lstrip().startswith("{"):
        return "js"
    return "txt"


def _read_file(filename: str) -> str:
    if not os.path.exists(filename):
        raise ConfigFileError(filename, "file does not exist")
    if os.path.isdir(filename):
        raise ConfigFileError(filename, "is a directory, expected a config file")
    try:
        with open(filename, "r", encoding="utf8") as f:
            return f.read()
    except OSError as exc:
        raise ConfigFileError(filename, f"cannot be read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise ConfigFileError(filename, f"is not UTF-8 text ({exc.reason} at byte {exc.start})") from None


class Config:
    """All settings of a run.

    Values live in two tables, as in the reference: :attr:`typed_dict` (Python objects, from Python/JSON
    configs, ``++`` overrides and :meth:`set`) and :attr:`dict` (lists of strings, from line-based configs
    and named options). Setting a key in one table removes it from the other.

    :param items: initial typed values
    """

    def __init__(self, items: Optional[Dict[str, Any]] = None):
        self.dict: Dict[str, List[str]] = {}
        self.typed_dict: Dict[str, Any] = {}
        self.files: List[str] = []
        self._cmd_overrides: Dict[str, str] = {}  # key -> the text given on the command line
        if items:
            self.update(items)

    # ---------------------------------------------------------------- pickling

    def __getstate__(self) -> Dict[str, Any]:
        from returnn.config_pickle import config_getstate

        return config_getstate(self)

    def __setstate__(self, state: Dict[str, Any]) -> None:
        from returnn.config_pickle import config_setstate

        config_setstate(self, state)

    # ---------------------------------------------------------------- loading

    @classmethod
    def get_config_file_type(cls, f: str) -> str:
        """The syntax of config file ``f``: ``"py"``, ``"js"`` or ``"txt"`` (see :func:`get_config_file_type`)."""
        return get_config_file_type(f)

    def load_file(self, f: Union[str, Any]) -> None:
        """Loads a config file on top of the current values; ``f`` is a path or an open text file object
        (e.g. ``io.StringIO`` of a config starting with ``#!``; its name is ``f.name`` or
        ``"<config string>"``). The syntax is detected from the content (module doc).

        :raises ConfigFileError: missing/unreadable file, malformed JSON, a line without a value, or a
            Python config that raises (the message names the config's own line)
        """
        if isinstance(f, (str, os.PathLike)):
            filename = os.fspath(f)
            content = _read_file(filename)
        elif hasattr(f, "read"):
            filename = getattr(f, "name", None)
            if not isinstance(filename, str):
                filename = CONFIG_STRING_FILENAME
            content = f.read()
            if isinstance(content, bytes):
                try:
                    content = content.decode("utf8")
                except UnicodeDecodeError as exc:
                    raise ConfigFileError(filename, f"is not UTF-8 text ({exc.reason} at byte {exc.start})") from None
        else:
            raise ConfigFileError(repr(f), f"load_file expects a file name or an open file object, got "
                                           f"{type(f).__name__}")
        kind = _content_type(filename, content)
        self.files.append(filename)
        if kind == "py":
            self._load_python(filename, content)
        elif kind == "js":
            self._load_json(filename, content)
        else:
            self._load_lines(filename, content)

    def _load_python(self, filename: str, content: str) -> None:
        from returnn.config_pickle import install_config_module_proxy

        install_config_module_proxy()
        namespace = self.typed_dict  # the config's globals, as in the reference
        namespace.update({"config": self, "__file__": filename, "__name__": CONFIG_MODULE_NAME,
                          "__package__": "returnn", "__builtins__": builtins})
        # ++ overrides are visible while the config runs, and win afterwards
        self.apply_cmd_overrides()
        before = {key: id(value) for key, value in namespace.items()}
        try:
            code = compile(content, filename, "exec")
        except SyntaxError as exc:
            raise ConfigFileError(filename, f"SyntaxError: {exc.msg}", line=exc.lineno,
                                  source_line=exc.text) from None
        try:
            exec(code, namespace)
        except (SystemExit, KeyboardInterrupt):  # an exit or an interrupt while the config runs is not its error
            raise
        except BaseException as exc:
            line, source = _innermost_config_frame(exc, filename)
            err = ConfigFileError(filename, f"{type(exc).__name__}: {exc}", line=line, source_line=source)
            err.__cause__ = exc
            raise err from exc
        for key, value in namespace.items():
            if before.get(key) != id(value):  # defined (or redefined) by this config: the typed value wins
                self.dict.pop(key, None)
        self.apply_cmd_overrides()

    def _load_json(self, filename: str, content: str) -> None:
        from returnn.util.json_text import json_remove_comments

        try:
            obj = json.loads(json_remove_comments(content, strip_space=False, keep_newlines=True))
        except json.JSONDecodeError as exc:
            lines = content.splitlines()
            source = lines[exc.lineno - 1] if 0 < exc.lineno <= len(lines) else None
            raise ConfigFileError(filename, f"malformed JSON: {exc.msg} (column {exc.colno})", line=exc.lineno,
                                  source_line=source) from None
        if not isinstance(obj, dict):
            raise ConfigFileError(filename, f"a JSON config must be an object {{...}}, got {type(obj).__name__}")
        self.update(obj)

    def _load_lines(self, filename: str, content: str) -> None:
        for lineno, raw in enumerate(content.splitlines(), start=1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            parts = line.split(None, 1)
            if len(parts) < 2:
                raise ConfigFileError(filename, f"line-based config: key {parts[0]!r} has no value "
                                                f"(expected 'key value')", line=lineno, source_line=raw)
            self.add_line(parts[0], parts[1])

    def add_line(self, key: str, value: str) -> None:
        """Sets a string value as a line-based config does: split at ``,`` into a list of strings."""
        self.typed_dict.pop(key, None)
        self.dict[key] = [part.strip() for part in value.split(",")] if "," in value else [value.strip()]

    def parse_cmd_args(self, args: Sequence[str]) -> List[str]:
        """Applies command-line arguments: ``++key value`` pairs and the reference's named options
        (see :data:`NAMED_OPTIONS`; both ``--opt value`` and ``--opt=value``).

        :return: positional arguments (config file names) in order
        :raises ConfigValueError: ``++key`` without a value, or an unknown ``-x``/``--xyz`` option
        """
        short = {s: key for s, _, key in NAMED_OPTIONS if s}
        long = {l: key for _, l, key in NAMED_OPTIONS}
        positional: List[str] = []
        i = 0
        args = list(args)
        while i < len(args):
            arg = args[i]
            if arg.startswith("++"):
                key = arg[2:]
                if not key:
                    raise ConfigValueError("++", expected="'++key value', got '++' without a key")
                if i + 1 >= len(args):
                    raise ConfigValueError(key, expected=f"a value after '++{key}' (usage: ++{key} VALUE)",
                                           hint="a command-line override always takes one value")
                self._cmd_overrides[key] = args[i + 1]
                self.set(key, self._override_value(key, args[i + 1]))
                i += 2
                continue
            if arg.startswith("-") and len(arg) > 1 and not _looks_like_number(arg):
                name, eq, inline_value = arg.partition("=")
                key = long.get(name) if name.startswith("--") else short.get(name)
                if key is None:
                    from returnn.util.suggest import close_matches
                    raise ConfigValueError(name, expected="a known command-line option (see --help) or '++key value'",
                                           suggestions=close_matches(name, list(long) + list(short)))
                if eq:
                    value = inline_value
                else:
                    if i + 1 >= len(args):
                        raise ConfigValueError(key, expected=f"a value after {name!r}")
                    value = args[i + 1]
                    i += 1
                self._cmd_overrides[key] = value
                self.set(key, self._override_value(key, value))
                i += 1
                continue
            positional.append(arg)
            i += 1
        return positional

    def apply_cmd_overrides(self) -> None:
        """Re-applies the ``++key value`` / named-option overrides given to :meth:`parse_cmd_args`, so that they
        win over values loaded from config files afterwards."""
        for key, text in self._cmd_overrides.items():
            self.set(key, self._override_value(key, text))

    def _override_value(self, key: str, text: str) -> Any:
        """The typed value of a command-line override: the text itself where the config value is a string
        (as the reference), else :func:`parse_literal`."""
        if isinstance(self.typed_dict.get(key), str):
            return text
        return parse_literal(text)

    @property
    def cmd_overrides(self) -> Dict[str, Any]:
        """The overrides from the command line, in the order given, as typed values (a copy)."""
        return {key: self._override_value(key, text) for key, text in self._cmd_overrides.items()}

    # ---------------------------------------------------------------- setting

    def set(self, key: str, value: Any) -> None:
        """Sets a typed value (removes any string value of the same key)."""
        self.dict.pop(key, None)
        self.typed_dict[key] = value

    def update(self, items: Dict[str, Any]) -> None:
        """Sets several typed values."""
        for key, value in items.items():
            self.set(key, value)

    # ---------------------------------------------------------------- getting

    def has(self, key: str) -> bool:
        """Whether ``key`` is set at all (a typed ``None`` counts as set)."""
        return key in self.typed_dict or key in self.dict

    def is_typed(self, key: str) -> bool:
        """Whether ``key`` has a typed (Python) value."""
        return key in self.typed_dict

    def is_true(self, key: str, default: bool = False) -> bool:
        """Like :meth:`bool`, for flags."""
        return self.bool(key, default)

    def typed_value(self, key: str, default: Any = None, index: Optional[int] = None) -> Any:
        """The Python value of ``key`` (or ``default`` if it has no typed value); ``index`` picks a list item."""
        value = self.typed_dict.get(key, default)
        if index is not None and isinstance(value, (list, tuple)):
            value = value[index] if index < len(value) else value[-1]
        return value

    def opt_typed_value(self, key: str, default: Any = None) -> Any:
        """The typed value if there is one, else the string value (or ``default``)."""
        if key in self.typed_dict:
            return self.typed_dict[key]
        return self.value(key, default)

    def value(self, key: str, default: Any = None, index: Optional[int] = None, list_join_str: str = ",") -> Any:
        """The value of ``key`` as a string, as the reference renders it (lists joined with ``list_join_str``).

        A typed ``None`` or a missing key gives ``default`` (which is returned as is, not converted).
        """
        if key in self.typed_dict:
            value = self.typed_dict[key]
            if value is None:
                return default
            if index is not None and isinstance(value, (list, tuple)):
                value = value[index] if index < len(value) else value[-1]
            if isinstance(value, (list, tuple)):
                return list_join_str.join(str(v) for v in value)
            return value if isinstance(value, str) else str(value)
        if key in self.dict:
            values = self.dict[key]
            if index is not None:
                return values[index] if index < len(values) else values[-1]
            return list_join_str.join(values)
        return default

    def _raw(self, key: str, index: Optional[int] = None) -> Any:
        """Typed value, or the string value for line-based keys; _NO_DEFAULT if unset. With ``index``, a list
        value (typed list/tuple, or ``"a,b"`` line value) gives its item ``index`` (the last one if shorter)."""
        if key in self.typed_dict:
            value = self.typed_dict[key]
            if index is not None and isinstance(value, (list, tuple)) and value:
                value = value[index] if index < len(value) else value[-1]
            return value
        if key in self.dict:
            return self.value(key, index=index)
        return _NO_DEFAULT

    def int(self, key: str, default: Any = None, index: int = 0) -> Any:
        """The value as ``int``; ``default`` if unset or None. A list value gives its item ``index``
        (``int("l")`` of ``[1, 2]`` is 1), as the reference.

        :raises ConfigValueError: if the value is not an integer (e.g. ``"abc"`` or ``1.5``)
        """
        value = self._raw(key, index)
        if value is _NO_DEFAULT or value is None:
            return default
        if isinstance(value, bool):
            return int(value)
        if isinstance(value, int):
            return value
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, str):
            try:
                return int(value.strip())
            except ValueError:
                try:
                    as_float = float(value)
                except ValueError:
                    as_float = None
                if as_float is not None and as_float.is_integer():
                    return int(as_float)
        raise ConfigValueError(key, expected="an integer", got=value)

    def float(self, key: str, default: Any = None, index: int = 0) -> Any:
        """The value as ``float``; ``default`` if unset or None; a list value gives its item ``index``.

        :raises ConfigValueError: if the value is not a number
        """
        value = self._raw(key, index)
        if value is _NO_DEFAULT or value is None:
            return default
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        if isinstance(value, str):
            try:
                return float(value.strip())
            except ValueError:
                pass
        raise ConfigValueError(key, expected="a number", got=value)

    def bool(self, key: str, default: Any = None, index: int = 0) -> Any:
        """The value as ``bool``: accepts True/False, 0/1 and the strings true/false/1/0/yes/no/on/off
        (case-insensitive); ``default`` if unset or None; a list value gives its item ``index``.

        :raises ConfigValueError: for anything else
        """
        value = self._raw(key, index)
        if value is _NO_DEFAULT or value is None:
            return default
        if isinstance(value, bool):
            return value
        if isinstance(value, int) and value in (0, 1):
            return bool(value)
        if isinstance(value, str):
            lowered = value.strip().lower()
            if lowered in ("true", "1", "yes", "on"):
                return True
            if lowered in ("false", "0", "no", "off", "none", ""):
                return False
        raise ConfigValueError(key, expected="a boolean (True/False, 1/0, yes/no)", got=value)

    def bool_or_other(self, key: str, default: Any = None, index: int = 0) -> Any:
        """The value as ``bool`` if it is one, else the typed value as is."""
        value = self._raw(key, index)
        if value is _NO_DEFAULT:
            return default
        try:
            return self.bool(key, default, index=index)
        except ConfigValueError:
            return value

    def list(self, key: str, default: Any = None) -> Any:
        """The value as a list: typed lists/tuples as lists, a typed scalar as ``[value]``, a string value split
        at ``,``; ``default`` (``[]`` if None) if unset."""
        if key in self.typed_dict:
            value = self.typed_dict[key]
            if value is None:
                return [] if default is None else default
            if isinstance(value, (list, tuple)):
                return list(value)
            if isinstance(value, str):
                return [part.strip() for part in value.split(",")] if "," in value else [value]
            return [value]
        if key in self.dict:
            return list(self.dict[key])
        return [] if default is None else default

    def int_list(self, key: str, default: Any = None) -> List[int]:
        """:meth:`list`, each item converted to ``int``.

        :raises ConfigValueError: if an item is not an integer
        """
        return [self._convert_item(key, item, int, "a list of integers") for item in self.list(key, default)]

    def float_list(self, key: str, default: Any = None) -> List[float]:
        """:meth:`list`, each item converted to ``float``.

        :raises ConfigValueError: if an item is not a number
        """
        return [self._convert_item(key, item, float, "a list of numbers") for item in self.list(key, default)]

    def int_pair(self, key: str, default: Any = None) -> Any:
        """Two ints, from ``"a:b"``, ``"a,b"``, a pair, or a single int (used for both)."""
        value = self._raw(key)
        if value is _NO_DEFAULT or value is None:
            return default
        if isinstance(value, str):
            value = value.replace(":", ",").split(",")
        if isinstance(value, (int, float)):
            value = [value, value]
        items = [self._convert_item(key, v, int, "an int pair 'a:b'") for v in value]
        if len(items) == 1:
            items *= 2
        if len(items) != 2:
            raise ConfigValueError(key, expected="an int pair 'a:b'", got=self._raw(key))
        return tuple(items)

    @staticmethod
    def _convert_item(key: str, item: Any, kind: type, expected: str) -> Any:
        if isinstance(item, bool):
            raise ConfigValueError(key, expected=expected, got=item)
        try:
            if kind is int and isinstance(item, float) and not item.is_integer():
                raise ValueError
            return kind(item.strip() if isinstance(item, str) else item)
        except (TypeError, ValueError):
            raise ConfigValueError(key, expected=expected, got=item) from None

    def dict_value(self, key: str, default: Any = None) -> Any:
        """The typed value if it is a dict; a string value is parsed as a Python dict literal.

        :raises ConfigValueError: if the value is not a dict
        """
        value = self._raw(key)
        if value is _NO_DEFAULT or value is None:
            return default
        if isinstance(value, str):
            value = parse_literal(value)
        if not isinstance(value, dict):
            raise ConfigValueError(key, expected="a dict", got=value)
        return value

    def get_of_type(self, key: str, types: Union[type, Tuple[type, ...]], default: Any = None) -> Any:
        """The typed value of ``key`` if it is an instance of ``types`` (a type or a tuple of types), else
        ``default`` (also for string values of line-based configs), as the reference."""
        value = self.typed_dict.get(key, _NO_DEFAULT)
        if value is not _NO_DEFAULT and isinstance(value, types):
            return value
        return default

    def is_of_type(self, key: str, types: Union[type, Tuple[type, ...]]) -> bool:
        """Whether ``key`` has a typed value that is an instance of ``types``."""
        return key in self.typed_dict and isinstance(self.typed_dict[key], types)

    def keys(self) -> List[str]:
        """All keys, typed and string."""
        return sorted(set(self.typed_dict) | set(self.dict))

    def __repr__(self) -> str:
        return f"<Config files={self.files!r} keys={len(self.keys())}>"


def _looks_like_number(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False


def _innermost_config_frame(exc: BaseException, filename: str):
    """The (line, source line) of the innermost traceback frame inside the config file."""
    line = source = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if os.path.abspath(frame.filename) == os.path.abspath(filename):
            line, source = frame.lineno, frame.line
    return line, source


# ---------------------------------------------------------------- global config

_global_config: Optional[Config] = None


def get_global_config(*, raise_exception: bool = True, auto_create: bool = False,
                      return_empty_if_none: bool = False) -> Optional[Config]:
    """The config of the running program (set by :func:`set_global_config` / the main entry point).

    :param raise_exception: raise if none is set (else return None)
    :param auto_create: create and install an empty one if none is set
    :param return_empty_if_none: return a new empty (not installed) Config if none is set
    :raises RuntimeError: if none is set and neither fallback is requested
    """
    global _global_config
    if _global_config is not None:
        return _global_config
    if auto_create:
        _global_config = Config()
        return _global_config
    if return_empty_if_none:
        return Config()
    if raise_exception:
        raise RuntimeError("no global config is set (use returnn.config.set_global_config or global_config_ctx)")
    return None


def config_or_global(config: Optional[Config]) -> Config:
    """``config``, or the global config when it is None (the default of the reference's ``Engine(config=None)``).

    :raises RuntimeError: ``config`` is None and no global config is set
    """
    return config if config is not None else get_global_config()


def set_global_config(config: Optional[Config]) -> None:
    """Installs ``config`` as the global config (``None`` removes it)."""
    global _global_config
    _global_config = config


@contextlib.contextmanager
def global_config_ctx(config: Config) -> Iterator[Config]:
    """Context manager installing ``config`` as the global config, restoring the previous one on exit."""
    global _global_config
    previous = _global_config
    _global_config = config
    try:
        yield config
    finally:
        _global_config = previous


def network_json_from_config(config: Config) -> Dict[str, Any]:
    """The ``network`` dict of ``config`` (the reference's helper).

    :raises ConfigValueError: no ``network``, or not a dict
    """
    network = config.typed_value("network", None)
    if network is None:
        raise ConfigValueError("network", expected="the network dict (define `network` in the config)", got=None)
    if not isinstance(network, dict):
        raise ConfigValueError("network", expected="a dict layer name -> layer dict", got=network)
    return network

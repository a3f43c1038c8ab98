"""The ``learning_rate_file``: per-epoch learning rate and scores, in the reference's format.

The file is a Python literal, one entry per epoch, keys sorted, meta entries prefixed with ``:meta:``; a score
dict is written on one line when short (see :func:`format_dict_items`)::

    {
    1: EpochData(learningRate=0.01, error={
    ':meta:effective_learning_rate': np.float32(0.01),
    ':meta:epoch_num_train_steps': 5,
    'dev_error': 0.23736461997032166,
    'dev_score': 0.5651313662528992,
    'train_score': 0.6940396428108215,
    }),
    2: EpochData(learningRate=0.01, error={'dev_score': 0.5}),
    3: EpochData(learningRate=0.01, error={}),
    }

Values are written with ``repr`` (Python floats round-trip exactly; numpy scalars appear as ``np.float32(...)``
as the reference writes them). The file is written to a temporary name and renamed into place.
"""

from __future__ import annotations

import math
import os
import tempfile
from typing import Any, Dict, Optional

from returnn.errors import DataFileError

META_PREFIX = ":meta:"


class EpochData:
    """Learning rate and scores of one epoch.

    :param learning_rate: the epoch's learning rate (also accepted as ``learningRate``, the file's spelling)
    :param error: scores, key → float (e.g. ``"dev_score"``); ``":meta:"`` keys are moved into ``meta``
    :param meta: extra info the engine stores (e.g. ``epoch_num_train_steps``), written as ``":meta:<key>"``
    """

    META_PREFIX = META_PREFIX

    def __init__(self, learning_rate: Optional[float] = None, error: Optional[Dict[str, Any]] = None,
                 meta: Optional[Dict[str, Any]] = None, *, learningRate: Optional[float] = None):  # noqa: N803
        if learning_rate is None:
            learning_rate = learningRate
        self.learning_rate = learning_rate
        self.error: Dict[str, Any] = {}
        self.meta: Dict[str, Any] = dict(meta or {})
        for key, value in (error or {}).items():
            if key.startswith(META_PREFIX):
                self.meta[key[len(META_PREFIX):]] = value
            else:
                self.error[key] = value

    def all_items_sorted(self) -> list:
        """``(key, value)`` of scores and ``":meta:"``-prefixed meta entries, sorted by key (file order)."""
        items = dict(self.error)
        items.update({META_PREFIX + key: value for key, value in self.meta.items()})
        return sorted(items.items())

    def __eq__(self, other: Any) -> bool:
        return (isinstance(other, EpochData) and self.learning_rate == other.learning_rate
                and self.error == other.error and self.meta == other.meta)

    def __repr__(self) -> str:
        return f"EpochData(learningRate={self.learning_rate!r}, error={format_dict_items(self.all_items_sorted())})"


MULTI_LINE_MIN_CHARS = 40


def format_dict_items(items) -> str:
    """A dict literal of ``(key, value)`` items as the reference formats it: on one line
    (``{'a': 1.0, 'b': 2.0}``) unless the items' ``'key': value`` texts are 40 characters or more together; then
    one item per line, each followed by a comma, and the braces on their own lines (observed behaviour)."""
    texts = [f"{key!r}: {value!r}" for key, value in items]
    if sum(len(text) for text in texts) < MULTI_LINE_MIN_CHARS:
        return "{" + ", ".join(texts) + "}"
    return "{\n" + "".join(text + ",\n" for text in texts) + "}"


def format_learning_rate_file(epoch_data: Dict[int, EpochData]) -> str:
    """The file content for ``epoch_data`` (epoch → :class:`EpochData`), exactly as the reference writes it
    (see :func:`format_dict_items`; the outer dict always spans several lines)."""
    return format_dict_items((epoch, _Raw(repr(epoch_data[epoch]))) for epoch in sorted(epoch_data)) + "\n"


class _Raw:
    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return self.text


def write_learning_rate_file(filename: str, epoch_data: Dict[int, EpochData]) -> None:
    """Writes ``epoch_data`` to ``filename`` via a temporary file in the same directory and a rename, so a crash
    never leaves a half-written file.

    A missing directory is created (as the reference does, observed).

    :raises DataFileError: if the directory is not writable
    """
    content = format_learning_rate_file(epoch_data)
    directory = os.path.dirname(os.path.abspath(filename))
    try:
        os.makedirs(directory, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=os.path.basename(filename) + ".", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise DataFileError(filename, f"cannot write learning_rate_file: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "w") as f:
            f.write(content)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp_name, 0o644)
        os.replace(tmp_name, filename)
    except BaseException:
        if os.path.exists(tmp_name):
            os.remove(tmp_name)
        raise


def parse_learning_rate_file_content(content: str, filename: str = "<learning_rate_file>") -> Dict[int, EpochData]:
    """Parses the file format above (also the positional ``EpochData(lr, {...})`` form).

    :raises DataFileError: naming ``filename`` if the content does not evaluate to a dict epoch → EpochData
    """
    import numpy

    namespace = {"__builtins__": {}, "EpochData": EpochData, "np": numpy, "numpy": numpy,
                 "inf": math.inf, "nan": math.nan, "float": float, "int": int}
    try:
        value = eval(compile(content, filename, "eval"), namespace)  # noqa: S307  (Python-literal file format)
    except SyntaxError as exc:
        raise DataFileError(filename, f"not a valid learning_rate_file (syntax error in line {exc.lineno}; "
                                      "truncated?)") from None
    except Exception as exc:
        raise DataFileError(filename, f"not a valid learning_rate_file ({type(exc).__name__}: {exc})") from None
    if not isinstance(value, dict) or not all(isinstance(k, int) and isinstance(v, EpochData)
                                              for k, v in value.items()):
        raise DataFileError(filename, "expected a dict {epoch: EpochData(learningRate=..., error={...}), ...}, "
                                      f"got {type(value).__name__}")
    return dict(sorted(value.items()))


def read_learning_rate_file(filename: str) -> Dict[int, EpochData]:
    """Reads ``filename`` (see :func:`parse_learning_rate_file_content`).

    :raises DataFileError: if it cannot be read or parsed
    """
    try:
        with open(filename) as f:
            content = f.read()
    except OSError as exc:
        raise DataFileError(filename, f"cannot read learning_rate_file: {exc.strerror or exc}") from None
    if not content.strip():
        return {}
    return parse_learning_rate_file_content(content, filename)

"""``better_repr``: the reference's multi-line ``repr`` used when writing Python-literal files (e.g. score
files), readable by ``eval``. Format observed from the reference:

* a list: one item per line, ``"[\\n1,\\n2,\\n]"`` (also when empty or with one item);
* a set: ``set(<the list form of its sorted items>)``;
* a tuple with one item: plain ``repr``; otherwise ``"(a, b)"`` with the items in this format;
* a dict: keys sorted, ``"{k: v, ...}"`` on one line if that is at most 41 characters long, else one
  ``k: v,`` per line between ``{`` and ``}``;
* anything else: ``repr``.
"""

from __future__ import annotations

from typing import Any

_DICT_INLINE_MAX_LEN = 41


def better_repr(o: Any) -> str:
    """``o`` as Python literal text in the reference's layout (see module doc)."""
    if isinstance(o, list):
        return "[\n" + "".join(better_repr(v) + ",\n" for v in o) + "]"
    if isinstance(o, (set, frozenset)):
        try:
            items = sorted(o)
        except TypeError:
            items = list(o)
        return "set(%s)" % better_repr(items)
    if isinstance(o, tuple):
        if len(o) == 1:
            return repr(o)
        return "(" + ", ".join(better_repr(v) for v in o) + ")"
    if isinstance(o, dict):
        items = [better_repr(k) + ": " + better_repr(v) for k, v in sorted(o.items())]
        inline = "{" + ", ".join(items) + "}"
        if len(inline) <= _DICT_INLINE_MAX_LEN:
            return inline
        return "{\n" + "".join(item + ",\n" for item in items) + "}"
    return repr(o)


def load_pickle_file(filename: str) -> Any:
    """The object pickled in ``filename`` (``tools/dump-pickle.py``). Unpickling runs code of the file's choice:
    only for files you trust.

    :raises DataFileError: the file cannot be opened or is no pickle (or needs a module that cannot be imported)
    """
    import pickle

    from returnn.errors import DataFileError

    try:
        with open(filename, "rb") as f:
            return pickle.load(f)
    except OSError as exc:
        raise DataFileError(filename, "cannot open: %s" % (exc.strerror or exc)) from exc
    except (pickle.UnpicklingError, EOFError, ImportError, AttributeError, ValueError, TypeError) as exc:
        raise DataFileError(filename, "cannot unpickle: %s: %s" % (type(exc).__name__, exc)) from exc

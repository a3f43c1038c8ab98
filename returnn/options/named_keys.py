"""Config values under a key that is not declared in an options group because the user names it: on a tool's
command line (``--data config:my_dev_set``, ``--dataset dev``) or in another key's value (``task =
"config:my_function"``).

This is the only way such a key is read outside the option groups; a key the code itself names is declared in a
group of :mod:`returnn.options`.
"""

from __future__ import annotations

from typing import Any


def named_value(config, key: str, default: Any = None) -> Any:
    """The Python value of config ``key`` (a dict, a function, ...), or ``default`` when it has none (not set, or
    only a string of a line-based config).

    :param key: a key the user named (see module doc)
    """
    return config.typed_value(key, default)

"""Finds the config keys the code reads: every call ``<x>.<getter>("<key>", ...)`` where ``<x>`` names a config
(its source text contains ``config`` or ``cfg``, e.g. ``config``, ``self.config``, ``get_global_config()``,
``self.network.get_config()``) and ``<getter>`` is a :class:`~returnn.config.Config` reader; also
``<x>.typed_dict.get("<key>")`` and ``<x>.typed_dict["<key>"]``.

Keys passed through a variable are not seen (they are declared where the variable's values are). Used by
``tests/options/test_known_keys.py``: every key found must be declared (an options group or
:data:`returnn.options.known_keys.OTHER_KEYS`).
"""

from __future__ import annotations

import ast
import os
from typing import Dict, Iterable, Set

GETTERS = frozenset({
    "int", "float", "bool", "value", "typed_value", "opt_typed_value", "has", "list", "int_list", "float_list",
    "bool_or_other", "dict_value", "get_of_type", "is_true", "is_typed", "is_of_type", "int_pair",
})


def _names_config(node: ast.AST) -> bool:
    text = ast.unparse(node).lower()
    return "config" in text or "cfg" in text


def _literal(node: ast.AST):
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def keys_in_source(source: str) -> Set[str]:
    """The config keys read in one module's source (see module doc)."""
    keys: Set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
            func = node.func
            key = _literal(node.args[0])
            if key is None:
                continue
            if func.attr in GETTERS and _names_config(func.value):
                keys.add(key)
            elif (func.attr == "get" and isinstance(func.value, ast.Attribute) and func.value.attr == "typed_dict"
                  and _names_config(func.value.value)):
                keys.add(key)
        elif (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute)
              and node.value.attr == "typed_dict" and _names_config(node.value.value)):
            key = _literal(node.slice)
            if key is not None:
                keys.add(key)
    return keys


def scan(paths: Iterable[str]) -> Dict[str, Set[str]]:
    """key → the files (as given, joined with their relative path) that read it, over every ``*.py`` file under
    ``paths`` (files or directories)."""
    found: Dict[str, Set[str]] = {}
    for path in paths:
        files = [path] if path.endswith(".py") else [
            os.path.join(dirpath, name) for dirpath, _dirs, names in os.walk(path) for name in names
            if name.endswith(".py")]
        for filename in sorted(files):
            with open(filename, encoding="utf8") as f:
                source = f.read()
            try:
                keys = keys_in_source(source)
            except SyntaxError:
                continue
            for key in keys:
                found.setdefault(key, set()).add(filename)
    return found

"""Only ``returnn/options/`` (and ``returnn/config.py`` itself, with its pickling) read the config: every other
module of ``returnn/`` receives the parsed option group it needs.

A raw read is a call ``<x>.<getter>(...)`` where ``<x>``'s source names a config (contains ``config`` or ``cfg``,
e.g. ``config``, ``self.config``, ``net.get_config()``) and ``<getter>`` is one of the Config readers
(:data:`READERS`), an access to ``<x>.typed_dict``, or any call of ``get_global_config``.

Files not converted yet are listed in :data:`NOT_CONVERTED_YET` with the helper converting them; whoever converts a
file removes it from the list (the test fails on a listed file without raw reads, so the list only shrinks).
"""

from __future__ import annotations

import ast
import os
from typing import Dict, List, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PACKAGE = os.path.join(ROOT, "returnn")

#: Config methods that read a key
READERS = frozenset({
    "value", "typed_value", "opt_typed_value", "int", "bool", "float", "list", "has", "is_true", "is_typed",
    "int_list", "float_list", "dict_value", "get_of_type", "bool_or_other", "is_of_type", "int_pair",
})

#: paths (relative to returnn/, "/" separated) where reading the config is their job: the option groups, the Config
#: class, and the Config's own pickling (its typed values and whether it is the process's global config)
CONFIG_READERS = ("options/", "config.py", "config_pickle.py")

#: files still reading the config raw: path relative to returnn/ -> who converts it (issue 31 item 1)
NOT_CONVERTED_YET: Dict[str, str] = {}


def _names_config(node: ast.AST) -> bool:
    text = ast.unparse(node).lower()
    return "config" in text or "cfg" in text


def raw_reads_in_source(source: str) -> List[Tuple[int, str]]:
    """(line, source text) of every raw config read in one module's source (see module doc)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
            if name == "get_global_config" or (
                    isinstance(func, ast.Attribute) and name in READERS and _names_config(func.value)):
                found.append((node.lineno, ast.unparse(node)))
        elif (isinstance(node, ast.Attribute) and node.attr == "typed_dict" and _names_config(node.value)):
            found.append((node.lineno, ast.unparse(node)))
    return sorted(found)


def raw_reads(root: str) -> Dict[str, List[Tuple[int, str]]]:
    """path relative to ``root`` ("/" separated) -> its raw config reads, for every ``*.py`` file under ``root``
    except :data:`CONFIG_READERS`."""
    result = {}
    for dirpath, _dirs, names in os.walk(root):
        for name in sorted(names):
            if not name.endswith(".py"):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root).replace(os.sep, "/")
            if any(rel == p or (p.endswith("/") and rel.startswith(p)) for p in CONFIG_READERS):
                continue
            with open(path, encoding="utf8") as f:
                reads = raw_reads_in_source(f.read())
            if reads:
                result[rel] = reads
    return result


def test_no_raw_config_reads_outside_options():
    found = raw_reads(PACKAGE)
    offending = {rel: reads for rel, reads in found.items() if rel not in NOT_CONVERTED_YET}
    assert not offending, (
        "raw config reads outside returnn/options/ (declare the key in an options group of returnn/options/ and "
        "pass the parsed group to the component):\n" + "\n".join(
            "  returnn/%s:%d: %s" % (rel, line, text) for rel, reads in sorted(offending.items())
            for line, text in reads))


def test_not_converted_list_only_shrinks():
    """A file of :data:`NOT_CONVERTED_YET` that no longer reads the config raw must leave the list."""
    found = raw_reads(PACKAGE)
    stale = sorted(rel for rel in NOT_CONVERTED_YET if rel not in found)
    assert not stale, "converted (or gone): remove from NOT_CONVERTED_YET: %s" % stale


def test_scan_finds_a_planted_read(tmp_path):
    """The scan sees each form of raw read in a file it was not written for, and nothing in clean code."""
    pkg = tmp_path / "pkg"
    (pkg / "options").mkdir(parents=True)
    (pkg / "sub").mkdir()
    (pkg / "sub" / "planted.py").write_text(
        "def f(config, net, key):\n"
        "    a = config.int('a', 1)\n"
        "    b = self.config.typed_value(key)\n"
        "    c = net.get_config().bool('c', False)\n"
        "    d = get_global_config()\n"
        "    e = returnn.config.get_global_config(raise_exception=False)\n"
        "    g = cfg.has('g')\n"
        "    h = config.typed_dict.get('h')\n"
        "    return a, b, c, d, e, g, h\n")
    (pkg / "sub" / "clean.py").write_text(
        "from returnn.config import get_global_config\n"
        "def f(opts, d):\n"
        "    return opts.num_epochs, d.get('x'), d.value('y'), int('3')\n")
    (pkg / "options" / "group.py").write_text("def read(config):\n    return config.int('a', 1)\n")
    (pkg / "config.py").write_text("def g(config):\n    return config.value('x', None)\n")
    found = raw_reads(str(pkg))
    assert list(found) == ["sub/planted.py"]
    assert [line for line, _text in found["sub/planted.py"]] == [2, 3, 4, 5, 6, 7, 8]

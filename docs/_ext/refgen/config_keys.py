"""The config-key reference, collected by a scan of the code, plus the keys declared in the options groups
(``returnn/options/``).

Every call ``<something named *config* or cfg>.<reader>("<key>", <default>, ...)`` in ``returnn/`` (and
``rnn.py``) is a read of config key ``<key>``; the reader gives the type (``int``, ``float``, ``bool``, ``list``,
``typed_value``: any Python value, ``value``: a string, ``has``: only whether it is set), the second argument (or
``default=``) the default. Keys that reach the reader through a variable are followed where that is simple: a loop
``for key in ("a", "b")`` (or over a module-level tuple of names), and a function parameter (the calls of that
function, across modules and through several levels, that pass a literal). A key built at run time (an f-string
such as ``f"{name}_seq_ordering"``) is listed as a pattern with ``<...>``. Other reads are not seen.
"""

from __future__ import annotations

import ast
import os
import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Set, Tuple

from refgen import rst

READERS = {
    "typed_value": "any", "opt_typed_value": "any", "value": "str", "int": "int", "float": "float", "bool": "bool",
    "bool_or_other": "bool or other", "is_true": "bool", "list": "list", "int_list": "list of int",
    "float_list": "list of float", "int_pair": "int pair", "dict_value": "dict", "get_of_type": "typed",
    "is_of_type": "(type check)", "has": "(set or not)", "is_typed": "(set or not)",
}


@dataclass
class ConfigKey:
    """One config key and where it is read."""

    key: str
    types: Set[str] = field(default_factory=set)
    defaults: Set[str] = field(default_factory=set)
    modules: Set[str] = field(default_factory=set)
    pattern: bool = False


def _key_of(node: ast.AST) -> Optional[Tuple[str, bool]]:
    """:return: (key, is a pattern) of a str literal or an f-string, else None"""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value, False
    if isinstance(node, ast.JoinedStr):
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(str(value.value))
            else:
                parts.append("<" + ast.unparse(value.value if isinstance(value, ast.FormattedValue) else value) + ">")
        return "".join(parts), True
    return None


def _str_items(node: ast.AST, constants: Dict[str, List[str]]) -> List[str]:
    """:return: the strings of a literal tuple/list/set (or of a module-level constant naming one)"""
    if isinstance(node, ast.Name) and node.id in constants:
        return constants[node.id]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return []


@dataclass
class _KeyParam:
    """A function whose parameter is used as a config key: calls to it with a literal there read that key."""

    func: str
    param: str
    index: int  # position among the parameters without self/cls
    reader: str
    default_param: Optional[str]


class _Scanner(ast.NodeVisitor):
    """Finds reads in one module: direct ones, keys from ``for key in (...)`` loops, and key parameters."""

    def __init__(self, module: str, tree: ast.Module, add: Any, key_params: List[_KeyParam]):
        self.module = module
        self.add = add
        self.key_params = key_params
        self.funcs: List[ast.AST] = []
        self.loops: List[ast.For] = []
        self.constants = {t.id: _str_items(n.value, {}) for n in tree.body if isinstance(n, ast.Assign)
                          for t in n.targets if isinstance(t, ast.Name) and _str_items(n.value, {})}

    def visit_FunctionDef(self, node: ast.AST) -> None:  # noqa: N802
        self.funcs.append(node)
        self.generic_visit(node)
        self.funcs.pop()

    visit_AsyncFunctionDef = visit_FunctionDef  # noqa: N815

    def visit_For(self, node: ast.For) -> None:  # noqa: N802
        self.loops.append(node)
        self.generic_visit(node)
        self.loops.pop()

    def loop_keys(self, name: str) -> List[str]:
        for loop in reversed(self.loops):
            if isinstance(loop.target, ast.Name) and loop.target.id == name:
                return _str_items(loop.iter, self.constants)
        return []

    def param_of_enclosing(self, name: str) -> Optional[Tuple[ast.AST, int]]:
        if not self.funcs:
            return None
        params = [a.arg for a in self.funcs[-1].args.args + self.funcs[-1].args.kwonlyargs
                  if a.arg not in ("self", "cls")]
        return (self.funcs[-1], params.index(name)) if name in params else None

    def visit_Call(self, node: ast.Call) -> None:  # noqa: N802
        self.generic_visit(node)
        if not (isinstance(node.func, ast.Attribute) and node.func.attr in READERS and node.args):
            return
        receiver = ast.unparse(node.func.value)
        if "config" not in receiver.lower() and receiver.split(".")[-1] != "cfg":
            return
        reader = node.func.attr
        key_node = node.args[0]
        default = node.args[1] if len(node.args) > 1 and reader not in ("get_of_type", "is_of_type") \
            else next((k.value for k in node.keywords if k.arg == "default"), None)
        found = _key_of(key_node)
        if found is not None:
            self.add(found[0], reader, self.module, ast.unparse(default) if default is not None else None, found[1])
            return
        if not isinstance(key_node, ast.Name):
            return
        keys = self.loop_keys(key_node.id)
        for key in keys:
            self.add(key, reader, self.module, ast.unparse(default) if default is not None else None, False)
        if keys:
            return
        enclosing = self.param_of_enclosing(key_node.id)
        if enclosing is not None:
            default_param = default.id if isinstance(default, ast.Name) else None
            self.key_params.append(_KeyParam(enclosing[0].name, key_node.id, enclosing[1], reader, default_param))


def _call_arg(call: ast.Call, kp: _KeyParam, param: Optional[str], index: Optional[int]) -> Optional[ast.AST]:
    for k in call.keywords:
        if k.arg == param:
            return k.value
    if index is not None and index < len(call.args) and not any(isinstance(a, ast.Starred) for a in call.args):
        return call.args[index]
    return None


def scan(paths: List[str], root: str) -> Dict[str, ConfigKey]:
    """:return: key -> :class:`ConfigKey`, for the ``.py`` files under ``paths`` (relative to ``root``)"""
    keys: Dict[str, ConfigKey] = {}

    def add(key: str, reader: str, module: str, default: Optional[str], pattern: bool) -> None:
        if not key or " " in key:
            return
        entry = keys.setdefault(key, ConfigKey(key, pattern=pattern))
        entry.types.add(READERS[reader])
        entry.modules.add(module)
        if default is not None:
            entry.defaults.add(default)

    files = []
    for path in paths:
        full = os.path.join(root, path)
        if os.path.isfile(full):
            files.append(full)
        for dirpath, _, names in os.walk(full):
            files += [os.path.join(dirpath, n) for n in sorted(names) if n.endswith(".py")]
    trees = {}
    key_params: List[_KeyParam] = []
    for filename in sorted(files):
        rel = os.path.relpath(filename, root)
        if rel == os.path.join("returnn", "config.py"):  # the reader methods themselves
            continue
        with open(filename, encoding="utf8") as f:
            try:
                tree = ast.parse(f.read(), filename)
            except SyntaxError:
                continue
        module = rel[:-3].replace(os.sep, ".")
        trees[module] = tree
        _Scanner(module, tree, add, key_params).visit(tree)
    # calls of functions that take the key as a parameter (followed through several levels)
    scopes = [scope for module, tree in trees.items() for scope in _call_scopes(module, tree)]
    done = set()
    while True:
        todo = [kp for kp in key_params if (kp.func, kp.param) not in done]
        if not todo:
            break
        for kp in todo:
            done.add((kp.func, kp.param))
        by_func: Dict[str, List[_KeyParam]] = {}
        for kp in todo:
            by_func.setdefault(kp.func, []).append(kp)
        for scope in scopes:
            for call, name in scope.calls:
                for kp in by_func.get(name, ()):
                    _follow_call(call, kp, scope, add, key_params)
    return keys


@dataclass
class _Scope:
    """A function (or a module's top level) with its calls (not those of nested functions)."""

    module: str
    name: Optional[str]
    params: List[str]
    loops: Dict[str, List[str]]
    calls: List[Tuple[ast.Call, str]]


def _call_scopes(module: str, tree: ast.Module) -> List[_Scope]:
    constants = {t.id: _str_items(n.value, {}) for n in tree.body if isinstance(n, ast.Assign)
                 for t in n.targets if isinstance(t, ast.Name) and _str_items(n.value, {})}
    scopes = []
    for scope in [tree] + [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]:
        is_func = not isinstance(scope, ast.Module)
        params = [a.arg for a in scope.args.args + scope.args.kwonlyargs if a.arg not in ("self", "cls")] \
            if is_func else []
        loops: Dict[str, List[str]] = {}
        calls = []
        stack = list(ast.iter_child_nodes(scope))
        while stack:
            node = stack.pop()
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                continue
            if isinstance(node, ast.For) and isinstance(node.target, ast.Name):
                loops[node.target.id] = _str_items(node.iter, constants)
            stack.extend(ast.iter_child_nodes(node))
            if isinstance(node, ast.Call):
                name = node.func.id if isinstance(node.func, ast.Name) else \
                    node.func.attr if isinstance(node.func, ast.Attribute) else None
                if name:
                    calls.append((node, name))
        scopes.append(_Scope(module, scope.name if is_func else None, params, loops, calls))
    return scopes


def _follow_call(call: ast.Call, kp: _KeyParam, scope: _Scope, add: Any, key_params: List[_KeyParam]) -> None:
    """A call of ``kp.func`` in ``scope``: its literal key argument is a read (or it passes on its own parameter)."""
    arg = _call_arg(call, kp, kp.param, kp.index)
    default_arg = None
    if kp.default_param is not None:
        default_arg = next((k.value for k in call.keywords if k.arg == kp.default_param), None)
    default = ast.unparse(default_arg) if default_arg is not None else None
    found = _key_of(arg) if arg is not None else None
    if found is not None:
        add(found[0], kp.reader, scope.module, default, found[1])
    elif isinstance(arg, ast.Name) and scope.loops.get(arg.id):
        for key in scope.loops[arg.id]:
            add(key, kp.reader, scope.module, default, False)
    elif isinstance(arg, ast.Name) and arg.id in scope.params and scope.name is not None:
        key_params.append(_KeyParam(scope.name, arg.id, scope.params.index(arg.id), kp.reader, None))


def collect(root: str) -> Dict[str, ConfigKey]:
    """:return: the config keys read by ``returnn/`` and ``rnn.py`` (see the module doc), and the keys declared in
    the options groups (:data:`returnn.options.GROUPS`, read through their own readers)"""
    keys = scan(["returnn", "rnn.py"], root)
    from returnn.options import GROUPS

    for group in GROUPS:
        for opt in group.declared():
            entry = keys.setdefault(opt.key, ConfigKey(opt.key))
            entry.types.add({"any_or_str": "any", "has": "(set or not)"}.get(opt.kind, opt.kind))
            entry.defaults.add(repr(opt.default))
            entry.modules.add(group.__module__)
    return keys


_ROW_RE = re.compile(r"^\|\s*`([A-Za-z0-9_]+)`\s*\|(.*)\|\s*$")


def guide_meanings(docs_dir: str) -> Dict[str, Tuple[str, str]]:
    """:return: key -> (meaning, page name) from the tables of the hand-written pages (``docs/*.md``) whose rows
    start with a key in backquotes (``| `key` | default | meaning |``): the last cell is the meaning"""
    out: Dict[str, Tuple[str, str]] = {}
    for name in sorted(os.listdir(docs_dir)):
        if not name.endswith(".md"):
            continue
        with open(os.path.join(docs_dir, name), encoding="utf8") as f:
            for line in f:
                match = _ROW_RE.match(line.strip())
                if match:
                    cells = [c.strip() for c in match.group(2).split("|")]
                    if cells and cells[-1]:
                        out.setdefault(match.group(1), (cells[-1], name[:-3]))
    return out


def _markdown_to_rst(text: str) -> str:
    """inline Markdown of a table cell -> reST: `code` -> ``code``, [text](url) -> text"""
    text = re.sub(r"\[([^\]]+)\]\([^)]+\)", r"\1", text)
    return re.sub(r"(?<!`)`([^`]+)`(?!`)", r"``\1``", text)


def generate(outdir: str, root: str) -> Dict[str, int]:
    """Writes ``config-keys.rst``. :return: {"config_keys": number of keys listed}"""
    from refgen import write_if_changed
    keys = collect(root)
    meanings = guide_meanings(os.path.join(root, "docs"))
    rows = []
    for key in sorted(keys, key=str.lower):
        entry = keys[key]
        types = ", ".join(sorted(t for t in entry.types if not t.startswith("("))) or \
            ", ".join(sorted(entry.types))
        meaning, page = meanings.get(key, ("", ""))
        if meaning:
            meaning = rst.inline(_markdown_to_rst(meaning), f"config key {key}") + f" (:doc:`../{page}`)"
        rows.append((rst.literal(key) + (" (pattern)" if entry.pattern else ""), types,
                     ", ".join(rst.literal(d) for d in sorted(entry.defaults)), meaning,
                     ", ".join(rst.literal(m[len("returnn."):] if m.startswith("returnn.") else m)
                               for m in sorted(entry.modules))))
    out = [".. _config-keys:", "", rst.heading("Config keys", "=", overline=True),
           rst.fragment(rst.cleandoc(__doc__), "config keys"), "",
           f"**{len(keys)} keys** were found by the scan of this build. \"read as\" is the reader method's type "
           "(``any``: the Python value as the config sets it); \"defaults\" are the expressions passed where it is "
           "read (one per distinct call), so a key read in several places may show several; the meaning is taken "
           "from the key tables of the guides where they have one (the link names the page). The dataset options "
           "are in :ref:`datasets`.", ""]
    out.append(rst.list_table(["key", "read as", "defaults", "meaning (from the guides)", "read in (``returnn.``)"],
                              rows, widths=[24, 8, 14, 32, 22]))
    write_if_changed(os.path.join(outdir, "config-keys.rst"), "\n".join(out) + "\n")
    return {"config_keys": len(keys)}
